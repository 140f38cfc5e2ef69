"""The extrinsic stage of a run: every planned task (`audit.extrinsic.planned`), fine-tuned
on each of its models and variants (cached like a variant), measured, and its curve drawn
from the predictions kept at every K steps.

`run_extrinsic` fine-tunes what the cache lacks, one model load per (task, model) and
`finetune.seeds` fine-tunings on it (seeds s, s+1, ...; `audit.extrinsic.seed_run`),
measures each at the checkpoint its `finetune.checkpoint` rule chooses, and gives the
records for results.json (with several seeds, their mean: `audit.extrinsic.seeds`) and,
in memory only, each record's value on resamples of the task's evaluation items
(`ExtrinsicOutcome.replicates`, the same draws for every model and seed), which the
correlation study's bootstrap across models reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.extrinsic.planned import PlannedTask
from audit.extrinsic.seed_run import SeedJob, seed_run
from audit.extrinsic.seeds import SeedRun, combine_seeds
from audit.extrinsic.tasks.base import Resampling, TaskValue
from audit.results import ExtrinsicRecord

if TYPE_CHECKING:
    import numpy as np

    from audit.display import Display

#: An extrinsic record's replicates' key: (measure key, dataset, model), as
#: `(record.measure.key, record.dataset, record.model)`.
ReplicateKey = tuple[tuple[str, str], str, str]


LoadModel = Callable[[str], Any]


@dataclass(frozen=True)
class ExtrinsicOutcome:
    """What the stage gives: the records for results.json, and, in memory only, the
    replicates of each record's value under resampling of its task's evaluation items
    (`n_bootstrap` each, shape (n_bootstrap,); with several seeds the mean over the kept
    seeds, as the value), keyed by `(record.measure.key, record.dataset, record.model)`.
    The draws come from the audit's seed and the task only, so replicate b of every model
    and seed of a task is over the same items. A record whose task gives no replicates
    (a plug-in without `replicates`, `bootstrap: 0`, an undefined value) has none."""

    records: list[ExtrinsicRecord]
    replicates: dict[ReplicateKey, np.ndarray]
    #: Each counted seed's own replicates (the seeds the value is the mean of; one array
    #: for one seed), for a comparison that resamples the seeds as well as the items.
    seed_replicates: dict[ReplicateKey, list[np.ndarray]] = field(default_factory=dict)


def run_extrinsic(
    planned: Sequence[PlannedTask],
    *,
    load_model: LoadModel,
    cache_dir: Path,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    display: Display,
    model_order: Sequence[str],
) -> ExtrinsicOutcome:
    """Fine-tune (or read from the cache) and measure every planned task on its models,
    each with its `finetune.seeds` seeds. `model_order` is the run's model order
    (variants right after their base); a model missing from it (a variant that was not
    trained) is left out."""
    resampling = Resampling(seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
    outcome = ExtrinsicOutcome([], {}, {})
    for item in planned:
        for model_id in [m for m in model_order if m in item.models]:
            loaded = load_model(model_id)
            seeds = item.seeds(seed)
            runs = [
                seed_run(
                    SeedJob(item, model_id, loaded, s, len(seeds) > 1),
                    cache_dir,
                    resampling,
                    display,
                )
                for s in seeds
            ]
            record, replicates = _record(item, model_id, runs, resampling)
            outcome.records.append(record)
            key = (record.measure.key, record.dataset, record.model)
            if replicates is not None:
                outcome.replicates[key] = replicates
            counted = [r for r in runs if r.passed] or list(runs)
            if all(r.replicates is not None for r in counted):
                outcome.seed_replicates[key] = [
                    r.replicates.values for r in counted if r.replicates is not None
                ]
    return outcome


def _record(
    item: PlannedTask, model_id: str, runs: Sequence[SeedRun], resampling: Resampling
) -> tuple[ExtrinsicRecord, np.ndarray | None]:
    """The record of a task on a model and its value's replicates: one seed's own
    numbers, or the mean of several (`combine_seeds`)."""
    common: dict[str, Any] = {
        "task": item.name,
        "measure": item.measure_id,
        "model": model_id,
        "dataset": item.data.dataset,
        "ideal_value": item.entry.card.ideal_value,
        "facts": dict(item.data.facts),
    }
    if len(runs) == 1:
        (run,) = runs
        record = ExtrinsicRecord(
            **common,
            value=run.value.value,
            ci_low=run.value.ci_low,
            ci_high=run.value.ci_high,
            n=run.value.n,
            note=run.value.note,
            dev_check=run.dev_check,
            chosen_checkpoint=run.chosen,
            curve=run.curve,
            finetune=run.summary,
            cached=run.cached,
            key=run.key,
            detail=_plug_in_or_built_in(run.value),
        )
        return record, None if run.replicates is None else run.replicates.values
    mean = combine_seeds(runs, alpha=resampling.alpha, n_bootstrap=resampling.n_bootstrap)
    record = ExtrinsicRecord(
        **common,
        value=mean.value,
        ci_low=mean.ci_low,
        ci_high=mean.ci_high,
        n=mean.first.value.n,
        note=mean.note,
        dev_check=mean.dev_check,
        chosen_checkpoint=None,
        curve=mean.curve,
        finetune=mean.first.summary,
        cached=all(r.cached for r in runs),
        key=mean.first.key,
        detail=_plug_in_or_built_in(mean.first.value),
        seeds=mean.seeds,
        seed_sd=mean.seed_sd,
        seed_min=mean.seed_min,
        seed_max=mean.seed_max,
    )
    return record, mean.replicates


def _plug_in_or_built_in(value: TaskValue) -> Any:
    """A task's result record, which `ExtrinsicRecord.detail` keeps as a built-in's type
    or a plug-in's JSON fields (its validator decides)."""
    return value.result
