"""BiasBios on its published files, and every number of the TPR gap against a hand
computation.

The same 19 people are written in each published format: biosbias' `BIOS.pkl` (the
records `download_bios.py` extracts, with the scrubbed `bio` that `preprocess.py` adds),
the split pickles of Ravfogel et al. 2020 (`create_dataset_biasbios.py`: train/dev/test
.pickle with g, p, text, start, hard_text, text_without_gender), the Hugging Face
LabHC/bias_in_bios Parquet export (hard_text, integer profession and gender codes) and a
JSON export of the scrubbed bios (bio, title, gender). Each must read to the same titles
and genders; the TPR gap of one set of predictions is then checked number by number.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from audit.data.tasks.biasbios import load_biasbios, read_biasbios_splits
from audit.errors import DataError
from audit.extrinsic.biasbios import tpr_gap, tpr_gap_of_bios
from audit.extrinsic.options import BiasBiosOptions
from audit.extrinsic.tasks.base import Resampling, TaskData
from audit.extrinsic.tasks.biasbios import TASK

#: (first name, title, biosbias gender, the rest of the bio, the classifier's prediction)
PEOPLE: list[tuple[str, str, str, str, str]] = [
    ("Ann", "nurse", "F", "She works nights at a clinic.", "nurse"),
    ("Bea", "nurse", "F", "She trained in Leeds.", "nurse"),
    ("Cat", "nurse", "F", "She cares for children.", "nurse"),
    ("Dot", "nurse", "F", "She teaches first aid.", "professor"),
    ("Ed", "nurse", "M", "He works in an emergency room.", "nurse"),
    ("Fred", "nurse", "M", "He assists in surgery.", "surgeon"),
    ("Gil", "surgeon", "F", "She operates on hearts.", "surgeon"),
    ("Hana", "surgeon", "F", "She leads a ward.", "nurse"),
    ("Ian", "surgeon", "M", "He repairs knees.", "surgeon"),
    ("Jon", "surgeon", "M", "He trains residents.", "surgeon"),
    ("Ken", "surgeon", "M", "He operates on spines.", "surgeon"),
    ("Liv", "professor", "F", "She teaches physics.", "professor"),
    ("Mia", "professor", "F", "She writes on history.", "professor"),
    ("Nia", "professor", "F", "She runs a lab.", "nurse"),
    ("Otto", "professor", "M", "He teaches law.", "professor"),
    ("Pat", "professor", "M", "He plays records at night.", "dj"),
    ("Quin", "professor", "M", "He studies bones.", "surgeon"),
    ("Ravi", "dj", "M", "He plays clubs in Berlin.", "dj"),
    ("Sam", "dj", "M", "He mixes house music.", "dj"),
]
TITLES = ("dj", "nurse", "professor", "surgeon")
#: Profession codes of the LabHC/bias_in_bios card (28 titles in alphabetical order:
#: nurse 13, ...) and a gender coding, which the reader must be told (`gender_codes`).
LABHC_PROFESSION = {"dj": 8, "nurse": 13, "professor": 21, "surgeon": 25}
LABHC_GENDER = {"M": 0, "F": 1}

# --- the hand computation ---------------------------------------------------------------
# nurse:     women 3 of 4 right (0.75), men 1 of 2 (0.5)  -> gap  0.25, 4 of 6 women
# surgeon:   women 1 of 2 (0.5),        men 3 of 3 (1.0)  -> gap -0.5,  2 of 5 women
# professor: women 2 of 3,              men 1 of 3        -> gap  1/3,  3 of 6 women
# dj:        no woman,                  men 2 of 2        -> no gap (left out)
TPR = {
    "nurse": (3 / 4, 1 / 2),
    "surgeon": (1 / 2, 1.0),
    "professor": (2 / 3, 1 / 3),
    "dj": (None, 1.0),
}
GAPS = {"nurse": 0.25, "surgeon": -0.5, "professor": 1 / 3}
PCT_FEMALE = {"nurse": 100 * 4 / 6, "surgeon": 100 * 2 / 5, "professor": 100 * 3 / 6, "dj": 0.0}
MEAN_ABS = (0.25 + 0.5 + 1 / 3) / 3
RMS = math.sqrt((0.25**2 + 0.5**2 + (1 / 3) ** 2) / 3)
MEAN = (0.25 - 0.5 + 1 / 3) / 3
ACCURACY = (3 + 1 + 1 + 3 + 2 + 1 + 2) / 19


def _pearson(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


# --- the published formats ---------------------------------------------------------------


def biosbias_records() -> list[dict[str, Any]]:
    """The records as biosbias writes BIOS.pkl: download_bios.py's keys (path first, from
    `dict(path=p, **b)`), start_pos just after the first sentence's period, name a
    (first, middle, last) tuple, and preprocess.py's scrubbed `bio`."""
    records = []
    for n, (first, title, gender, rest, _) in enumerate(PEOPLE):
        raw_title = title.upper() if title == "dj" else title.capitalize()
        first_sentence = f"{first} Doe is a {raw_title}."
        pronoun = "She" if gender == "F" else "He"
        records.append(
            {
                "path": "crawl-data/CC-MAIN-2018-34/segments/1/wet/part-00000.warc.wet.gz",
                "raw": f"{first_sentence} {rest}",
                "name": (first, "", "Doe"),
                "raw_title": raw_title,
                "gender": gender,
                "start_pos": len(first_sentence),
                "title": title,
                "URI": f"http://example.org/people/{n}",
                "bio": rest.replace(pronoun, "_", 1),
            }
        )
    return records


