"""The contract of an extrinsic task (METHODS.md section 6): an extrinsic task is a
dataset + a head + a metric. Its entry (`audit.extrinsic.catalog`) names the task datasets
it reads (registered in `audit.data.catalog.TASK_DATASETS`), its head kind and its metric;
its object (this protocol) turns the datasets into the head's training and dev rows and
the evaluation inputs before any training (every bad input is an error then), predicts
what the metric needs with a fine-tuned model, and turns those predictions into a value.

The engine (`audit.extrinsic.stage`) does the rest for every task alike: the cached
fine-tuning of the task's head (its own `TaskData.head`, else the head of its entry's
kind, `audit.extrinsic.head_kinds`), the curve points (the task's predictions at every K
steps, kept as arrays so that a cached fine-tuning gives the same curve), the measurement
and the record.

A task may also give its value's bootstrap replicates over its evaluation items
(`ResamplingTask.replicates`; `task_replicates` asks for them): the CI of a mean over
fine-tuning seeds and the two-level bootstrap of the correlations across models need
them. A task without the method has no replicates: a mean over seeds then has no CI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    import numpy as np

    from audit.data.task_entry import TaskSplits
    from audit.extrinsic.finetune.examples import LabelledText, ScoredPair
    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.finetune.task_head import TaskHead


@dataclass(frozen=True)
class Resampling:
    """How a measure draws its interval: `n_bootstrap` resamples from `seed` (0: no
    interval) at level 1 - `alpha`."""

    seed: int
    n_bootstrap: int
    alpha: float = 0.05

    def keywords(self) -> ResamplingKeywords:
        """The three as the keyword arguments of a measure's bootstrap (`seed=`,
        `n_bootstrap=`, `alpha=`), e.g. `tpr_gap_of_bios(..., **resampling.keywords())`."""
        return ResamplingKeywords(seed=self.seed, n_bootstrap=self.n_bootstrap, alpha=self.alpha)


class ResamplingKeywords(TypedDict):
    """`Resampling.keywords()`: a measure's bootstrap arguments."""

    seed: int
    n_bootstrap: int
    alpha: float


@dataclass(frozen=True)
class TaskContext:
    """What a task's data may depend on besides its options: the data folder, the seed,
    and the task datasets its entry names (`training`: what the head is fine-tuned on;
    `evaluation`: what the measure reads, the dataset its measurement carries)."""

    data_dir: Path
    seed: int
    training: str
    evaluation: str
    _read: dict[str, TaskSplits] = field(default_factory=dict, compare=False, repr=False)

    def read(self, dataset: str, options: Any) -> TaskSplits:
        """A dataset's splits through its registered reader (read once per context)."""
        if dataset not in self._read:
            from audit.data.catalog import read_task_dataset

            self._read[dataset] = read_task_dataset(dataset, self.data_dir, options, self.seed)
        return self._read[dataset]

    def training_data(self, options: Any) -> TaskSplits:
        return self.read(self.training, options)

    def evaluation_data(self, options: Any) -> TaskSplits:
        return self.read(self.evaluation, options)


#: The type of a task's evaluation inputs (`TaskData.evaluation`): the task's own.
EvaluationT = TypeVar("EvaluationT")


@dataclass(frozen=True)
class TaskData(Generic[EvaluationT]):
    """A task's data, read and checked: the head's training and dev rows, the evaluation
    inputs (whatever `predict` reads, in `evaluation`, of the task's own type:
    `TaskData[list[Bio]]`) and the task's options (which the measure may read). `head` is
    the task's own head (a `TaskHead` of its entry's kind, which then carries its
    classes); None: the head of the entry's kind (`audit.extrinsic.head_kinds`; a
    classifier's over `labels`, default: the training labels, sorted)."""

    dataset: str
    train: Sequence[ScoredPair] | Sequence[LabelledText]
    dev: Sequence[ScoredPair] | Sequence[LabelledText]
    evaluation: EvaluationT
    options: Any = None
    labels: tuple[str, ...] | None = None
    #: What was read, for the report: counts, files, sources.
    facts: Mapping[str, Any] = field(default_factory=dict)
    #: Hash of the evaluation inputs (a cache key part: curve points are their predictions).
    evaluation_sha256: str = ""
    head: TaskHead | None = None


@dataclass(frozen=True)
class TaskValue:
    """A task's measure from one set of predictions: the value with its interval, and the
    task's own result record (the entry's `result` type)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    note: str
    result: BaseModel

    @classmethod
    def of(cls, result: Any, n: int) -> TaskValue:
        """From a task's result record (every one has value, ci_low, ci_high and note)."""
        return cls(
            value=result.value,
            ci_low=result.ci_low,
            ci_high=result.ci_high,
            n=n,
            note=result.note,
            result=result,
        )


@dataclass(frozen=True, eq=False)
class ItemReplicates:
    """A task's value recomputed on `values.size` bootstrap resamples of its evaluation
    items (NaN where a resample leaves it undefined). `n_items` resampled units, named by
    `counted` ('templates'): what the interval rule counts (`bootstrap_interval`)."""

    values: np.ndarray
    n_items: int
    counted: str


class ExtrinsicTask(Protocol):
    """One extrinsic task; `options` is its validated options model."""

    def prepare(self, options: Any, context: TaskContext) -> TaskData[Any]: ...

    def predict(self, model: TaskModel, data: TaskData[Any]) -> dict[str, np.ndarray]: ...

    def measure(
        self, predictions: Mapping[str, np.ndarray], data: TaskData[Any], resampling: Resampling
    ) -> TaskValue: ...


class ResamplingTask(ExtrinsicTask, Protocol):
    """A task that also gives its value's replicates over resamples of its evaluation
    items (optional: the built-in tasks have it).

    `replicates` draws `resampling.n_bootstrap` resamples from `resampling.seed` and the
    evaluation data alone, never from the predictions: every model and every fine-tuning
    seed of the task is resampled with the same draws, so replicate b of two fine-tunings
    is over the same items (a mean's replicate is the mean of the replicates). None when
    the value is undefined (e.g. no pairs of both genders)."""

    def replicates(
        self, predictions: Mapping[str, np.ndarray], data: TaskData[Any], resampling: Resampling
    ) -> ItemReplicates | None: ...


def task_replicates(
    task: ExtrinsicTask,
    predictions: Mapping[str, np.ndarray],
    data: TaskData[Any],
    resampling: Resampling,
) -> ItemReplicates | None:
    """The task's replicates of its value on `predictions`; None when the task gives none
    (no `replicates` method) or `resampling` draws none."""
    method = getattr(task, "replicates", None)
    if method is None or resampling.n_bootstrap < 1:
        return None
    found: ItemReplicates | None = method(predictions, data, resampling)
    if found is not None and found.values.shape != (resampling.n_bootstrap,):
        raise ValueError(
            f"the task's replicates have shape {found.values.shape}; expected "
            f"({resampling.n_bootstrap},): one value per resample"
        )
    return found
