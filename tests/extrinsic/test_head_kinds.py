"""The head kinds the extrinsic stage asks instead of branching: an open registry (the
built-ins registered through it as any package's kind is, a bad entry refused), the head
a task is fine-tuned with (its own, else its kind's), each kind's dev score, the
checkpoint a task is measured at, and the dev check against its floor."""

from __future__ import annotations

import pytest

from audit.errors import AuditUserError, UnknownNameError
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.finetune.examples import LabelledText
from audit.extrinsic.head_kinds import (
    HEAD_KINDS,
    HeadKindEntry,
    HeadKindRegistry,
    choose_checkpoint,
    chosen_evaluation,
    dev_check,
    task_head,
)
from audit.extrinsic.kinds.classification import classification
from audit.extrinsic.kinds.regression import MIN_DEV_PEARSON, REGRESSION
from audit.extrinsic.sts_data import StsRow
from audit.extrinsic.tasks.base import TaskData
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


def test_every_task_names_a_registered_kind_whose_rules_load() -> None:
    assert HEAD_KINDS.names()[:2] == ["regression", "classification"]
    for entry in EXTRINSIC_TASKS.entries():
        kind = HEAD_KINDS[entry.head]
        assert kind.name == entry.head and kind.entry is HEAD_KINDS.entry(entry.head)
    assert HEAD_KINDS["regression"].rules.stored_head([]) is REGRESSION
    stored = HEAD_KINDS["classification"].rules.stored_head(["b", "a"])
    assert stored.kind == "classification" and stored.labels == ("b", "a")


def _entry(**changes: str) -> HeadKindEntry:
    fields = {
        "name": "ordinal",
        "summary": "ordered levels",
        "dev_metric": "spearman",
        "target": "my_pkg.ordinal:RULES",
    }
    return HeadKindEntry(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_kind_is_registered_once_checked() -> None:
    kinds = HeadKindRegistry()
    kinds.register(_entry())
    assert kinds.registered("ordinal") and kinds.entry("ordinal").dev_metric == "spearman"
    with pytest.raises(ValueError, match="'ordinal' is registered twice"):
        kinds.register(_entry())
    with pytest.raises(ValueError, match="name 'Ordinal'"):
        kinds.register(_entry(name="Ordinal"))
    with pytest.raises(ValueError, match="dev_metric 'kendall'"):
        kinds.register(_entry(name="other", dev_metric="kendall"))
    with pytest.raises(ValueError, match="target 'nowhere'"):
        kinds.register(_entry(name="other", target="nowhere"))
    with pytest.raises(TypeError, match="must be a HeadKindEntry"):
        kinds.register("ordinal")  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="unknown head kind 'ordinall'; did you mean"):
        kinds.entry("ordinall")
    with pytest.raises(Exception, match=r"cannot load its rules 'my_pkg\.ordinal:RULES'"):
        kinds["ordinal"]
    kinds.unregister("ordinal")
    assert not kinds.registered("ordinal")


def test_a_task_entry_must_name_a_registered_kind() -> None:
    entry = EXTRINSIC_TASKS.entry("sts_bias")
    with pytest.raises(ValueError, match="head 'ordinal' is no registered head kind"):
        type(entry)(**{**vars(entry), "head": "ordinal"})


def test_the_built_in_heads_of_each_kind() -> None:
    rows = [sts_row(1.0), sts_row(4.0)]
    assert task_head("regression", TaskData("sts_b", rows, rows, None)) is REGRESSION
    texts = labelled("a", "b")
    head = task_head("classification", TaskData("x", texts, texts, None, labels=("b", "a")))
    assert head.kind == "classification" and head.labels == ("b", "a")
    assert task_head("classification", TaskData("x", texts, texts, None)).labels is None


def test_a_tasks_own_head_is_used_when_of_its_entrys_kind() -> None:
    texts = labelled("a", "b")
    own = classification(("b", "a", "c"))
    data = TaskData("x", texts, texts, None, labels=("a", "b"), head=own)
    assert task_head("classification", data) is own
    with pytest.raises(
        AuditUserError, match="own head is a classification head; its entry says regression"
    ):
        task_head("regression", data)