def ravfogel_records() -> list[dict[str, Any]]:
    """The records of Ravfogel et al.'s create_dataset_biasbios.py: g and p lower case,
    text = raw, start = start_pos, hard_text = raw[start + 1:]."""
    return [
        {
            "g": r["gender"].lower(),
            "p": r["raw_title"].lower(),
            "text": r["raw"],
            "start": r["start_pos"],
            "hard_text": r["raw"][r["start_pos"] + 1 :],
            "text_without_gender": r["bio"],
        }
        for r in biosbias_records()
    ]


def pickled(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(data, handle)
    return path


def predictions() -> list[str]:
    return [p[4] for p in PEOPLE]


def check_numbers(result: Any, *, title_of: dict[str, str] | None = None) -> None:
    """Every number of the TPR gap record against the hand computation above."""
    name = title_of or {t: t for t in TITLES}
    rows = {r.occupation: r for r in result.occupations}
    assert sorted(rows) == sorted(name[t] for t in TITLES)
    for title in TITLES:
        row = rows[name[title]]
        women = sum(1 for p in PEOPLE if p[1] == title and p[2] == "F")
        men = sum(1 for p in PEOPLE if p[1] == title and p[2] == "M")
        assert (row.n_female, row.n_male) == (women, men), title
        assert row.tpr_female == pytest.approx(TPR[title][0]), title
        assert row.tpr_male == pytest.approx(TPR[title][1]), title
        assert row.pct_female == pytest.approx(PCT_FEMALE[title]), title
        if title in GAPS:
            assert row.gap == pytest.approx(GAPS[title]), title
        else:
            assert row.gap is None and "0 female and 2 male" in row.note
    assert result.mean_abs_gap == pytest.approx(MEAN_ABS)
    assert result.rms_gap == pytest.approx(RMS)
    assert result.mean_gap == pytest.approx(MEAN)
    assert result.accuracy == pytest.approx(ACCURACY)
    assert (result.n_bios, result.n_occupations, result.n_defined) == (19, 4, 3)
    assert "1 occupation(s) without bios of both genders left out" in result.note
    gaps = [GAPS[t] for t in ("nurse", "professor", "surgeon")]
    shares = [PCT_FEMALE[t] for t in ("nurse", "professor", "surgeon")]
    assert result.correlation.n == 3
    assert result.correlation.pearson_r == pytest.approx(_pearson(gaps, shares))
    # ranks of the gaps (nurse 2, professor 3, surgeon 1) and shares (3, 2, 1): sum d^2 = 2
    assert result.correlation.spearman_rho == pytest.approx(1 - 6 * 2 / (3 * (9 - 1)))


# --- the tests -------------------------------------------------------------------------------


def test_every_published_format_reads_to_the_same_bios(tmp_path: Path) -> None:
    want = [(p[1], "female" if p[2] == "F" else "male") for p in PEOPLE]

    biosbias = load_biasbios(pickled(tmp_path / "biosbias" / "BIOS.pkl", biosbias_records()))
    assert [(b.title, b.gender) for b in biosbias] == want
    assert [b.text for b in biosbias] == [p[3] for p in PEOPLE], "raw[start_pos:], stripped"
    scrubbed = load_biasbios(tmp_path / "biosbias" / "BIOS.pkl", text="scrubbed")
    assert scrubbed[0].text == "_ works nights at a clinic."

    ravfogel = load_biasbios(pickled(tmp_path / "ravfogel" / "test.pickle", ravfogel_records()))
    assert [(b.title, b.gender) for b in ravfogel] == want
    assert [b.text for b in ravfogel] == [p[3] for p in PEOPLE], "hard_text, stripped"

    labhc = tmp_path / "labhc" / "test-00000-of-00001.parquet"
    labhc.parent.mkdir()
    pd.DataFrame(
        {
            "hard_text": [p[3] for p in PEOPLE],
            "profession": [LABHC_PROFESSION[p[1]] for p in PEOPLE],
            "gender": [LABHC_GENDER[p[2]] for p in PEOPLE],
        }
    ).to_parquet(labhc)
    with pytest.raises(DataError, match=r"record 0: gender 1 is a numeric code.*gender_codes"):
        load_biasbios(labhc)
    coded = load_biasbios(labhc, gender_codes={"0": "male", "1": "female"})
    assert [(b.title, b.gender) for b in coded] == [
        (str(LABHC_PROFESSION[t]), g) for t, g in want
    ], "integer titles kept as strings"

    exported = tmp_path / "export" / "bios.json"
    exported.parent.mkdir()
    exported.write_text(
        json.dumps([{k: r[k] for k in ("bio", "title", "gender")} for r in biosbias_records()])
    )
    from_json = load_biasbios(exported)
    assert [(b.title, b.gender) for b in from_json] == want
    assert from_json[1].text == "_ trained in Leeds."


def test_a_record_with_raw_but_no_start_pos_is_refused(tmp_path: Path) -> None:
    record = {k: v for k, v in biosbias_records()[0].items() if k not in ("start_pos", "bio")}
    path = tmp_path / "bios.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(
        DataError,
        match=r"bios\.jsonl:1: record 0: no text field.*'raw' is not read without 'start_pos'",
    ):
        load_biasbios(path)


