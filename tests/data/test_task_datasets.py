"""The datasets of the extrinsic tasks: their own registry (shape `splits`, never a probe
set a spec scores), their entries' checks, and each reader through `read_task_dataset`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit.cards import PluginCard
from audit.data.catalog import DATASETS, TASK_DATASETS, read_task_dataset
from audit.data.task_entry import (
    TASK_DATASET_SHAPE,
    NoSpecOptions,
    TaskDatasetEntry,
    TaskSplits,
)
from audit.data.tasks import nli, sts_b
from audit.data.tasks.biasbios import BiasBiosReading
from audit.data.tasks.nli import NliTrainingReading
from audit.data.tasks.nli_bias import NliPairsReading
from audit.errors import DataError
from audit.extrinsic.options import BiasBiosOptions, NliBiasOptions
from tests.extrinsic.test_nli_bias import word_lists


def test_registered_task_datasets() -> None:
    assert TASK_DATASETS.names() == ["biasbios", "nli", "nli_bias", "sts_b"]
    for entry in TASK_DATASETS.entries():
        assert entry.card.kind == "dataset" and entry.card.shape == TASK_DATASET_SHAPE
        assert entry.splits and entry.files and entry.source and entry.licence
        assert callable(TASK_DATASETS.load(entry.name))
    assert not set(TASK_DATASETS.names()) & set(DATASETS.names()), "never a probe set"
    assert [e.name for e in TASK_DATASETS.entries() if e.shipped] == ["sts_b"]


def test_the_catalog_imports_no_numerical_library() -> None:
    code = (
        "import sys, audit.data.catalog; "
        "print([m for m in ('numpy', 'pandas', 'torch') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _entry(**changes: object) -> TaskDatasetEntry:
    card = PluginCard(kind="dataset", name="toy", title="Toy", summary="s", shape="splits")
    fields: dict[str, object] = {
        "card": card,
        "options": NoSpecOptions,
        "target": "x:y",
        "folder": "toy",
        "files": ("toy.tsv",),
        "splits": ("train",),
        "rows": "a row",
        "shipped": False,
        "size": "1",
        "source": "here",
        "licence": "none",
    }
    fields.update(changes)
    return TaskDatasetEntry(**fields)  # type: ignore[arg-type]


def test_an_entry_is_checked() -> None:
    assert _entry().name == "toy"
    pairs = PluginCard(kind="dataset", name="toy", title="Toy", summary="s", shape="pairs")
    with pytest.raises(ValueError, match="shape 'pairs'; expected 'splits'"):
        _entry(card=pairs)
    with pytest.raises(ValueError, match="names no split"):
        _entry(splits=())


def test_a_missing_optional_split_is_empty() -> None:
    splits = TaskSplits("toy", {"train": [1, 2]})
    assert list(splits.split("train")) == [1, 2] and list(splits.split("dev")) == []


def test_sts_b_splits(shared_data: Path) -> None:
    read = read_task_dataset("sts_b", shared_data, None, 0)
    assert {k: len(v) for k, v in read.splits.items()} == {
        "train": 5749,
        "dev": 1500,
        "test": 1379,
    }
    assert read.files["test"] == sts_b.sts_b_path(shared_data, "test")
    assert read.split("test")[0].sentence1 == "A girl is styling her hair."


def test_nli_training_holds_out_a_seeded_dev_set(tmp_path: Path) -> None:
    folder = tmp_path / "nli_bias"
    folder.mkdir()
    rows = [
        {"sentence1": f"P{i}.", "sentence2": f"H{i}.", "gold_label": "neutral"} for i in range(150)
    ]
    (folder / "snli_1.0_train.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    options = NliBiasOptions()
    first = read_task_dataset("nli", tmp_path, options, 7)
    again = read_task_dataset("nli", tmp_path, options, 7)
    other = read_task_dataset("nli", tmp_path, options, 8)
    train, dev = first.split("train"), first.split("dev")
    assert len(dev) == int(150 * nli.DEV_SHARE) == 3
    assert sorted(e.premise for e in [*train, *dev]) == sorted(r["sentence1"] for r in rows)
    held_out = {e.premise for e in dev}
    kept = [r["sentence1"] for r in rows if r["sentence1"] not in held_out]
    assert [e.premise for e in train] == kept, "train keeps file order"
    assert again.split("dev") == dev and other.split("dev") != dev
    assert first.files == {"train": folder / "snli_1.0_train.jsonl"}


def test_nli_bias_pairs_from_word_lists_or_a_file(tmp_path: Path) -> None:
    word_lists(tmp_path / "nli_bias" / "word_lists")
    generated = read_task_dataset("nli_bias", tmp_path, NliBiasOptions(max_premises=3), 0)
    pairs = generated.split("test")
    assert len(pairs) == 3 * 2, "each sampled premise with both gender words"
    own = tmp_path / "nli_bias" / "own.csv"
    own.write_text("premise,hypothesis\nThe nurse ate.,The man ate.\n")
    from_file = read_task_dataset("nli_bias", tmp_path, NliBiasOptions(pairs="own.csv"), 0)
    assert [(p.premise, p.hypothesis) for p in from_file.split("test")] == [
        ("The nurse ate.", "The man ate.")
    ]
    assert from_file.files == {"test": own}


def test_biasbios_splits(tmp_path: Path) -> None:
    folder = tmp_path / "biasbios"
    folder.mkdir()
    for split in ("train", "test"):
        (folder / f"{split}.jsonl").write_text(
            json.dumps({"text": f"{split} bio", "title": "nurse", "gender": "F"}) + "\n"
        )
    read = read_task_dataset("biasbios", tmp_path, BiasBiosOptions(), 0)
    assert [b.text for b in read.split("train")] == ["train bio"]
    assert list(read.split("dev")) == [] and [b.text for b in read.split("test")] == ["test bio"]
    with pytest.raises(DataError, match="BiasBios"):
        read_task_dataset("biasbios", tmp_path / "empty", SimpleNamespace(file=None), 0)


@pytest.mark.parametrize(
    ("reading", "options"),
    [
        (BiasBiosReading, BiasBiosOptions()),
        (NliTrainingReading, NliBiasOptions()),
        (NliPairsReading, NliBiasOptions()),
    ],
)
def test_the_task_options_carry_what_each_reader_reads(reading: type, options: object) -> None:
    members = [name for name in vars(reading) if not name.startswith("_")]
    assert members, "the protocol lists what the reader reads"
    assert [m for m in members if not hasattr(options, m)] == []
