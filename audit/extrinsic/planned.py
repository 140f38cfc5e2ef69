"""The extrinsic tasks of a run, planned: every task of the spec's `extrinsic:` list with
its data read and checked and the models it runs on (`plan_extrinsic`).

Every task's data is read while the run is planned, so a missing file, a model type a
task cannot fine-tune or too few templates stop the run before anything trains; the
models a task cannot fine-tune by design (a variant whose method changes only the output
distribution, Self-Debias) are left out, each with its reason. A planned task knows its
head (`audit.extrinsic.head_kinds`: the task's own, else its entry's kind's) and the
cache key of each seed's fine-tuning, computed without loading the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.data.catalog import TASK_DATASETS
from audit.errors import AuditUserError
from audit.extrinsic.catalog import EXTRINSIC_TASKS, ExtrinsicTaskEntry
from audit.extrinsic.head_kinds import HEAD_KINDS, HeadKind, task_head
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.tasks.base import ExtrinsicTask, TaskContext, TaskData
from audit.ids import PluginId

if TYPE_CHECKING:
    from audit.extrinsic.finetune.store import FineTuneStore
    from audit.extrinsic.finetune.task_head import TaskHead


@dataclass(frozen=True)
class PlannedTask:
    """One task of the spec with its data read and the models it runs on (in run order)."""

    spec: ExtrinsicSpec
    entry: ExtrinsicTaskEntry
    task: ExtrinsicTask
    options: Any
    data: TaskData
    models: tuple[str, ...]
    #: The models the task leaves out by design, each with the reason (run order).
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return self.spec.task

    @property
    def measure_id(self) -> PluginId:
        return PluginId.of(self.name, self.spec.options)

    @property
    def head(self) -> HeadKind:
        """The entry's head kind (its dev score and dev check)."""
        return HEAD_KINDS[self.entry.head]

    @property
    def task_head(self) -> TaskHead:
        """The head fine-tuned: the task's own, else its entry's kind's."""
        return task_head(self.entry.head, self.data)

    def seeds(self, spec_seed: int) -> tuple[int, ...]:
        """The seeds of a model's fine-tunings (`finetune.seeds` of them, from
        `finetune.seed`, else the spec's seed)."""
        return self.spec.finetune.seed_list(spec_seed)

    def cache_key(self, fingerprint: str, model_type: str, seed: int) -> str:
        """The cache key of the fine-tuning with `seed` (one of `seeds`) on a model,
        computed without loading it."""
        return self.cache_store(Path(), fingerprint, model_type, seed).key

    def cache_store(
        self, cache_dir: Path, fingerprint: str, model_type: str, seed: int
    ) -> FineTuneStore:
        """The store of that fine-tuning (its key: `cache_key`), which knows the task's
        code, so a plan can say why it is made again (`ArtefactStore.why_missing`)."""
        from audit.extrinsic.finetune.store import planned_store

        return planned_store(
            cache_dir,
            self.task_head,
            model_fingerprint=fingerprint,
            model_type=model_type,  # type: ignore[arg-type]
            task=self.name,
            task_options=self.task_options(),
            settings=self.spec.finetune.for_seed(seed),
            train_rows=self.data.train,
            dev_rows=self.data.dev,
        )

    def cache_keys(
        self, fingerprint: str, model_type: str, spec_seed: int
    ) -> list[tuple[int, str]]:
        """Each seed of a model's fine-tunings with its cache key."""
        return [(s, self.cache_key(fingerprint, model_type, s)) for s in self.seeds(spec_seed)]

    def total_steps(self) -> int:
        return self.spec.finetune.total_steps(len(self.data.train))

    def task_options(self) -> dict[str, Any]:
        """What goes into the fine-tuning's cache key: the options as used, and the hash of
        the evaluation inputs (the curve points are predictions on them)."""
        return {
            "options": self.options.model_dump(mode="json"),
            "evaluation_sha256": self.data.evaluation_sha256,
        }


def plan_extrinsic(
    tasks: Sequence[ExtrinsicSpec],
    *,
    model_types: Mapping[str, str],
    variants_of: Mapping[str, Sequence[str]],
    data_dir: Path | None,
    seed: int,
    unfit: Mapping[str, str] | None = None,
) -> list[PlannedTask]:
    """Every task with its data read and checked. `model_types` holds every model and
    variant id (run order) with its type; `variants_of` a base id's variant ids;
    `unfit` the models no task can fine-tune, each with the reason (a Self-Debias
    variant): a task leaves them out, and says so (`PlannedTask.left_out`)."""
    unfit = unfit or {}
    planned: list[PlannedTask] = []
    for i, spec in enumerate(tasks):
        where = f"extrinsic[{i}] ({spec.task})"
        entry = EXTRINSIC_TASKS.entry(spec.task)
        if data_dir is None:
            raise AuditUserError(
                f"{where}: extrinsic tasks read their data from the shared data folder: pass "
                "--data-dir ../shared/data (or set AUDIT_DATA_DIR)"
            )
        wanted = _chosen_models(spec, model_types, variants_of)
        chosen = [m for m in wanted if m not in unfit]
        left_out = tuple((m, unfit[m]) for m in wanted if m in unfit)
        for model_id in chosen:
            if model_types[model_id] not in entry.model_types:
                raise AuditUserError(
                    f"{where}: model '{model_id}' is a {model_types[model_id]} LM; task "
                    f"'{spec.task}' fine-tunes {' and '.join(sorted(entry.model_types))} LMs "
                    "only: leave the model out with `models:`"
                )
            spec.finetune.pooling_for(model_types[model_id])  # type: ignore[arg-type]
        options = EXTRINSIC_TASKS.options_of(spec.task, spec.options)
        task: ExtrinsicTask = EXTRINSIC_TASKS.load(spec.task)
        context = TaskContext(
            data_dir=data_dir,
            seed=seed,
            training=TASK_DATASETS.entry(entry.training).name,
            evaluation=TASK_DATASETS.entry(entry.dataset).name,
        )
        try:
            data = task.prepare(options, context)
            task_head(entry.head, data)  # a task's own head of another kind stops the run
        except AuditUserError as error:
            raise type(error)(f"{where}: {error}") from error
        planned.append(PlannedTask(spec, entry, task, options, data, tuple(chosen), left_out))
    return planned


def _chosen_models(
    spec: ExtrinsicSpec,
    model_types: Mapping[str, str],
    variants_of: Mapping[str, Sequence[str]],
) -> list[str]:
    if spec.models is None:
        return list(model_types)
    wanted: set[str] = set()
    for model_id in spec.models:
        wanted.add(model_id)
        wanted.update(variants_of.get(model_id, ()))
    return [m for m in model_types if m in wanted]