def test_the_tpr_gap_of_every_format_by_hand(tmp_path: Path) -> None:
    records = biosbias_records()
    for result in (
        tpr_gap_of_bios(
            load_biasbios(pickled(tmp_path / "BIOS.pkl", records)),
            predictions(),
            seed=0,
            n_bootstrap=0,
        ),
        tpr_gap_of_bios(
            load_biasbios(pickled(tmp_path / "test.pickle", ravfogel_records())),
            predictions(),
            seed=0,
            n_bootstrap=0,
        ),
    ):
        check_numbers(result)
        assert result.value == result.mean_abs_gap and result.ci_low is None

    codes = {t: str(c) for t, c in LABHC_PROFESSION.items()}
    coded = tpr_gap(
        [codes[p[1]] for p in PEOPLE],
        [codes[p[4]] for p in PEOPLE],
        ["female" if p[2] == "F" else "male" for p in PEOPLE],
        seed=0,
        n_bootstrap=0,
        aggregate="rms",
    )
    check_numbers(coded, title_of=codes)
    assert coded.value == pytest.approx(RMS)


def test_the_task_measures_the_split_files_by_hand(tmp_path: Path) -> None:
    """From Ravfogel et al.'s train/dev/test pickles through the task's reader and its
    measure (predicted label indices, as the classifier gives them), with the bootstrap
    redrawn by hand: each (title, gender) cell's correct count is Binomial(n, k/n), women
    of every title first, titles in sorted order."""
    folder = tmp_path / "biasbios"
    records = ravfogel_records()
    pickled(folder / "train.pickle", records)
    pickled(folder / "dev.pickle", records[:3])
    pickled(folder / "test.pickle", records)
    options = BiasBiosOptions(aggregate="mean")
    splits = read_biasbios_splits(tmp_path, options, seed=0)
    assert sorted(splits.files) == ["dev", "test", "train"]
    test = list(splits.split("test"))
    labels = tuple(sorted({b.title for b in splits.split("train")}))
    assert labels == TITLES
    data = TaskData(
        dataset="biasbios", train=[], dev=[], evaluation=test, options=options, labels=labels
    )
    predicted = np.array([labels.index(p) for p in predictions()], dtype=np.int64)
    seed, n_bootstrap = 7, 400
    value = TASK.measure({"predicted": predicted}, data, Resampling(seed, n_bootstrap))
    result = value.result
    check_numbers(result)
    assert value.value == result.mean_gap == pytest.approx(MEAN)
    assert value.n == 19

    titles = sorted(TPR)
    n_f = np.array([sum(1 for p in PEOPLE if p[1] == t and p[2] == "F") for t in titles])
    n_m = np.array([sum(1 for p in PEOPLE if p[1] == t and p[2] == "M") for t in titles])
    k_f = np.array(
        [sum(1 for p in PEOPLE if p[1] == t and p[2] == "F" and p[4] == t) for t in titles]
    )
    k_m = np.array(
        [sum(1 for p in PEOPLE if p[1] == t and p[2] == "M" and p[4] == t) for t in titles]
    )
    rng = np.random.default_rng(seed)
    draws_f = rng.binomial(n_f, np.where(n_f > 0, k_f / np.maximum(n_f, 1), 0), (n_bootstrap, 4))
    draws_m = rng.binomial(n_m, k_m / n_m, (n_bootstrap, 4))
    defined = [i for i, t in enumerate(titles) if t in GAPS]
    replicate_gaps = [
        [draws_f[b, i] / n_f[i] - draws_m[b, i] / n_m[i] for i in defined]
        for b in range(n_bootstrap)
    ]
    for name, summary in (
        ("mean", lambda g: sum(g) / len(g)),
        ("mean_abs", lambda g: sum(abs(x) for x in g) / len(g)),
        ("rms", lambda g: math.sqrt(sum(x * x for x in g) / len(g))),
    ):
        low, high = np.quantile([summary(g) for g in replicate_gaps], [0.025, 0.975])
        assert getattr(result, f"{name}_ci_low") == pytest.approx(low), name
        assert getattr(result, f"{name}_ci_high") == pytest.approx(high), name
    assert (value.ci_low, value.ci_high) == (result.mean_ci_low, result.mean_ci_high)
    for row in result.occupations:
        assert row.gap_ci_low is None, "fewer than 10 bios of the smaller gender: no CI"
