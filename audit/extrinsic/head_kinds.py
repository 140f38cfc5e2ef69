"""The head kinds of the extrinsic tasks: an open registry, one typed entry per kind, so
that the extrinsic stage and the fine-tuning never branch on a kind.

A kind is a `HeadKindEntry` (light: its name, what its head is, the dev score it is
judged by, and the lazy `target` of its rules) and its `HeadKindRules` (imported on first
use): the kind's head for a task's data (`head`; the head carries the inputs, targets,
loss and dev metric, `audit.extrinsic.finetune.task_head.TaskHead`), the head a stored
fine-tuning's summary names (`stored_head`, to rebuild it), the dev check's floor and
pass rule, and how a fine-tuned model of the kind predicts (`predict`).

Every kind is registered with `HEAD_KINDS.register`: the built-ins `regression` (STS-B)
and `classification` (NLI, BiasBios) at the end of this module, a kind of another
package in its `bias_audit.plugins` entry point (docs/plugins.md, "A task with a new head
kind"), before the extrinsic task entry that names it. What the stage does with a kind
is here too: the head a task is fine-tuned with (`task_head`: the task's own
`TaskData.head`, else its kind's), which checkpoint it is measured at
(`choose_checkpoint`) and the dev check that it learned the task (`dev_check`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, get_args

from audit.code_identity import DEFAULT_VERSION, CodeIdentity
from audit.errors import AuditUserError, UnknownNameError
from audit.plugins import (
    BUILT_IN,
    PluginError,
    current_distribution,
    current_origin,
    ensure_loaded,
)
from audit.registry import NAME_PATTERN, TARGET_PATTERN, did_you_mean
from audit.results import ChosenCheckpoint, DevCheck
from audit.results.extrinsic import DevMetric

if TYPE_CHECKING:
    import numpy as np

    from audit.extrinsic.finetune.examples import TextInput
    from audit.extrinsic.finetune.heads import TaskModel
    from audit.extrinsic.finetune.settings import CheckpointRule
    from audit.extrinsic.finetune.task_head import TaskHead
    from audit.extrinsic.tasks.base import TaskData
    from audit.results import DevEvaluation, FineTuneSummary


@dataclass(frozen=True, kw_only=True)
class HeadKindEntry:
    """One head kind: its `name` (what an extrinsic task entry's `head`, a `TaskHead`'s
    `kind` and a fine-tuning's summary say), what its head is (`summary`, for the plan and
    the docs), its dev score (`dev_metric`: the `DevEvaluation` field its head's metric
    fills, higher is better), `target`, "package.module:attribute" of its rules, and
    `version`, which fine-tunings' cache keys hold (as a card's version)."""

    name: str
    summary: str
    dev_metric: DevMetric
    target: str
    #: Raise it when what the kind computes changes (its head, loss or prediction): every
    #: fine-tuning with a head of the kind is then made again (`code_identity`).
    version: str = DEFAULT_VERSION


class HeadKindRules(Protocol):
    """What a head kind does (its entry's `target`)."""

    def head(self, data: TaskData) -> TaskHead:
        """The kind's head for a task's data (when the task gives no head of its own)."""
        ...

    def stored_head(self, labels: Sequence[str]) -> TaskHead:
        """The head a stored fine-tuning of the kind was trained with, from its summary's
        classes (to rebuild the fine-tuned model)."""
        ...

    def dev_floor(self, data: TaskData) -> tuple[float, str]:
        """The lowest dev score counted as having learned the task, and why."""
        ...

    def learned(self, value: float, floor: float) -> bool:
        """Whether a dev score passes the floor."""
        ...

    def predict(self, model: TaskModel, inputs: Sequence[TextInput], batch_size: int) -> np.ndarray:
        """What a fine-tuned model of the kind predicts for each input."""
        ...


@dataclass(frozen=True)
class HeadKind:
    """A registered head kind with its rules loaded."""

    entry: HeadKindEntry
    rules: HeadKindRules

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def dev_metric(self) -> DevMetric:
        return self.entry.dev_metric

    def dev_value(self, evaluation: DevEvaluation) -> float | None:
        """The kind's dev score in `evaluation` (None when it was not scored)."""
        value: float | None = getattr(evaluation, self.entry.dev_metric)
        return value


class HeadKindRegistry:
    """Name -> `HeadKindEntry` (registration order) -> `HeadKind` (rules loaded on first
    use). Asking loads the installed plug-ins first; registering does not."""

    def __init__(self) -> None:
        self._entries: dict[str, HeadKindEntry] = {}
        self._origins: dict[str, str] = {}
        self._distributions: dict[str, str] = {}
        self._loaded: dict[str, HeadKind] = {}

    def register(self, entry: HeadKindEntry) -> HeadKindEntry:
        """Add one head kind, checked (its type, name, dev metric, target, and that its
        name is free)."""
        if not isinstance(entry, HeadKindEntry):
            raise TypeError(f"a head kind must be a HeadKindEntry; got {type(entry).__name__}")
        if not NAME_PATTERN.fullmatch(entry.name):
            raise ValueError(
                f"head kind name {entry.name!r}: expected lower-case letters, digits and "
                "'_', starting with a letter"
            )
        if entry.dev_metric not in get_args(DevMetric):
            raise ValueError(
                f"head kind '{entry.name}': dev_metric {entry.dev_metric!r}; expected one "
                f"of {', '.join(get_args(DevMetric))} (a DevEvaluation field)"
            )
        if not TARGET_PATTERN.fullmatch(entry.target):
            raise ValueError(
                f"head kind '{entry.name}': target {entry.target!r}; expected "
                "'package.module:attribute'"
            )
        if entry.name in self._entries:
            raise ValueError(
                f"head kind '{entry.name}' is registered twice (first: {self._origins[entry.name]})"
            )
        self._entries[entry.name] = entry
        self._origins[entry.name] = current_origin() or BUILT_IN
        distribution = current_distribution()
        if distribution is not None:
            self._distributions[entry.name] = distribution
        return entry

    def unregister(self, name: str) -> None:
        """Remove a head kind (a test's toy kind cleans up with this)."""
        self._entries.pop(name, None)
        self._origins.pop(name, None)
        self._distributions.pop(name, None)
        self._loaded.pop(name, None)

    def registered(self, name: str) -> bool:
        """Whether `name` is registered so far (without loading the plug-ins: an extrinsic
        task entry checks its kind with this as it is registered)."""
        return name in self._entries

    def names(self) -> list[str]:
        """The registered kinds, in registration order."""
        ensure_loaded()
        return list(self._entries)

    def origin(self, name: str) -> str:
        """Where kind `name` comes from: "built-in" or the entry point that registered it."""
        self.entry(name)
        return self._origins[name]

    def code_identity(self, name: str) -> CodeIdentity:
        """The code of kind `name` as fine-tunings' cache keys hold it: its version and,
        for a kind an entry point registered, its distribution ("name==version")."""
        entry = self.entry(name)
        return CodeIdentity(
            kind="head_kind",
            name=name,
            version=entry.version,
            distribution=self._distributions.get(name),
        )

    def __contains__(self, name: object) -> bool:
        ensure_loaded()
        return name in self._entries

    def entry(self, name: str) -> HeadKindEntry:
        ensure_loaded()
        if name not in self._entries:
            hint = did_you_mean(name, list(self._entries))
            raise UnknownNameError(
                f"unknown head kind '{name}'{f'; {hint}' if hint else ''} (known: "
                f"{', '.join(self._entries)})"
            )
        return self._entries[name]

    def __getitem__(self, name: str) -> HeadKind:
        """The kind with its rules, imported on first use."""
        if name not in self._loaded:
            entry = self.entry(name)
            module_name, _, attr = entry.target.partition(":")
            try:
                rules: Any = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError) as error:
                raise PluginError(
                    f"head kind '{name}' ({self._origins[name]}): cannot load its rules "
                    f"{entry.target!r}: {type(error).__name__}: {error}"
                ) from error
            self._loaded[name] = HeadKind(entry, rules)
        return self._loaded[name]


