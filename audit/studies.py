"""Cross-model studies run after the measures: robustness to dataset size (Liu 2024),
correlation between measures across models, and paired comparison of models.

Which studies apply:
- robustness: when the spec has `robustness:`, for every (dataset, scorer, measure)
  that can be redrawn (not corpus measures), over the models scored that way;
- correlations: when at least two models and two (measure, dataset) series exist; a
  model's value for a series comes from the first of its scorers that measured it, so
  masked and causal models can be compared; below 5 models the records say that no
  correlation can be concluded;
- comparisons: every two models scored with the same scorer on the same dataset, for
  every measure with an ideal value, group `all`; the later model in the spec is the
  candidate (A), the earlier one the baseline (B).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.results import Measurement
from audit.stats.records import ComparisonRecord, CorrelationRecord, RobustnessRecord

if TYPE_CHECKING:
    import pandas as pd

    from audit.display import Display
    from audit.engine import Prepared
    from audit.plan import MeasureTask


@dataclass
class Studies:
    robustness: list[RobustnessRecord] = field(default_factory=list)
    correlations: list[CorrelationRecord] = field(default_factory=list)
    comparisons: list[ComparisonRecord] = field(default_factory=list)


def _resamplable(name: str) -> bool:
    from audit.measures.catalog import MEASURES

    return MEASURES.entry(name).meta["applies_to"] != "corpus"


def _ideal(name: str) -> float | None:
    from audit.measures.catalog import MEASURES

    return getattr(MEASURES.entry(name).meta["card"], "ideal_value", None)


def _tasks_by_unit_kind(prepared: Prepared) -> dict[tuple[str, str], dict[str, MeasureTask]]:
    """(dataset, scorer label) -> measure label -> one task (any model's)."""
    out: dict[tuple[str, str], dict[str, MeasureTask]] = {}
    for task in prepared.plan.measures:
        key = (task.unit.dataset, task.unit.label)
        out.setdefault(key, {}).setdefault(task.label, task)
    return out


def _models_by_unit_kind(prepared: Prepared) -> dict[tuple[str, str], list[str]]:
    order = [m.id for m in prepared.loaded.spec.models]
    out: dict[tuple[str, str], list[str]] = {}
    for unit in prepared.plan.units:
        out.setdefault((unit.dataset, unit.label), []).append(unit.model)
    return {k: sorted(set(v), key=order.index) for k, v in out.items()}


def run_studies(
    prepared: Prepared,
    scores: pd.DataFrame,
    measurements: list[Measurement],
    display: Display,
) -> Studies:
    from audit.engine import unit_frames
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import scorer_info
    from audit.stats.comparison import compare_models
    from audit.stats.robustness import robustness_study

    spec = prepared.loaded.spec
    studies = Studies()
    frames = unit_frames(scores)
    tasks = _tasks_by_unit_kind(prepared)
    models = _models_by_unit_kind(prepared)
    robustness = spec.robustness
    for (dataset, label), by_measure in tasks.items():
        members = models[(dataset, label)]
        group_frames = {m: frames[(m, dataset, label)] for m in members}
        for measure_label, task in by_measure.items():
            if not _resamplable(task.measure):
                continue
            info = scorer_info(task.unit.scorer)
            options = MEASURES.get(task.measure).options_model.model_validate(task.options)
            if robustness is not None:
                display.info(f"robustness: {measure_label} on {dataset} ({label})")
                records = robustness_study(
                    group_frames,
                    measure=task.measure,
                    scorer=info,
                    options=options,
                    rates=robustness.rates,
                    repeats=robustness.repeats,
                    agreement=robustness.agreement,
                    seed=robustness.seed if robustness.seed is not None else spec.seed,
                )
                studies.robustness.extend(
                    r.model_copy(update={"measure": measure_label, "scorer": label})
                    for r in records
                )
            if _ideal(task.measure) is None:
                continue
            for later in range(1, len(members)):
                for earlier in range(later):
                    a, b = members[later], members[earlier]
                    record = compare_models(
                        group_frames[a],
                        group_frames[b],
                        measure=task.measure,
                        scorer=info,
                        options=options,
                        model_a=a,
                        model_b=b,
                        alpha=spec.alpha,
                        n_bootstrap=spec.bootstrap,
                        seed=spec.seed,
                    )
                    studies.comparisons.append(
                        record.model_copy(update={"measure": measure_label, "scorer": label})
                    )
    studies.correlations = _correlations(prepared, measurements)
    return studies


def _correlations(prepared: Prepared, measurements: list[Measurement]) -> list[CorrelationRecord]:
    from audit.stats.correlation import correlate_measures

    spec = prepared.loaded.spec
    series: dict[str, dict[str, float | None]] = {}
    for m in measurements:
        if m.group != "all" or m.model == "corpus":
            continue
        key = f"{m.measure}@{m.dataset}"
        series.setdefault(key, {})
        if m.model not in series[key]:  # first scorer that measured this model
            series[key][m.model] = m.value if m.status == "ok" else None
    if len(spec.models) < 2 or len(series) < 2:
        return []
    return correlate_measures(series, seed=spec.seed)
