"""Errors on built-in datasets: bad options, bad filters, broken copies of the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from audit.data.items import LoadedDataset
from audit.data.loader import load_dataset
from audit.errors import DataError
from audit.spec.dataset_request import dataset_request
from audit.spec.models import DatasetSpec

CROWS_HEADER = (
    ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n"
)


def _load(tmp_path: Path, data_dir: Path | None = None, **fields: Any) -> LoadedDataset:
    spec = DatasetSpec.model_validate(fields)
    return load_dataset(dataset_request(spec), data_dir=data_dir, cache_dir=tmp_path / "cache")


def test_unknown_bias_type_lists_the_known_ones(shared_data: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        _load(tmp_path, shared_data, name="crows_pairs", bias_types=["gender", "race"])
    message = str(err.value)
    assert "unknown bias type 'race'" in message
    assert "known: race-color, socioeconomic, gender" in message


def test_unknown_group_lists_the_known_ones(shared_data: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"unknown target group 'woman'; did you mean 'women'"):
        _load(tmp_path, shared_data, name="toxigen", groups=["woman"])


def test_bad_options_and_user_file_keys(shared_data: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"bad options \(type: .*options it takes: type, split"):
        _load(tmp_path, shared_data, name="winobias", options={"type": 3})
    with pytest.raises(DataError, match="options it takes: none"):
        _load(tmp_path, shared_data, name="crows_pairs", options={"part": "x"})
    with pytest.raises(DataError, match="drop `kind: labelled`"):
        _load(tmp_path, shared_data, name="crows_pairs", kind="labelled")
    with pytest.raises(DataError, match="`columns` applies to user files"):
        _load(tmp_path, shared_data, name="toxigen", columns={"text": "t"})


def _crows_copy(tmp_path: Path, body: str, header: str = CROWS_HEADER) -> Path:
    path = tmp_path / "crows.csv"
    path.write_text(header + body, encoding="utf-8")
    return path


def test_crows_copy_missing_column(tmp_path: Path) -> None:
    path = _crows_copy(
        tmp_path, "0,a,b,stereo\n", header=",sent_more,sent_less,stereo_antistereo\n"
    )
    with pytest.raises(DataError, match=r"column 'bias_type' .* not found; columns present"):
        _load(tmp_path, name="crows_pairs", path=str(path))


def test_crows_copy_empty_sentence_and_bad_direction(tmp_path: Path) -> None:
    path = _crows_copy(tmp_path, "0,a,b,stereo,age,[],a0,[]\n1,,b,stereo,age,[],a0,[]\n")
    with pytest.raises(DataError, match=r"crows\.csv:3: empty value in column 'sent_more'"):
        _load(tmp_path, name="crows_pairs", path=str(path))
    path = _crows_copy(tmp_path, "0,a,b,sideways,age,[],a0,[]\n")
    with pytest.raises(DataError, match=r"crows\.csv:2: stereo_antistereo is 'sideways'"):
        _load(tmp_path, name="crows_pairs", path=str(path))


def test_stereoset_copy_missing_field(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "intrasentence", "bias_type": "race"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.jsonl:1: missing field\(s\) 'context'"):
        _load(tmp_path, name="stereoset", path=str(path))


def test_toxigen_copy_with_unknown_label(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        '[{"id": 4, "text": "x", "toxicity_score": 2, "label": "spam", "target_groups": ["a"]}]'
    )
    with pytest.raises(DataError, match=r"item 0 \(0-based\), id 4: label is 'spam'"):
        _load(tmp_path, name="toxigen", path=str(path))


def test_winobias_copy_with_unnumbered_line(tmp_path: Path) -> None:
    for name in ("pro_stereotyped_type1.txt.dev", "anti_stereotyped_type1.txt.dev"):
        (tmp_path / name).write_text("1 [The cook] fed [him].\nno number here\n")
    with pytest.raises(DataError, match=r"pro_stereotyped_type1\.txt\.dev:2: expected"):
        _load(tmp_path, name="winobias", path=str(tmp_path))


def test_winogender_tie_is_skipped_and_counted(tmp_path: Path) -> None:
    (tmp_path / "occupations-stats.tsv").write_text(
        "occupation\tbergsma_pct_female\tbls_pct_female\tbls_year\n"
        "nurse\t1\t90.0\t2015\nclerk\t1\t50\t2015\n"
    )
    sentences = "".join(
        f"{occ}.patient.1.{g}.txt\tThe {occ} saw {p}.\n"
        for occ in ("nurse", "clerk")
        for g, p in (("male", "him"), ("female", "her"), ("neutral", "them"))
    )
    (tmp_path / "all_sentences.tsv").write_text("sentid\tsentence\n" + sentences)
    ds = _load(tmp_path, name="winogender", path=str(tmp_path))
    assert [(i.item_id, i.stereotype) for i in ds.pair_items()] == [
        ("nurse.patient.1", "The nurse saw her.")
    ]
    assert ds.rows_read == 2 and sum(ds.skipped.values()) == 1
