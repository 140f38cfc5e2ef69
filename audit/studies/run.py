"""Running the cross-model studies of one audit (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from audit.ids import PluginId
from audit.results import Measurement
from audit.studies.correlations import ExtrinsicKey, correlations
from audit.studies.downstream import downstream_comparisons
from audit.studies.paired import retest_with
from audit.studies.settings import DOWNSTREAM_FAMILY, Studies, StudySettings, UnitKey

if TYPE_CHECKING:
    import pandas as pd

    from audit.display import Display
    from audit.results import ExtrinsicRecord
    from audit.scoring_schedule import MeasureTask, ScoringSchedule


def _tasks_by_unit_kind(
    schedule: ScoringSchedule,
) -> dict[tuple[str, PluginId], dict[PluginId, MeasureTask]]:
    """(dataset, scorer) -> measure -> one task (any model's)."""
    out: dict[tuple[str, PluginId], dict[PluginId, MeasureTask]] = {}
    for task in schedule.measures:
        key = (task.unit.dataset, task.unit.scorer)
        out.setdefault(key, {}).setdefault(task.measure, task)
    return out


def _models_by_unit_kind(
    schedule: ScoringSchedule, order: Sequence[str]
) -> dict[tuple[str, PluginId], list[str]]:
    out: dict[tuple[str, PluginId], list[str]] = {}
    for unit in schedule.units:
        out.setdefault((unit.dataset, unit.scorer), []).append(unit.model)
    return {k: sorted(set(v), key=list(order).index) for k, v in out.items()}


def run_studies(
    settings: StudySettings,
    schedule: ScoringSchedule,
    frames: Mapping[UnitKey, pd.DataFrame],
    measurements: list[Measurement],
    display: Display,
    extrinsic: Sequence[ExtrinsicRecord] = (),
    *,
    extrinsic_replicates: Mapping[ExtrinsicKey, np.ndarray] | None = None,
    extrinsic_seed_replicates: Mapping[ExtrinsicKey, Sequence[np.ndarray]] | None = None,
) -> Studies:
    """Robustness, comparisons (corrected per family, the downstream ones in their own)
    and correlations (with two-level intervals) of one audit (see the package
    docstring)."""
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import SCORERS
    from audit.stats.comparison import paired_record, prepare_paired
    from audit.stats.comparison_family import (
        PendingComparison,
        correct_families,
        correct_family,
    )
    from audit.stats.robustness import robustness_study

    studies = Studies()
    pending: list[PendingComparison] = []
    models = _models_by_unit_kind(schedule, settings.model_order)
    robustness = settings.robustness
    for (dataset, scorer), by_measure in _tasks_by_unit_kind(schedule).items():
        members = [m for m in models[(dataset, scorer)] if (m, dataset, scorer) in frames]
        group_frames = {m: frames[(m, dataset, scorer)] for m in members}
        scorer_info = SCORERS.entry(scorer.name).info
        for measure in by_measure:
            entry = MEASURES.entry(measure.name)
            if not entry.has_role("resamplable"):
                continue
            common: dict[str, Any] = dict(
                measure=measure,
                scorer=scorer,
                implementation=MEASURES.load(measure.name),
                scorer_info=scorer_info,
                options=entry.options.model_validate(measure.options),
                ideal_value=entry.ideal_value,
            )
            if robustness is not None:
                display.info(f"robustness: {measure.label} on {dataset} ({scorer.label})")
                studies.robustness.extend(
                    robustness_study(
                        group_frames,
                        rates=robustness.rates,
                        repeats=robustness.repeats,
                        agreement=robustness.agreement,
                        seed=robustness.seed if robustness.seed is not None else settings.seed,
                        **common,
                    )
                )
            if settings.bootstrap > 0 and len(members) > 1:
                key = (measure.key, dataset, scorer.key)
                studies.replicates[key] = item_replicates(group_frames, settings, **common)
            if entry.ideal_value is None or settings.bootstrap < 1:
                continue  # a paired comparison needs an ideal value and bootstrap draws
            for later in range(1, len(members)):
                for earlier in range(later):
                    a, b = members[later], members[earlier]
                    if not settings.compared(a, b):
                        continue
                    paired = prepare_paired(
                        group_frames[a],
                        group_frames[b],
                        model_a=a,
                        model_b=b,
                        exact_difference=entry.has_role("pair_indicator"),
                        **common,
                    )
                    record = paired_record(
                        paired,
                        frames={a: group_frames[a], b: group_frames[b]},
                        model_a=a,
                        model_b=b,
                        alpha=settings.alpha,
                        n_bootstrap=settings.bootstrap,
                        seed=settings.seed,
                    )
                    pending.append(
                        PendingComparison(record, retest_with(paired, seed=settings.seed))
                    )
    studies.comparisons = correct_families(
        pending,
        family_of=settings.comparison_family,
        correction=settings.comparison_correction,
        alpha=settings.alpha,
        power=settings.comparison_power,
    )
    downstream = downstream_comparisons(settings, extrinsic, extrinsic_seed_replicates or {})
    if downstream:
        studies.comparisons += correct_family(
            downstream,
            family=DOWNSTREAM_FAMILY,
            correction=settings.comparison_correction,
            alpha=settings.alpha,
            power=settings.comparison_power,
        )
    studies.correlations = correlations(
        settings,
        measurements,
        extrinsic,
        replicates=studies.replicates,
        extrinsic_replicates=extrinsic_replicates,
    )
    return studies


def item_replicates(
    frames: Mapping[str, pd.DataFrame], settings: StudySettings, **common: Any
) -> dict[str, np.ndarray]:
    """Each model's value of a measure on the audit's bootstrap resamples of its items (the
    same draws for every model: the items are shared); {} when the models' items differ."""
    from audit.stats.comparison import group_replicates
    from audit.stats.draws import bootstrap_draws
    from audit.stats.inputs import StatisticsInputError, prepare_aligned, require_resamplable

    obj = require_resamplable(common["measure"], common["implementation"])
    try:
        aligned = prepare_aligned(frames, implementation=obj, scorer_info=common["scorer_info"])
    except StatisticsInputError:
        return {}
    first = next(iter(aligned.values()))
    draws = bootstrap_draws(first.strata, n_resamples=settings.bootstrap, seed=settings.seed)
    return {
        model: np.asarray(group_replicates(obj, data, draws, "all", common["options"]))
        for model, data in aligned.items()
    }
