"""User CSV / TSV / JSONL / JSON files and their errors, on small hand-made files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.data.items import LoadedDataset
from audit.data.loader import load_dataset
from audit.data.request import DatasetRequest
from audit.errors import DataError, UnknownNameError
from audit.spec.dataset_request import dataset_request
from audit.spec.models import DatasetSpec


def _load(tmp_path: Path, **fields: Any) -> LoadedDataset:
    spec = DatasetSpec.model_validate({"name": "mine", **fields})
    return load_dataset(dataset_request(spec), data_dir=None, cache_dir=tmp_path / "cache")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_pairs_csv_with_column_map(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "p.csv",
        "key,more,less,kind\nA,He is strong.,She is strong.,gender\n"
        'B,"The old, slow man.","The young, slow man.",age\n',
    )
    ds = _load(
        tmp_path,
        path=str(path),
        kind="pairs",
        columns={"id": "key", "stereotype": "more", "anti_stereotype": "less", "bias_type": "kind"},
    )
    items = ds.pair_items()
    assert [(i.item_id, i.bias_type, i.stereotype) for i in items] == [
        ("A", "gender", "He is strong."),
        ("B", "age", "The old, slow man."),
    ]
    assert ds.rows_read == 2 and ds.source == str(path) and len(ds.sha256) == 64
    assert not ds.verified


def test_pairs_tsv_defaults_to_role_names_and_row_ids(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.tsv", "stereotype\tanti_stereotype\nA x.\tB x.\nC y.\tD y.\n")
    items = _load(tmp_path, path=str(path), kind="pairs").pair_items()
    assert [(i.item_id, i.bias_type, i.anti_stereotype) for i in items] == [
        ("0", "unspecified", "B x."),
        ("1", "unspecified", "D y."),
    ]


def test_labelled_jsonl_label_mapping_and_toxicity_default(tmp_path: Path) -> None:
    rows = [
        {"sentence": "bad", "y": "HATE", "who": ["a", "b"]},
        {"sentence": "fine", "y": "ok", "who": "a"},
        {"sentence": "bad too", "y": 1, "who": "b"},
    ]
    path = _write(tmp_path / "l.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    ds = _load(
        tmp_path,
        path=str(path),
        kind="labelled",
        columns={"text": "sentence", "label": "y", "group": "who"},
    )
    items = ds.labelled_items()
    assert [i.label for i in items] == ["harmful", "benign", "harmful"]
    assert [i.groups for i in items] == [("a", "b"), ("a",), ("b",)]
    assert all(i.toxicity == 1.0 for i in items)


def test_json_array_reads_like_json_lines(tmp_path: Path) -> None:
    rows = [
        {"sentence": "bad", "y": "HATE", "who": ["a", "b"]},
        {"sentence": "fine", "y": "ok", "who": "a"},
    ]
    lines = _write(tmp_path / "l.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    array = _write(tmp_path / "l.json", json.dumps(rows, indent=2))
    columns = {"text": "sentence", "label": "y", "group": "who"}
    from_lines = _load(tmp_path, path=str(lines), kind="labelled", columns=columns)
    from_array = _load(tmp_path, path=str(array), kind="labelled", columns=columns)
    assert from_array.items == from_lines.items and from_array.rows_read == 2
    copy = _write(tmp_path / "l.data", json.dumps(rows))
    assert _load(tmp_path, path=str(copy), kind="labelled", columns=columns, format="json").items
    array.write_text('[\n  {"sentence": "a", "y": 1, "who": "g"},\n\n  {"sentence": "b"}\n]')
    with pytest.raises(DataError, match=r"l\.json:4: column 'y' not found"):
        _load(tmp_path, path=str(array), kind="labelled", columns=columns)


def test_json_array_in_a_jsonl_file_says_what_to_do(tmp_path: Path) -> None:
    rows = [{"stereotype": "a", "anti_stereotype": "b"}]
    for text in (json.dumps(rows, indent=2), json.dumps(rows)):
        path = _write(tmp_path / "p.jsonl", text)
        with pytest.raises(DataError, match=r"p\.jsonl:1: .*a JSON array: name it \.json"):
            _load(tmp_path, path=str(path), kind="pairs")


def test_labelled_csv_custom_harmful_labels_toxicity_and_groups(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.csv", "text,label,toxicity,group\nx,Bad,2.5,a;b\ny,hate,3,a\n")
    ds = _load(tmp_path, path=str(path), kind="labelled", harmful_labels=["bad"])
    items = ds.labelled_items()
    assert [(i.label, i.toxicity, i.groups) for i in items] == [
        ("harmful", 2.5, ("a", "b")),
        ("benign", 3.0, ("a",)),
    ]


def test_missing_mapped_column_names_file_column_and_present(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "a,b\nx,y\n")
    with pytest.raises(DataError) as err:
        _load(tmp_path, path=str(path), kind="pairs", columns={"stereotype": "a"})
    message = str(err.value)
    assert str(path) in message and "'anti_stereotype'" in message and "'a', 'b'" in message


def test_empty_cell_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\nx,y\nz,\n")
    with pytest.raises(DataError, match=r"p\.csv:3: empty value in column 'anti_stereotype'"):
        _load(tmp_path, path=str(path), kind="pairs")


def test_empty_row_in_the_middle_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\nx,y\n\nz,w\n")
    with pytest.raises(DataError, match=r"p\.csv:3: empty row"):
        _load(tmp_path, path=str(path), kind="pairs")


def test_trailing_blank_lines_are_fine(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\nx,y\n\n\n")
    assert len(_load(tmp_path, path=str(path), kind="pairs").items) == 1


def test_row_with_wrong_cell_count(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\nx,y\nx,y,z\n")
    with pytest.raises(DataError, match=r"p\.csv:3: malformed row: 3 cells"):
        _load(tmp_path, path=str(path), kind="pairs")


def test_malformed_jsonl_line_names_its_number(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.jsonl", '{"text": "a", "label": "hate"}\n{"text": "b", label\n')
    with pytest.raises(DataError, match=r"l\.jsonl:2: malformed JSON"):
        _load(tmp_path, path=str(path), kind="labelled")


def test_jsonl_line_missing_a_column(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.jsonl", '{"text": "a", "label": "x"}\n{"text": "b"}\n')
    with pytest.raises(DataError, match=r"l\.jsonl:2: column 'label' not found"):
        _load(tmp_path, path=str(path), kind="labelled")


def test_empty_label_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.csv", "text,label\na,hate\nb, \n")
    with pytest.raises(DataError, match=r"l\.csv:3: empty value in column 'label'"):
        _load(tmp_path, path=str(path), kind="labelled")


@pytest.mark.parametrize("value", ["0", "-1", "high", "nan"])
def test_toxicity_must_be_positive_number(tmp_path: Path, value: str) -> None:
    path = _write(tmp_path / "l.csv", f"text,label,toxicity\na,hate,{value}\n")
    with pytest.raises(DataError, match=r"l\.csv:2: column 'toxicity' .* expected a number > 0"):
        _load(tmp_path, path=str(path), kind="labelled")


def test_duplicate_ids_are_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "id,stereotype,anti_stereotype\n7,a,b\n7,c,d\n")
    with pytest.raises(DataError, match="item id '7' appears more than once"):
        _load(tmp_path, path=str(path), kind="pairs")


def test_unknown_extension_and_missing_kind(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.txt", "stereotype,anti_stereotype\na,b\n")
    with pytest.raises(DataError, match=r"extension '\.txt'"):
        _load(tmp_path, path=str(path), kind="pairs")
    assert len(_load(tmp_path, path=str(path), kind="pairs", format="csv").items) == 1
    with pytest.raises(DataError, match="needs `kind: pairs` or `kind: labelled`"):
        _load(tmp_path, path=str(path), format="csv")


def test_column_of_the_other_kind_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\na,b\n")
    with pytest.raises(DataError, match=r"`columns.text` does not apply to kind pairs"):
        _load(tmp_path, path=str(path), kind="pairs", columns={"text": "stereotype"})


def test_missing_file_and_unknown_name(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        _load(tmp_path, path=str(tmp_path / "nope.csv"), kind="pairs")
    with pytest.raises(UnknownNameError, match="did you mean 'toxigen'"):
        load_dataset(DatasetRequest(name="toxigem"), data_dir=None, cache_dir=tmp_path)


def test_relative_path_is_taken_from_spec_dir(tmp_path: Path) -> None:
    _write(tmp_path / "p.csv", "stereotype,anti_stereotype\na,b\n")
    spec = DatasetSpec.model_validate(dict(name="mine", path="p.csv", kind="pairs"))
    ds = load_dataset(dataset_request(spec, tmp_path), data_dir=None, cache_dir=tmp_path)
    assert ds.source == str(tmp_path / "p.csv")


def test_filters_are_counted_and_unknown_names_listed(tmp_path: Path) -> None:
    lines = "".join(f"s{i},a{i},{t}\n" for i, t in enumerate(["x", "y", "x", "z", "x"]))
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype,bias_type\n" + lines)
    ds = _load(tmp_path, path=str(path), kind="pairs", bias_types=["x", "z"], limit=2)
    assert [i.item_id for i in ds.items] == ["0", "2"]
    assert ds.filtered == {"bias_types": 1, "limit": 2}
    with pytest.raises(DataError, match=r"unknown bias type 'w' \(known: x, y, z\)"):
        _load(tmp_path, path=str(path), kind="pairs", bias_types=["w"])
    with pytest.raises(DataError, match="`groups` filters labelled sets"):
        _load(tmp_path, path=str(path), kind="pairs", groups=["x"])


def test_group_filter_narrows_groups(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.csv", "text,label,group\na,hate,g1;g2\nb,ok,g2\nc,ok,g3\n")
    ds = _load(tmp_path, path=str(path), kind="labelled", groups=["g1", "g3"])
    assert [(i.item_id, i.groups) for i in ds.labelled_items()] == [("0", ("g1",)), ("2", ("g3",))]
    assert ds.filtered == {"groups": 1}


def test_sample_is_drawn_with_the_run_seed(tmp_path: Path) -> None:
    lines = "".join(f"s{i},a{i}\n" for i in range(40))
    path = _write(tmp_path / "p.csv", "stereotype,anti_stereotype\n" + lines)
    spec = DatasetSpec.model_validate(
        {"name": "mine", "path": str(path), "kind": "pairs", "sample": 5}
    )

    def drawn(seed: int) -> list[str]:
        request = dataset_request(spec, seed=seed)
        assert (request.sample, request.seed, request.limit) == (5, seed, None)
        ds = load_dataset(request, data_dir=None, cache_dir=tmp_path / "cache")
        assert ds.filtered == {"sample": 35}
        return [item.item_id for item in ds.items]

    assert drawn(0) == drawn(0) != drawn(1)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_non_standard_json_number_is_refused_as_a_label(
    tmp_path: Path, token: str, suffix: str
) -> None:
    """json reads NaN as a float whose text 'nan' is no harmful label: it was benign."""
    rows = [
        '{"text": "You are kind.", "verdict": "benign"}',
        f'{{"text": "You are awful.", "verdict": {token}}}',
    ]
    text = "\n".join(rows) + "\n" if suffix == ".jsonl" else "[\n" + ",\n".join(rows) + "\n]\n"
    path = _write(tmp_path / f"t{suffix}", text)
    with pytest.raises(DataError) as raised:
        _load(tmp_path, path=str(path), kind="labelled", columns={"label": "verdict"})
    line = 2 if suffix == ".jsonl" else 3
    assert str(raised.value) == (
        f"{path}:{line}: column 'verdict' holds {token}, which JSON does not allow (it has no "
        'NaN, Infinity or -Infinity); expected a label as text (e.g. "toxic" or "benign") or '
        "a whole number such as 0 or 1 (harmful: hate, harmful, toxic, 1, true; any other "
        "value: benign)"
    )


def test_a_json_number_too_large_for_a_float_is_refused_as_a_label(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", '{"text": "You are awful.", "label": 1e400}\n')
    with pytest.raises(DataError, match=r"t\.jsonl:1: column 'label' holds a number too large"):
        _load(tmp_path, path=str(path), kind="labelled")
