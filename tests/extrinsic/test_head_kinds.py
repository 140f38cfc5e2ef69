"""The head kinds the extrinsic stage asks instead of branching: each kind's cache key is
the store's key, its dev score, and the dev check against its floor."""

from __future__ import annotations

from typing import Any, get_args

from audit.extrinsic.finetune.examples import LabelledText
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.finetune.store import classifier_key, regression_key
from audit.extrinsic.head_kinds import HEAD_KINDS, MIN_DEV_PEARSON, dev_check
from audit.extrinsic.sts_data import StsRow
from audit.extrinsic.tasks.base import HeadKind, TaskData
from audit.results import DevEvaluation, FineTuneSummary


def summary(kind: str, *evaluations: DevEvaluation, steps: int = 8) -> FineTuneSummary:
    return FineTuneSummary(
        kind=kind,  # type: ignore[arg-type]
        model_type="masked",
        pooling="cls",
        steps=steps,
        examples=4,
        tokens=10,
        seconds=1.0,
        callback_seconds=0.0,
        device="cpu",
        checkpoint_steps=[steps],
        evaluations=list(evaluations),
        trainable_parameters=1,
        settings={},
    )


def sts_row(score: float) -> StsRow:
    return StsRow(score, "a", "b", "g", "f", "2012", "1", 1)


def labelled(*labels: str) -> list[LabelledText]:
    return [LabelledText(text=f"t{i}", label=label) for i, label in enumerate(labels)]


def test_every_head_kind_has_its_rules() -> None:
    assert set(HEAD_KINDS) == set(get_args(HeadKind))
    assert all(rules.kind == kind for kind, rules in HEAD_KINDS.items())


def test_the_keys_are_the_stores_keys() -> None:
    common: dict[str, Any] = {
        "model_fingerprint": "f" * 64,
        "model_type": "masked",
        "task": "t",
        "task_options": {"options": {}},
        "settings": FineTuneSettings(steps=4).with_seed(3),
    }
    rows = [sts_row(1.0), sts_row(4.0)]
    data = TaskData(dataset="sts_b", train=rows, dev=rows[:1], evaluation=None)
    assert HEAD_KINDS["regression"].cache_key(data, **common) == regression_key(
        train_rows=rows, dev_rows=rows[:1], **common
    )
    texts = labelled("a", "b")
    data = TaskData(dataset="x", train=texts, dev=texts, evaluation=None, labels=("b", "a"))
    key = HEAD_KINDS["classification"].cache_key(data, **common)
    assert key == classifier_key(train_rows=texts, dev_rows=texts, labels=("b", "a"), **common)
    assert key != classifier_key(train_rows=texts, dev_rows=texts, labels=("a", "b"), **common)


def test_regression_dev_check() -> None:
    head = HEAD_KINDS["regression"]
    data = TaskData(dataset="sts_b", train=[], dev=[sts_row(1.0)], evaluation=None)
    check = dev_check(head, summary("regression", DevEvaluation(step=8, n=5, pearson=0.5)), data)
    assert check is not None and check.metric == "pearson"
    assert (check.value, check.floor, check.passed, check.n) == (0.5, MIN_DEV_PEARSON, True, 5)
    low = dev_check(head, summary("regression", DevEvaluation(step=8, n=5, pearson=0.49)), data)
    assert low is not None and not low.passed
    assert (
        dev_check(head, summary("regression", DevEvaluation(step=4, n=5, pearson=0.9)), data)
        is None
    ), "no final dev score"
    assert head.dev_value(DevEvaluation(step=4, n=5, pearson=0.7, accuracy=0.1)) == 0.7


def test_classification_dev_check_beats_the_majority_label() -> None:
    head = HEAD_KINDS["classification"]
    data = TaskData(dataset="x", train=[], dev=labelled("a", "a", "b"), evaluation=None)
    at_floor = DevEvaluation(step=8, n=3, accuracy=2 / 3)
    check = dev_check(head, summary("classification", at_floor), data)
    assert check is not None and check.metric == "accuracy"
    assert check.floor == 2 / 3 and not check.passed, "guessing the majority is no learning"
    better = dev_check(
        head, summary("classification", DevEvaluation(step=8, n=3, accuracy=1.0)), data
    )
    assert better is not None and better.passed
    assert head.dev_value(DevEvaluation(step=4, n=5, pearson=0.7, accuracy=0.1)) == 0.1
