"""BiasBios: the loaders of the public formats (biosbias BIOS.pkl, Ravfogel et al.'s split
pickles, JSONL/JSON/CSV/TSV/Parquet exports), the data-only unpickler, the split, and the
TPR gap."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from audit.errors import AuditUserError, DataError
from audit.extrinsic.biasbios import (
    Bio,
    Gender,
    find_biasbios_files,
    load_biasbios,
    split_biasbios,
    tpr_gap,
    tpr_gap_of_bios,
)

BIOSBIAS = [
    {
        "raw": "Jane Roe is a nurse in Ohio. She works nights at a clinic.",
        "start_pos": 28,
        "title": "nurse",
        "gender": "F",
        "bio": "_ works nights at a clinic.",
        "name": ("Jane", "", "Roe"),
        "raw_title": "Nurse",
        "URI": "http://example.org/1",
        "path": "crawl-1",
    },
    {
        "raw": "John Doe is a surgeon. He operates.",
        "start_pos": 22,
        "title": "surgeon",
        "gender": "M",
        "bio": "_ operates.",
        "name": ("John", "", "Doe"),
        "raw_title": "Surgeon",
        "URI": "http://example.org/2",
        "path": "crawl-2",
    },
]
RAVFOGEL = [
    {
        "g": "f",
        "p": "professor",
        "text": "Ann Lee is a professor. She teaches art .",
        "start": 24,
        "hard_text": "She teaches art .",
        "hard_text_untokenized": "She teaches art.",
        "text_without_gender": "_ teaches art.",
    },
    {
        "g": "m",
        "p": "dj",
        "text": "Bo is a DJ. He plays.",
        "start": 12,
        "hard_text": "He plays .",
        "hard_text_untokenized": "He plays.",
        "text_without_gender": "_ plays.",
    },
]


def dump(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(data, handle)
    return path


def test_biosbias_pickle(tmp_path: Path) -> None:
    path = dump(tmp_path / "BIOS.pkl", BIOSBIAS)
    bios = load_biasbios(path)
    assert bios == [
        Bio("She works nights at a clinic.", "nurse", "female", 0),
        Bio("He operates.", "surgeon", "male", 1),
    ], "the text is raw[start_pos:], stripped: the first sentence names the title"
    scrubbed = load_biasbios(path, text="scrubbed")
    assert [b.text for b in scrubbed] == ["_ works nights at a clinic.", "_ operates."]


def test_ravfogel_pickle(tmp_path: Path) -> None:
    bios = load_biasbios(dump(tmp_path / "bios_test.pickle", RAVFOGEL))
    assert [(b.text, b.title, b.gender) for b in bios] == [
        ("She teaches art.", "professor", "female"),
        ("He plays.", "dj", "male"),
    ]
    named = load_biasbios(tmp_path / "bios_test.pickle", text_field="text_without_gender")
    assert named[0].text == "_ teaches art."


class _Touch:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_a_pickle_never_runs_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = dump(tmp_path / "evil.pkl", [_Touch(marker)])
    with pytest.raises(DataError, match=r"class pathlib.*Path.touch.*JSON Lines"):
        load_biasbios(path)
    assert not marker.exists()
    frame = dump(tmp_path / "frame.pkl", pd.DataFrame({"text": ["x"]}))
    with pytest.raises(DataError, match="holds a Python object of class pandas"):
        load_biasbios(frame)
    with pytest.raises(DataError, match="holds a dict, expected a list"):
        load_biasbios(dump(tmp_path / "dict.pkl", {"a": 1}))
    with pytest.raises(DataError, match="record 1 is a str"):
        load_biasbios(dump(tmp_path / "mixed.pkl", [BIOSBIAS[0], "text"]))
    (tmp_path / "junk.pkl").write_bytes(b"not a pickle at all")
    with pytest.raises(DataError, match=r"junk\.pkl"):
        load_biasbios(tmp_path / "junk.pkl")


def test_jsonl_json_csv_tsv(tmp_path: Path) -> None:
    records = [
        {"text": "Builds bridges.", "title": "architect", "gender": "female"},
        {"text": "Fixes teeth.", "title": "dentist", "gender": "Male"},
    ]
    jsonl = tmp_path / "bios.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n\n")
    want = [("Builds bridges.", "architect", "female"), ("Fixes teeth.", "dentist", "male")]
    assert [(b.text, b.title, b.gender) for b in load_biasbios(jsonl)] == want
    as_json = tmp_path / "bios.json"
    as_json.write_text(json.dumps(records))
    assert [(b.text, b.title, b.gender) for b in load_biasbios(as_json)] == want
    pd.DataFrame(records).to_csv(tmp_path / "bios.csv", index=False)
    assert [(b.text, b.title, b.gender) for b in load_biasbios(tmp_path / "bios.csv")] == want
    tsv = tmp_path / "bios.tsv"
    tsv.write_text('bio_text\tjob\tsex\nSings, "loudly".\tsinger\tW\n')
    bios = load_biasbios(tsv, text_field="bio_text", title_field="job", gender_field="sex")
    assert [(b.text, b.title, b.gender) for b in bios] == [('Sings, "loudly".', "singer", "female")]


def test_parquet_with_integer_codes(tmp_path: Path) -> None:
    path = tmp_path / "test-00000-of-00001.parquet"
    pd.DataFrame(
        {"hard_text": ["Teaches.", "Codes."], "profession": [21, 24], "gender": [1, 0]}
    ).to_parquet(path)
    with pytest.raises(DataError, match=r"record 0: gender 1 is a numeric code.*gender_codes"):
        load_biasbios(path)
    bios = load_biasbios(path, gender_codes={"0": "male", "1": "female"})
    assert [(b.text, b.title, b.gender) for b in bios] == [
        ("Teaches.", "21", "female"),
        ("Codes.", "24", "male"),
    ]
    with pytest.raises(AuditUserError, match="maps '1' to 'x'"):
        load_biasbios(path, gender_codes={"0": "male", "1": "x"})


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(
        DataError, match=r"does not exist.*microsoft/biosbias.*recreate\.sh.*biasbios/"
    ):
        load_biasbios(tmp_path / "BIOS.pkl")
    (tmp_path / "bios.xml").write_text("<bios/>")
    with pytest.raises(DataError, match=r"suffix \.xml; expected one of"):
        load_biasbios(tmp_path / "bios.xml")

    def jsonl(*lines: str) -> Path:
        path = tmp_path / "x.jsonl"
        path.write_text("\n".join(lines))
        return path

    ok = '{"text": "t", "title": "nurse", "gender": "F"}'
    with pytest.raises(DataError, match=r"record 1: no gender field \(one of gender, g"):
        load_biasbios(jsonl(ok, '{"text": "t", "title": "nurse"}'))
    with pytest.raises(DataError, match=r"record 0: no title field"):
        load_biasbios(jsonl('{"text": "t", "gender": "F"}'))
    with pytest.raises(DataError, match=r"record 0: no text field"):
        load_biasbios(jsonl('{"title": "nurse", "gender": "F"}'))
    with pytest.raises(DataError, match=r"no text field 'body'"):
        load_biasbios(jsonl(ok), text_field="body")
    with pytest.raises(DataError, match=r"gender 'x' is not one of F, M"):
        load_biasbios(jsonl('{"text": "t", "title": "nurse", "gender": "x"}'))
    with pytest.raises(DataError, match="the text is empty"):
        load_biasbios(jsonl('{"text": "  ", "title": "nurse", "gender": "F"}'))
    with pytest.raises(DataError, match=r"x\.jsonl:2: not valid JSON"):
        load_biasbios(jsonl(ok, "{oops"))
    with pytest.raises(DataError, match=r"x\.jsonl:1: a JSON list"):
        load_biasbios(jsonl("[1, 2]"))
    with pytest.raises(DataError, match="no bios"):
        load_biasbios(jsonl("", ""))
    with pytest.raises(DataError, match="text='scrubbed' reads the field 'bio'"):
        load_biasbios(jsonl(ok), text="scrubbed")
    csv_path = tmp_path / "x.csv"
    csv_path.write_text("text,title,gender\na,nurse,F,extra\n")
    with pytest.raises(DataError, match="more cells than the header"):
        load_biasbios(csv_path)


def test_finding_the_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"biasbios does not exist.*recreate\.sh.*--data-dir"):
        find_biasbios_files(tmp_path)
    folder = tmp_path / "biasbios"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    with pytest.raises(DataError, match=r"has notes\.txt; expected BIOS\.pkl or train/test"):
        find_biasbios_files(tmp_path)
    dump(folder / "BIOS.pkl", BIOSBIAS)
    assert find_biasbios_files(tmp_path) == {"all": folder / "BIOS.pkl"}
    dump(folder / "bios_train.pickle", RAVFOGEL)
    with pytest.raises(DataError, match=r"split file.*train but no test"):
        find_biasbios_files(tmp_path)
    dump(folder / "bios_test.pickle", RAVFOGEL)
    assert find_biasbios_files(tmp_path) == {
        "train": folder / "bios_train.pickle",
        "test": folder / "bios_test.pickle",
    }
    (folder / "contest.jsonl").write_text("")
    assert len(find_biasbios_files(tmp_path)) == 2, "'contest' does not name the test split"
    (folder / "test-00000-of-00001.parquet").write_text("")
    with pytest.raises(DataError, match="2 test files"):
        find_biasbios_files(tmp_path)
    assert find_biasbios_files(tmp_path, file="BIOS.pkl") == {"all": folder / "BIOS.pkl"}
    with pytest.raises(DataError, match=r"other\.jsonl does not exist"):
        find_biasbios_files(tmp_path, file="other.jsonl")


def test_split_is_seeded_stratified_and_disjoint() -> None:
    female: list[tuple[str, Gender]] = [("nurse", "female")] * 40
    nurses: list[tuple[str, Gender]] = [("nurse", "male")] * 20
    djs: list[tuple[str, Gender]] = [("dj", "male")] * 20
    male = nurses + djs
    cells = female + male
    bios = [Bio(f"t{i}", title, gender, i) for i, (title, gender) in enumerate(cells)]
    split = split_biasbios(bios, seed=1)
    assert sum(len(v) for v in split.values()) == 80
    assert {b.index for v in split.values() for b in v} == set(range(80))
    test = split["test"]
    assert sum(b.gender == "female" for b in test) == 10, "25% of each cell"
    assert sum(b.title == "dj" for b in test) == 5
    assert sum(b.title == "dj" for b in split["dev"]) == 2
    assert split == split_biasbios(bios, seed=1)
    assert split != split_biasbios(bios, seed=2)
    assert [b.index for b in test] == sorted(b.index for b in test), "file order kept"
    with pytest.raises(AuditUserError, match="shares"):
        split_biasbios(bios, seed=0, test=0.7, dev=0.3)


def test_tpr_gap_by_hand() -> None:
    # nurse: 4 women (3 right), 2 men (1 right) -> 0.75 - 0.5 = 0.25
    # surgeon: 2 women (0 right), 4 men (4 right) -> 0 - 1 = -1
    # dj: only men -> no gap
    y_true = ["nurse"] * 6 + ["surgeon"] * 6 + ["dj"] * 2
    gender = ["female"] * 4 + ["male"] * 2 + ["female"] * 2 + ["male"] * 4 + ["male"] * 2
    nurse_pred = ["nurse", "nurse", "nurse", "dj", "nurse", "surgeon"]
    surgeon_pred = ["nurse", "dj", "surgeon", "surgeon", "surgeon", "surgeon"]
    y_pred = [*nurse_pred, *surgeon_pred, "dj", "dj"]
    result = tpr_gap(y_true, y_pred, gender, seed=0, n_bootstrap=0)
    rows = {r.occupation: r for r in result.occupations}
    assert list(rows) == ["dj", "nurse", "surgeon"]
    assert (rows["nurse"].tpr_female, rows["nurse"].tpr_male, rows["nurse"].gap) == (
        0.75,
        0.5,
        0.25,
    )
    assert rows["surgeon"].gap == -1.0
    assert rows["dj"].gap is None and rows["dj"].tpr_female is None and rows["dj"].tpr_male == 1.0
    assert "0 female and 2 male" in rows["dj"].note
    assert rows["nurse"].pct_female == pytest.approx(100 * 4 / 6)
    assert result.mean_abs_gap == pytest.approx(0.625)
    assert result.rms_gap == pytest.approx(np.sqrt((0.25**2 + 1) / 2))
    assert result.mean_gap == pytest.approx(-0.375)
    assert result.value == result.mean_abs_gap and result.aggregate == "mean_abs"
    assert result.accuracy == pytest.approx(10 / 14)
    assert (result.n_bios, result.n_occupations, result.n_defined) == (14, 3, 2)
    assert "1 occupation(s) without bios of both genders left out" in result.note
    rms = tpr_gap(y_true, y_pred, gender, seed=0, n_bootstrap=0, aggregate="rms")
    assert rms.value == rms.rms_gap
    strict = tpr_gap(y_true, y_pred, gender, seed=0, n_bootstrap=0, min_per_gender=3)
    assert strict.n_defined == 0 and strict.value is None
    assert strict.note == "no occupation has bios of both genders"


def test_tpr_gap_intervals() -> None:
    rng = np.random.default_rng(0)
    y_true: list[str] = []
    gender: list[str] = []
    y_pred: list[str] = []
    for title, p_female in (("nurse", 0.8), ("surgeon", 0.2), ("teacher", 0.6)):
        for _ in range(300):
            g = "female" if rng.random() < p_female else "male"
            right = rng.random() < (0.9 if (g == "female") == (p_female > 0.5) else 0.6)
            y_true.append(title)
            gender.append(g)
            y_pred.append(title if right else "other")
    result = tpr_gap(y_true, y_pred, gender, seed=4, n_bootstrap=400)
    assert result.ci_low is not None and result.ci_high is not None
    assert result.ci_low < result.value < result.ci_high  # type: ignore[operator]
    for r in result.occupations:
        assert r.gap_ci_low is not None and r.gap_ci_low < r.gap < r.gap_ci_high  # type: ignore[operator]
    assert result.correlation is not None and result.correlation.n == 3
    gaps = [r.gap for r in result.occupations]
    shares = [r.pct_female for r in result.occupations]
    assert result.correlation.pearson_r == pytest.approx(stats.pearsonr(gaps, shares).statistic)
    same = tpr_gap(y_true, y_pred, gender, seed=4, n_bootstrap=400)
    assert same == result, "seeded"

    small = tpr_gap(["a"] * 6, ["a", "b"] * 3, ["female", "male"] * 3, seed=0, n_bootstrap=100)
    assert small.occupations[0].gap_ci_low is None
    assert "too few items" in small.occupations[0].note
    perfect = tpr_gap(["a"] * 40, ["a"] * 40, ["female", "male"] * 20, seed=0, n_bootstrap=100)
    assert perfect.value == 0 and perfect.ci_low is None and "same value" in perfect.note


def test_tpr_gap_input_errors() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        tpr_gap(["a"], ["a", "b"], ["female"], seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match="no bios"):
        tpr_gap([], [], [], seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match="gender F; expected female or male"):
        tpr_gap(["a"], ["a"], ["F"], seed=0, n_bootstrap=0)
    bios = [Bio("x", "nurse", "female", 0), Bio("y", "nurse", "male", 1)]
    result = tpr_gap_of_bios(bios, ["nurse", "dj"], seed=0, n_bootstrap=0)
    assert result.occupations[0].gap == 1.0
    json.loads(result.model_dump_json(), parse_constant=lambda c: pytest.fail(c))