def test_regression_dev_check() -> None:
    head = HEAD_KINDS["regression"]
    data = TaskData(dataset="sts_b", train=[], dev=[sts_row(1.0)], evaluation=None)
    check = dev_check(head, DevEvaluation(step=8, n=5, pearson=0.5), data)
    assert check is not None and check.metric == "pearson"
    assert (check.value, check.floor, check.passed, check.n) == (0.5, MIN_DEV_PEARSON, True, 5)
    low = dev_check(head, DevEvaluation(step=8, n=5, pearson=0.49), data)
    assert low is not None and not low.passed
    assert dev_check(head, None, data) is None, "no dev score at the chosen checkpoint"
    assert head.dev_value(DevEvaluation(step=4, n=5, pearson=0.7, accuracy=0.1)) == 0.7


def test_classification_dev_check_beats_the_majority_label() -> None:
    head = HEAD_KINDS["classification"]
    data = TaskData(dataset="x", train=[], dev=labelled("a", "a", "b"), evaluation=None)
    at_floor = DevEvaluation(step=8, n=3, accuracy=2 / 3)
    check = dev_check(head, at_floor, data)
    assert check is not None and check.metric == "accuracy"
    assert check.floor == 2 / 3 and not check.passed, "guessing the majority is no learning"
    better = dev_check(head, DevEvaluation(step=8, n=3, accuracy=1.0), data)
    assert better is not None and better.passed
    assert head.dev_value(DevEvaluation(step=4, n=5, pearson=0.7, accuracy=0.1)) == 0.1


def curve(*pearsons: float | None, every: int = 4) -> FineTuneSummary:
    """A summary with a dev Pearson at every checkpoint (K = `every`)."""
    steps = [every * (i + 1) for i in range(len(pearsons))]
    scores = [DevEvaluation(step=s, n=5, pearson=p) for s, p in zip(steps, pearsons, strict=True)]
    done = summary("regression", *scores)
    return done.model_copy(update={"steps": steps[-1], "checkpoint_steps": steps})


def test_best_dev_chooses_the_highest_dev_score_the_earliest_of_equal_ones() -> None:
    head = HEAD_KINDS["regression"]
    chosen = choose_checkpoint(head, curve(0.2, 0.85, 0.8, 0.85), "best_dev")
    assert (chosen.step, chosen.dev, chosen.scored, chosen.rule) == (8, 0.85, 4, "best_dev")
    assert chosen.reason == "step 8 of 16: the highest dev pearson of 4 checkpoints"
    last = choose_checkpoint(head, curve(0.2, 0.5, 0.9), "best_dev")
    assert (last.step, last.dev) == (12, 0.9) and last.reason.startswith("the last step:")
    skipped = choose_checkpoint(head, curve(None, 0.3, 0.1), "best_dev")
    assert (skipped.step, skipped.scored) == (8, 2), "a checkpoint without a score is no choice"
    best_accuracy = summary(
        "classification",
        DevEvaluation(step=4, n=3, accuracy=0.9),
        DevEvaluation(step=8, n=3, accuracy=0.6),
    ).model_copy(update={"checkpoint_steps": [4, 8]})
    assert choose_checkpoint(HEAD_KINDS["classification"], best_accuracy, "best_dev").step == 4


def test_last_and_the_fallbacks_to_the_last_step() -> None:
    head = HEAD_KINDS["regression"]
    last = choose_checkpoint(head, curve(0.2, 0.85, 0.8), "last")
    assert (last.step, last.dev, last.scored, last.rule) == (12, 0.8, 3, "last")
    end_only = summary("regression", DevEvaluation(step=8, n=5, pearson=0.6))
    chosen = choose_checkpoint(head, end_only, "best_dev")
    assert (chosen.step, chosen.dev, chosen.scored) == (8, 0.6, 1)
    assert "dev_at_checkpoints: false" in chosen.reason
    unscored = choose_checkpoint(head, summary("regression"), "best_dev")
    assert (unscored.step, unscored.dev, unscored.scored) == (8, None, 0)
    assert chosen_evaluation(end_only, 8) == end_only.evaluations[0]
    assert chosen_evaluation(end_only, 4) is None
