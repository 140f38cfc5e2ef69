"""BiasBios and NLI-bias through the extrinsic stage on hand-made files and a tiny model:
data read and checked while planning, a classifier fine-tuned and cached, the measure,
the dev check and the curve; absent data is a clear error naming what to download."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.display import SilentDisplay
from audit.errors import AuditUserError
from audit.extrinsic.planned import plan_extrinsic
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.stage import ExtrinsicOutcome, run_extrinsic
from audit.results import NliBiasResult, TprGapResult
from tests.extrinsic.test_finetune import load_tiny, tiny_dirs
from tests.extrinsic.test_nli_bias import word_lists

__all__ = ["tiny_dirs"]

FINETUNE = {"steps": 8, "batch_size": 4, "max_length": 32, "checkpoint_every": 4}
JOBS = {"nurse": "cares for patients", "pilot": "flies planes", "chef": "cooks food"}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


def bios(n_each: int) -> list[dict[str, Any]]:
    return [
        {"text": f"{pronoun} {what}.", "title": title, "gender": gender}
        for title, what in JOBS.items()
        for pronoun, gender in (("She", "F"), ("He", "M"))
        for _ in range(n_each)
    ]


def run(tasks: list[ExtrinsicSpec], data_dir: Path, dirs: dict[str, Path], cache: Path) -> Any:
    return outcome(tasks, data_dir, dirs, cache).records


def outcome(
    tasks: list[ExtrinsicSpec], data_dir: Path, dirs: dict[str, Path], cache: Path
) -> ExtrinsicOutcome:
    planned = plan_extrinsic(
        tasks, model_types={"tiny-bert": "masked"}, variants_of={}, data_dir=data_dir, seed=1
    )
    return run_extrinsic(
        planned,
        load_model=lambda _: load_tiny(dirs, "bert"),
        cache_dir=cache,
        seed=1,
        n_bootstrap=20,
        alpha=0.05,
        display=SilentDisplay(),
        model_order=["tiny-bert"],
    )


def test_biasbios_through_the_stage(tmp_path: Path, tiny_dirs: dict[str, Path]) -> None:
    folder = tmp_path / "data" / "biasbios"
    write_jsonl(folder / "train.jsonl", bios(3))
    write_jsonl(folder / "dev.jsonl", bios(1))
    write_jsonl(folder / "test.jsonl", bios(2))
    spec = ExtrinsicSpec(task="biasbios", finetune=FINETUNE)  # type: ignore[arg-type]
    (record,) = run([spec], tmp_path / "data", tiny_dirs, tmp_path / "cache")
    assert record.task == "biasbios" and record.dataset == "biasbios"
    assert isinstance(record.detail, TprGapResult)
    assert record.detail.n_bios == 12 and record.detail.n_occupations == 3
    assert record.value == record.detail.value and record.n == 12
    assert [p.step for p in record.curve] == [4, 8]
    check = record.dev_check
    assert check is not None and check.metric == "accuracy" and check.n == 6
    assert check.floor == pytest.approx(1 / 3)
    assert record.facts["train_bios"] == 18 and not record.cached
    (again,) = run([spec], tmp_path / "data", tiny_dirs, tmp_path / "cache")
    assert again.cached and again.value == record.value and again.curve == record.curve


def test_nli_bias_through_the_stage(tmp_path: Path, tiny_dirs: dict[str, Path]) -> None:
    data = tmp_path / "data"
    word_lists(data / "nli_bias" / "word_lists")
    rows = [
        {"gold_label": label, "sentence1": f"A person {verb}.", "sentence2": hyp}
        for verb in ("sat", "ran", "ate", "slept", "sang")
        for label, hyp in (
            ("entailment", "Someone did something."),
            ("neutral", "The person was happy."),
            ("contradiction", "Nobody was there."),
        )
        for _ in range(4)
    ]
    write_jsonl(data / "nli_bias" / "multinli_1.0_train.jsonl", rows)
    spec = ExtrinsicSpec(task="nli_bias", finetune=FINETUNE)  # type: ignore[arg-type]
    (record,) = run([spec], data, tiny_dirs, tmp_path / "cache")
    assert isinstance(record.detail, NliBiasResult)
    assert record.detail.labels == ["entailment", "neutral", "contradiction"]
    assert record.value == record.detail.value and 0 <= record.value <= 1
    assert record.n == record.detail.n_pairs > 0
    assert record.facts["dev_pairs"] == 1 and record.facts["train_pairs"] == 59


@pytest.mark.parametrize(
    ("task", "hint"),
    [("biasbios", r"BiasBios: the folder .*biasbios does not exist"), ("nli_bias", "word_lists")],
)
def test_absent_data_says_what_to_download(tmp_path: Path, task: str, hint: str) -> None:
    with pytest.raises(AuditUserError, match=rf"extrinsic\[0\] \({task}\): .*{hint}"):
        plan_extrinsic(
            [ExtrinsicSpec(task=task)],
            model_types={"m": "masked"},
            variants_of={},
            data_dir=tmp_path,
            seed=0,
        )
