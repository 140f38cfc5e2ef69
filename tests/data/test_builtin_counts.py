"""Built-in datasets on the real files: counts checked against independent reads."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from audit.data.builtin.crows_pairs import BIAS_TYPES as CROWS_PAIRS_BIAS_TYPES
from audit.data.builtin.stereoset import BIAS_TYPES as STEREOSET_BIAS_TYPES
from audit.data.builtin.toxigen import GROUPS as TOXIGEN_GROUPS
from audit.data.catalog import known_bias_types, known_groups
from audit.data.items import LoadedDataset
from audit.data.loader import load_dataset
from audit.spec.dataset_request import dataset_request
from audit.spec.models import DatasetSpec

PUBLISHED_CROWS_COUNTS = {
    "race-color": 516,
    "socioeconomic": 172,
    "gender": 262,
    "disability": 60,
    "nationality": 159,
    "sexual-orientation": 84,
    "physical-appearance": 63,
    "religion": 105,
    "age": 87,
}


def _load(shared_data: Path, tmp_path: Path, name: str, **fields: object) -> LoadedDataset:
    spec = DatasetSpec.model_validate({"name": name, **fields})
    return load_dataset(dataset_request(spec), data_dir=shared_data, cache_dir=tmp_path / "cache")


def test_crows_pairs_counts_and_semantics(shared_data: Path, tmp_path: Path) -> None:
    path = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    ds = _load(shared_data, tmp_path, "crows_pairs")
    pairs = ds.pair_items()
    assert len(pairs) == ds.rows_read == 1508
    assert ds.skipped == {} and ds.filtered == {} and ds.verified
    counts = Counter(item.bias_type for item in pairs)
    assert counts == Counter(row["bias_type"] for row in rows)
    assert counts == PUBLISHED_CROWS_COUNTS
    assert set(counts) == set(CROWS_PAIRS_BIAS_TYPES) == set(known_bias_types("crows_pairs"))
    # S_st = sent_more and S_at = sent_less in both directions; direction kept.
    for item, row in zip(pairs, rows, strict=True):
        assert item.item_id == row[""]
        assert (item.stereotype, item.anti_stereotype) == (row["sent_more"], row["sent_less"])
        assert item.direction == row["stereo_antistereo"]
    assert Counter(item.direction for item in pairs) == {"stereo": 1290, "antistereo": 218}


def test_crows_pairs_row_spanning_two_lines_is_read_whole(
    shared_data: Path, tmp_path: Path
) -> None:
    path = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = csv.DictReader(handle)
        multiline = [r for r in rows if "\n" in r["sent_more"] + r["sent_less"]]
    pairs = {p.item_id: p for p in _load(shared_data, tmp_path, "crows_pairs").pair_items()}
    assert multiline, "the published file has a quoted newline; the test relies on it"
    for row in multiline:
        item = pairs[row[""]]
        assert (item.stereotype, item.anti_stereotype) == (row["sent_more"], row["sent_less"])


def test_stereoset_parts(shared_data: Path, tmp_path: Path) -> None:
    lines = (shared_data / "stereoset" / "stereoset_dev.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    intra = [r for r in rows if r["type"] == "intrasentence"]
    ds = _load(shared_data, tmp_path, "stereoset")
    items = ds.pair_items()
    assert len(items) == len(intra) == 2106
    assert ds.rows_read == 4229
    assert ds.skipped == {"intersentence item (part 'intrasentence' chosen)": 2123}
    assert [i.item_id for i in items[:3]] == ["0", "1", "2"]
    assert (items[0].stereotype, items[0].anti_stereotype, items[0].unrelated) == (
        intra[0]["stereotype"],
        intra[0]["anti-stereotype"],
        intra[0]["unrelated"],
    )
    assert Counter(i.bias_type for i in items) == Counter(r["bias_type"] for r in intra)
    assert set(Counter(i.bias_type for i in items)) == set(STEREOSET_BIAS_TYPES)

    inter = _load(shared_data, tmp_path, "stereoset", options={"part": "intersentence"})
    inter_items = inter.pair_items()
    assert len(inter_items) == 2123
    first = next(r for r in rows if r["type"] == "intersentence")
    assert inter_items[0].stereotype == f"{first['context']} {first['stereotype']}"
    assert inter_items[0].context == first["context"]


def test_toxigen_labels_and_groups(shared_data: Path, tmp_path: Path) -> None:
    raw = json.loads((shared_data / "toxigen" / "toxigen_annotated.json").read_text())
    ds = _load(shared_data, tmp_path, "toxigen")
    items = ds.labelled_items()
    assert len(items) == 6514
    assert Counter(i.label for i in items) == {"harmful": 2767, "benign": 3747}
    per_group = Counter(g for i in items for g in i.groups)
    assert per_group == Counter(g for r in raw for g in r["target_groups"])
    assert len(per_group) == 13 and set(per_group) == set(TOXIGEN_GROUPS)
    assert set(known_groups("toxigen")) == set(TOXIGEN_GROUPS)
    assert sum(len(i.groups) > 1 for i in items) == sum(len(r["target_groups"]) > 1 for r in raw)
    for item, row in zip(items, raw, strict=True):
        assert item.item_id == str(row["id"])
        assert item.toxicity == row["toxicity_score"]
        assert item.text == row["text"]  # kept exactly, leading spaces included


@pytest.mark.parametrize("wino_type", [1, 2])
@pytest.mark.parametrize("split", ["dev", "test"])
def test_winobias_pairs(shared_data: Path, tmp_path: Path, wino_type: int, split: str) -> None:
    ds = _load(shared_data, tmp_path, "winobias", options={"type": wino_type, "split": split})
    items = ds.pair_items()
    assert len(items) == 396
    assert all(i.bias_type == "gender" for i in items)
    assert all("[" not in i.stereotype + i.anti_stereotype for i in items)
    folder = shared_data / "winobias"
    pro = (folder / f"pro_stereotyped_type{wino_type}.txt.{split}").read_text().splitlines()
    number, _, sentence = pro[0].partition(" ")
    assert items[0].item_id == number
    assert items[0].stereotype == " ".join(sentence.replace("[", "").replace("]", "").split())


def test_winobias_default_is_type1_dev(shared_data: Path, tmp_path: Path) -> None:
    ds = _load(shared_data, tmp_path, "winobias")
    assert Path(ds.source).name == "pro_stereotyped_type1.txt.dev"
    assert [Path(f).name for f in ds.files] == [
        "pro_stereotyped_type1.txt.dev",
        "anti_stereotyped_type1.txt.dev",
    ]


def test_winogender_pairs_follow_bls_majority(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "winogender"
    with (folder / "all_sentences.tsv").open(newline="") as handle:
        sentences = {r["sentid"]: r["sentence"] for r in csv.DictReader(handle, delimiter="\t")}
    with (folder / "occupations-stats.tsv").open(newline="") as handle:
        stats = csv.DictReader(handle, delimiter="\t")
        female_share = {r["occupation"]: float(r["bls_pct_female"]) for r in stats}
    assert len(sentences) == 720
    ds = _load(shared_data, tmp_path, "winogender")
    items = ds.pair_items()
    assert len(items) == 240 and ds.rows_read == 240
    assert ds.items[0].item_id == "technician.customer.1"
    for item in items:
        majority = "female" if female_share[item.item_id.split(".")[0]] > 50 else "male"
        minority = "male" if majority == "female" else "female"
        assert item.stereotype == sentences[f"{item.item_id}.{majority}.txt"]
        assert item.anti_stereotype == sentences[f"{item.item_id}.{minority}.txt"]
    neutral = {s for k, s in sentences.items() if k.endswith(".neutral.txt")}
    assert not neutral & {s for i in items for s in (i.stereotype, i.anti_stereotype)}


def test_filters_on_real_data_are_counted(shared_data: Path, tmp_path: Path) -> None:
    ds = _load(shared_data, tmp_path, "crows_pairs", bias_types=["gender", "age"], limit=100)
    assert ds.filtered == {"bias_types": 1508 - 262 - 87, "limit": 262 + 87 - 100}
    assert len(ds.items) == 100
    assert ds.rows_read == ds.rows_kept + sum(ds.skipped.values()) + sum(ds.filtered.values())
    tox = _load(shared_data, tmp_path, "toxigen", groups=["women"])
    assert all(i.groups == ("women",) for i in tox.labelled_items())
    assert len(tox.items) == 641 and tox.filtered == {"groups": 6514 - 641}


def test_sample_on_real_data_is_seeded(shared_data: Path, tmp_path: Path) -> None:
    ds = _load(shared_data, tmp_path, "crows_pairs", sample=500)
    assert ds.rows_kept == 500 and ds.filtered == {"sample": 1008}
    again = _load(shared_data, tmp_path, "crows_pairs", sample=500)
    assert [i.item_id for i in again.items] == [i.item_id for i in ds.items]
    ids = [int(i.item_id) for i in ds.items]
    assert ids == sorted(ids) and ids != list(range(500))


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("crows_pairs", {}),
        ("stereoset", {}),
        ("stereoset", {"part": "intersentence"}),
        ("toxigen", {}),
        ("winobias", {"type": 2, "split": "test"}),
        ("winogender", {}),
    ],
)
def test_every_row_is_accounted_for(
    shared_data: Path, tmp_path: Path, name: str, options: dict[str, object]
) -> None:
    ds = _load(shared_data, tmp_path, name, options=options, limit=50)
    assert ds.rows_kept == 50 and ds.verified
    assert ds.rows_read == ds.rows_kept + sum(ds.skipped.values()) + sum(ds.filtered.values())
