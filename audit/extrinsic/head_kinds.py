"""What the extrinsic stage does with each kind of task head, so that it asks the task's
entry for its head and never branches on the kind: how the fine-tuning is keyed and run
(today's `audit.extrinsic.finetune.store` functions), which dev score a curve point shows,
and the dev check that the fine-tuning learned the task.

When the trainer's head becomes one data type (loss, targets, dev metric), these two
objects become two values of it; the stage keeps calling the same four methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from audit.extrinsic.tasks.base import HeadKind, TaskData
from audit.results import DevCheck

if TYPE_CHECKING:
    from audit.extrinsic.finetune.store import StoredFineTune
    from audit.models.loaded import LoadedModel
    from audit.results import DevEvaluation, FineTuneSummary

#: The lowest STS-B dev Pearson counted as "learned the task". BERT-base reaches about
#: 0.88 after 3 epochs (Devlin et al. 2019); below 0.5 the predicted similarity is mostly
#: noise, and so would be its gender gap.
MIN_DEV_PEARSON = 0.5


class HeadKindRules(Protocol):
    """One head kind, as the stage uses it (`common`: the store functions' shared keyword
    arguments: task, task_options, settings, and for `fine_tune` cache_dir, on_checkpoint
    and progress)."""

    kind: HeadKind
    dev_metric: Literal["pearson", "accuracy"]

    def cache_key(self, data: TaskData, **common: Any) -> str: ...

    def fine_tune(self, loaded: LoadedModel, data: TaskData, **common: Any) -> StoredFineTune: ...

    def dev_value(self, evaluation: DevEvaluation) -> float | None: ...

    def dev_floor(self, data: TaskData) -> tuple[float, str]: ...

    def learned(self, value: float, floor: float) -> bool: ...


def dev_check(head: HeadKindRules, summary: FineTuneSummary, data: TaskData) -> DevCheck | None:
    """Whether the fine-tuning learned the task: its final dev score against the head's
    floor; None when the dev set was empty (nothing was scored)."""
    final = summary.final
    if final is None:
        return None
    value = head.dev_value(final)
    floor, reason = head.dev_floor(data)
    return DevCheck(
        metric=head.dev_metric,
        value=value,
        floor=floor,
        floor_reason=reason,
        passed=value is not None and head.learned(value, floor),
        n=final.n,
    )


class RegressionHead:
    """A similarity regressor (STS-B): dev Pearson, checked against `MIN_DEV_PEARSON`."""

    kind: HeadKind = "regression"
    dev_metric: Literal["pearson", "accuracy"] = "pearson"

    def cache_key(self, data: TaskData, **common: Any) -> str:
        from audit.extrinsic.finetune.store import regression_key

        return regression_key(train_rows=data.train, dev_rows=data.dev, **common)

    def fine_tune(self, loaded: LoadedModel, data: TaskData, **common: Any) -> StoredFineTune:
        from audit.extrinsic.finetune.store import cached_regression

        return cached_regression(loaded, data.train, data.dev, **common)  # type: ignore[arg-type]

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

    def cache_key(self, data: TaskData, **common: Any) -> str:
        from audit.extrinsic.finetune.store import classifier_key

        return classifier_key(
            train_rows=data.train,
            dev_rows=data.dev,
            labels=data.labels,
            **common,
        )

    def fine_tune(self, loaded: LoadedModel, data: TaskData, **common: Any) -> StoredFineTune:
        from audit.extrinsic.finetune.store import cached_classifier

        return cached_classifier(
            loaded,
            data.train,  # type: ignore[arg-type]
            data.dev,  # type: ignore[arg-type]
            labels=data.labels,
            **common,
        )

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