#: Every head kind an extrinsic task entry may name.
HEAD_KINDS = HeadKindRegistry()


def task_head(kind: str, data: TaskData) -> TaskHead:
    """The head a task's data is fine-tuned with: the task's own (`data.head`), else the
    head of its entry's `kind`. A task's own head must be of its entry's kind (the dev
    check, the plan and the report go by the kind); else a user error."""
    if data.head is None:
        return HEAD_KINDS[kind].rules.head(data)
    if data.head.kind != kind:
        raise AuditUserError(
            f"the task's own head is a {data.head.kind} head; its entry says {kind}: give "
            f"the entry head={data.head.kind!r} or the task a {kind} head"
        )
    return data.head


def dev_check(head: HeadKind, evaluation: DevEvaluation | None, data: TaskData) -> DevCheck | None:
    """Whether the fine-tuning learned the task: the dev score of the chosen checkpoint
    (`chosen_evaluation`) against the kind's floor; None when the dev set was not scored
    there (an empty dev set)."""
    if evaluation is None:
        return None
    value = head.dev_value(evaluation)
    floor, reason = head.rules.dev_floor(data)
    return DevCheck(
        metric=head.dev_metric,
        value=value,
        floor=floor,
        floor_reason=reason,
        passed=value is not None and head.rules.learned(value, floor),
        n=evaluation.n,
    )


def choose_checkpoint(
    head: HeadKind, summary: FineTuneSummary, rule: CheckpointRule
) -> ChosenCheckpoint:
    """The checkpoint a task is measured at. 'last': the last step. 'best_dev': the
    checkpoint with the highest dev score (every kind's dev score: higher is better), the
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


HEAD_KINDS.register(
    HeadKindEntry(
        name="regression",
        summary="one unbounded output (a similarity), MSE; dev Pearson at least 0.5",
        dev_metric="pearson",
        target="audit.extrinsic.kinds.regression:RULES",
    )
)
HEAD_KINDS.register(
    HeadKindEntry(
        name="classification",
        summary="one logit per class, cross-entropy; dev accuracy above always guessing "
        "the most frequent dev label",
        dev_metric="accuracy",
        target="audit.extrinsic.kinds.classification:RULES",
    )
)
