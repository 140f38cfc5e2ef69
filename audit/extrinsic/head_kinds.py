"""What the extrinsic stage does with each kind of task head, so that it never branches on
the kind: the head a task is fine-tuned with (`task_head`: the task's own `TaskData.head`,
else its entry's built-in head, `REGRESSION` or `classification(data.labels)`), which dev
score a curve point shows, which checkpoint a task is measured at (`choose_checkpoint`)
and the dev check that the fine-tuning learned the task (at that checkpoint).

The fine-tuning and its cache key take the head as data (`planned_key`,
`cached_finetune`), the same call for a built-in head and a task's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from audit.errors import AuditUserError
from audit.extrinsic.tasks.base import HeadKind, TaskData
from audit.results import ChosenCheckpoint, DevCheck

if TYPE_CHECKING:
    from audit.extrinsic.finetune.settings import CheckpointRule
    from audit.extrinsic.finetune.task_head import TaskHead
    from audit.results import DevEvaluation, FineTuneSummary

#: The lowest STS-B dev Pearson counted as "learned the task". BERT-base reaches about
#: 0.88 after 3 epochs (Devlin et al. 2019); below 0.5 the predicted similarity is mostly
#: noise, and so would be its gender gap.
MIN_DEV_PEARSON = 0.5


class HeadKindRules(Protocol):
    """One head kind, as the stage uses it: its built-in head for a task's data, its dev
    score, floor and pass rule."""

    kind: HeadKind
    dev_metric: Literal["pearson", "accuracy"]

    def head(self, data: TaskData) -> TaskHead: ...

    def dev_value(self, evaluation: DevEvaluation) -> float | None: ...

    def dev_floor(self, data: TaskData) -> tuple[float, str]: ...

    def learned(self, value: float, floor: float) -> bool: ...


def dev_check(
    head: HeadKindRules, evaluation: DevEvaluation | None, data: TaskData
) -> DevCheck | None:
    """Whether the fine-tuning learned the task: the dev score of the chosen checkpoint
    (`chosen_evaluation`) against the head's floor; None when the dev set was not scored
    there (an empty dev set)."""
    if evaluation is None:
        return None
    value = head.dev_value(evaluation)
    floor, reason = head.dev_floor(data)
    return DevCheck(
        metric=head.dev_metric,
        value=value,
        floor=floor,
        floor_reason=reason,
        passed=value is not None and head.learned(value, floor),
        n=evaluation.n,
    )


def choose_checkpoint(
    head: HeadKindRules, summary: FineTuneSummary, rule: CheckpointRule
) -> ChosenCheckpoint:
    """The checkpoint a task is measured at. 'last': the last step. 'best_dev': the
    checkpoint with the highest dev score (Pearson, accuracy: higher is better), the
    earliest of equal ones; the last step when no checkpoint has a dev score (an empty dev
    set) or only the last has (`dev_at_checkpoints: false`)."""
    scored = {
        e.step: value
        for e in summary.evaluations
        if e.step in summary.checkpoint_steps and (value := head.dev_value(e)) is not None
    }
    last = summary.steps
    metric = f"dev {head.dev_metric}"
    if rule == "last":
        why = f"the last step (checkpoint: last); {metric} scored at {len(scored)} checkpoint(s)"
        return ChosenCheckpoint(
            step=last, rule=rule, dev=scored.get(last), scored=len(scored), reason=why
        )
    if not scored:
        why = f"the last step: no checkpoint has a {metric} to choose by"
        return ChosenCheckpoint(step=last, rule=rule, dev=None, scored=0, reason=why)
    if list(scored) == [last]:
        why = f"the last step: the {metric} was scored at the end only (dev_at_checkpoints: false)"
        return ChosenCheckpoint(step=last, rule=rule, dev=scored[last], scored=1, reason=why)
    best = max(scored.values())
    step = min(s for s, v in scored.items() if v == best)
    where = "the last step" if step == last else f"step {step} of {last}"
    why = f"{where}: the highest {metric} of {len(scored)} checkpoints"
    return ChosenCheckpoint(step=step, rule=rule, dev=best, scored=len(scored), reason=why)


def chosen_evaluation(summary: FineTuneSummary, step: int) -> DevEvaluation | None:
    """The dev scores at `step` (None when the dev set was not scored there)."""
    return next((e for e in summary.evaluations if e.step == step), None)


class RegressionHead:
    """A similarity regressor (STS-B): dev Pearson, checked against `MIN_DEV_PEARSON`."""

    kind: HeadKind = "regression"
    dev_metric: Literal["pearson", "accuracy"] = "pearson"

    def head(self, data: TaskData) -> TaskHead:
        from audit.extrinsic.finetune.task_head import REGRESSION

        return REGRESSION

    def dev_value(self, evaluation: DevEvaluation) -> float | None:
        return evaluation.pearson

    def dev_floor(self, data: TaskData) -> tuple[float, str]:
        return MIN_DEV_PEARSON, (
            "below 0.5 the predicted similarity is mostly noise (BERT-base reaches about 0.88)"
        )

    def learned(self, value: float, floor: float) -> bool:
        return value >= floor


class ClassificationHead:
    """A classifier over the task's labels: dev accuracy, checked against always guessing
    the most frequent dev label."""

    kind: HeadKind = "classification"
    dev_metric: Literal["pearson", "accuracy"] = "accuracy"

    def head(self, data: TaskData) -> TaskHead:
        """One logit per class of `data.labels` (default: the training labels, sorted)."""
        from audit.extrinsic.finetune.task_head import classification

        return classification(data.labels)

    def dev_value(self, evaluation: DevEvaluation) -> float | None:
        return evaluation.accuracy

    def dev_floor(self, data: TaskData) -> tuple[float, str]:
        labels: Sequence[object] = [getattr(row, "label", None) for row in data.dev]
        majority = max(labels.count(x) for x in set(labels)) / len(labels) if labels else 0.0
        return majority, "the share of the most frequent dev label (always guessing it)"

    def learned(self, value: float, floor: float) -> bool:
        return value > floor


#: Every head kind an extrinsic task entry may name.
HEAD_KINDS: dict[HeadKind, HeadKindRules] = {
    "regression": RegressionHead(),
    "classification": ClassificationHead(),
}


def task_head(kind: HeadKind, data: TaskData) -> TaskHead:
    """The head a task's data is fine-tuned with: the task's own (`data.head`), else the
    built-in head of its entry's `kind`. A task's own head must be of its entry's kind
    (the dev check, the plan and the report go by the kind); else a user error."""
    if data.head is None:
        return HEAD_KINDS[kind].head(data)
    if data.head.kind != kind:
        raise AuditUserError(
            f"the task's own head is a {data.head.kind} head; its entry says {kind}: give "
            f"the entry head={data.head.kind!r} or the task a {kind} head"
        )
    return data.head
