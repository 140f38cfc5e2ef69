"""Cross-model studies run after the measures: robustness to dataset size (Liu 2024),
correlation between measures across models, and paired comparison of models.

Which studies apply:
- robustness: when the spec has `robustness:`, for every (dataset, scorer, measure) whose
  measure is `resamplable`, over the models scored that way;
- correlations: when at least two models were measured and two series exist: one per
  intrinsic (measure, dataset, scorer), over the models that scorer measured (in the
  measurements' order), then one per extrinsic (task measure, dataset), from the
  `ExtrinsicRecord`s; every two series with two models in common are correlated. Every
  value enters as its distance to the measure's ideal value (|value - ideal|; a measure
  without an ideal value is left out). An extrinsic value whose fine-tuning failed the
  task's dev check is left out and named in the records (`excluded`), unless the spec
  keeps it (`correlations.failed_dev_check: keep`). The p-values of each family of tests
  (intrinsic x extrinsic, intrinsic, extrinsic) are corrected together (Holm, or
  Benjamini-Hochberg), and a record is conclusive only where its corrected Kendall test
  can reach significance with its number of models (`audit.stats.correlation`);
- comparisons: every two models scored with the same scorer on the same dataset, for
  every resamplable measure with an ideal value, group `all`; the later model in the spec
  is the candidate (A), the earlier one the baseline (B). A variant is compared with its
  own base only (A = the variant, B = the base). None when the spec sets
  `bootstrap: 0` (no intervals): the paired test is a bootstrap.

Inputs are plain: the settings, the plan, the score frames by unit, the measurements and
the extrinsic records; nothing here knows the run's orchestration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Unpack

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.results import (
    ComparisonRecord,
    CorrelationRecord,
    ExcludedModel,
    Measurement,
    MeasureSeries,
    RobustnessRecord,
)

if TYPE_CHECKING:
    import pandas as pd

    from audit.comparison.paired import PairedSettings
    from audit.display import Display
    from audit.plan import MeasureTask, Plan
    from audit.results import DevCheck, ExtrinsicRecord
    from audit.spec.models import RobustnessSpec
    from audit.stats.multiple_testing import Correction

UnitKey = tuple[str, str, PluginId]  # (model, dataset, scorer)


@dataclass(frozen=True)
class StudySettings:
    """What the studies take from the spec."""

    model_order: Sequence[str]
    seed: int
    alpha: float
    bootstrap: int
    robustness: RobustnessSpec | None = None
    variant_bases: Mapping[str, str] = field(default_factory=dict)
    #: Correlations: the multiple-comparison correction of each family of tests.
    correction: Correction = "holm"
    #: Correlations: keep extrinsic values whose fine-tuning failed the dev check.
    keep_failed_dev_check: bool = False
    #: Each model's type (masked, causal): a correlation names the families it mixes.
    model_types: Mapping[str, str] = field(default_factory=dict)

    def compared(self, a: str, b: str) -> bool:
        """Whether model a (later) is compared with b (earlier): two spec models always;
        a variant only with its own base."""
        base_a, base_b = self.variant_bases.get(a), self.variant_bases.get(b)
        if base_a is None and base_b is None:
            return True
        return base_a == b


@dataclass
class Studies:
    robustness: list[RobustnessRecord] = field(default_factory=list)
    correlations: list[CorrelationRecord] = field(default_factory=list)
    comparisons: list[ComparisonRecord] = field(default_factory=list)


def _tasks_by_unit_kind(plan: Plan) -> dict[tuple[str, PluginId], dict[PluginId, MeasureTask]]:
    """(dataset, scorer) -> measure -> one task (any model's)."""
    out: dict[tuple[str, PluginId], dict[PluginId, MeasureTask]] = {}
    for task in plan.measures:
        key = (task.unit.dataset, task.unit.scorer)
        out.setdefault(key, {}).setdefault(task.measure, task)
    return out


def _models_by_unit_kind(plan: Plan, order: Sequence[str]) -> dict[tuple[str, PluginId], list[str]]:
    out: dict[tuple[str, PluginId], list[str]] = {}
    for unit in plan.units:
        out.setdefault((unit.dataset, unit.scorer), []).append(unit.model)
    return {k: sorted(set(v), key=list(order).index) for k, v in out.items()}


def run_studies(
    settings: StudySettings,
    plan: Plan,
    frames: Mapping[UnitKey, pd.DataFrame],
    measurements: list[Measurement],
    display: Display,
    extrinsic: Sequence[ExtrinsicRecord] = (),
) -> Studies:
    """Robustness, comparisons and correlations of one audit (see the module docstring)."""
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import SCORERS
    from audit.stats.comparison import compare_models
    from audit.stats.robustness import robustness_study

    studies = Studies()
    models = _models_by_unit_kind(plan, settings.model_order)
    robustness = settings.robustness
    for (dataset, scorer), by_measure in _tasks_by_unit_kind(plan).items():
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
            if entry.ideal_value is None or settings.bootstrap < 1:
                continue  # a paired comparison needs an ideal value and bootstrap draws
            for later in range(1, len(members)):
                for earlier in range(later):
                    a, b = members[later], members[earlier]
                    if not settings.compared(a, b):
                        continue
                    studies.comparisons.append(
                        compare_models(
                            group_frames[a],
                            group_frames[b],
                            model_a=a,
                            model_b=b,
                            alpha=settings.alpha,
                            n_bootstrap=settings.bootstrap,
                            seed=settings.seed,
                            **common,
                        )
                    )
    studies.correlations = correlations(settings, measurements, extrinsic)
    return studies


def correlations(
    settings: StudySettings,
    measurements: list[Measurement],
    extrinsic: Sequence[ExtrinsicRecord] = (),
) -> list[CorrelationRecord]:
    """Correlation of every two series across the audit's models: one per intrinsic
    (measure, dataset, scorer), then one per extrinsic (task measure, dataset). Each value
    enters as its distance to the measure's ideal value; a measure without one is left out.
    An extrinsic value whose fine-tuning failed the task's dev check is left out (and
    named) unless the spec keeps it. The p-values of each family (intrinsic x extrinsic,
    intrinsic, extrinsic) are corrected together."""
    from audit.measures.catalog import MEASURES
    from audit.stats.correlation import correlate_measures

    series: dict[MeasureSeries, dict[str, float | None]] = {}
    kinds: dict[MeasureSeries, str] = {}
    excluded: dict[MeasureSeries, list[ExcludedModel]] = {}
    failed: dict[MeasureSeries, list[str]] = {}

    def axis(
        measure: PluginId, dataset: str, scorer: PluginId | None, ideal: float, kind: str
    ) -> MeasureSeries:
        label = f"{measure.label} on {dataset}" + (f" ({scorer.label})" if scorer else "")
        key = MeasureSeries(
            measure=measure,
            dataset=dataset,
            scorer=scorer,
            label=label,
            scale="distance",
            ideal_value=ideal,
        )
        kinds.setdefault(key, kind)
        return key

    for m in measurements:
        if m.group != "all" or m.model == "corpus" or m.measure.name not in MEASURES:
            continue
        ideal = MEASURES.entry(m.measure.name).ideal_value
        if ideal is None:
            continue  # no ideal value, no distance to it
        key = axis(m.measure, m.dataset, m.scorer, ideal, "intrinsic")
        value = m.value if m.status == "ok" else None
        series.setdefault(key, {})[m.model] = None if value is None else abs(value - ideal)
    for record in extrinsic:
        if record.ideal_value is None:
            continue
        key = axis(record.measure, record.dataset, None, record.ideal_value, "extrinsic")
        values = series.setdefault(key, {})
        check = record.dev_check
        if check is not None and not check.passed:
            if not settings.keep_failed_dev_check:
                excluded.setdefault(key, []).append(
                    ExcludedModel(model=record.model, series=key.label, reason=_failed(check))
                )
                continue
            failed.setdefault(key, []).append(record.model)
        value = record.value
        values[record.model] = None if value is None else abs(value - record.ideal_value)
    measured = {model for values in series.values() for model in values}
    if len(measured) < 2 or len(series) < 2:
        return []
    records = correlate_measures(
        series,
        seed=settings.seed,
        alpha=settings.alpha,
        correction=settings.correction,
        family_of=lambda x, y: _family(kinds[x], kinds[y]),
    )
    types = settings.model_types
    return [
        r.model_copy(
            update={
                "model_types": list(dict.fromkeys(types[m] for m in r.models if m in types)),
                "excluded": [e for s in (r.x, r.y) for e in excluded.get(s, [])],
                "failed_kept": [m for s in (r.x, r.y) for m in failed.get(s, []) if m in r.models],
            }
        )
        for r in records
    ]


def _family(a: str, b: str) -> str:
    """The family of tests a pair of series belongs to."""
    return a if a == b else "intrinsic x extrinsic"


def _failed(check: DevCheck) -> str:
    value = "no value" if check.value is None else f"{check.value:.2f}"
    return f"dev {check.metric} {value} < floor {check.floor:.2f}: the task was not learned"


def paired_test(
    frame_a: pd.DataFrame,
    frame_b: pd.DataFrame,
    *,
    measure: PluginId,
    scorer: PluginId,
    **settings: Unpack[PairedSettings],
) -> ComparisonRecord:
    """The paired test `audit compare` runs: `audit.stats.comparison.compare_models` with
    the measure and scorer the ids name. Without the measure code (an install without the
    registries) it is an AuditUserError, and the comparison shows the values untested."""
    try:
        from audit.measures.catalog import MEASURES
        from audit.scoring.catalog import SCORERS
        from audit.stats.comparison import compare_models
    except ImportError as error:
        raise AuditUserError(f"the measure code cannot be imported ({error})") from None
    return compare_models(
        frame_a,
        frame_b,
        measure=measure,
        scorer=scorer,
        implementation=MEASURES.load(measure.name),
        scorer_info=SCORERS.entry(scorer.name).info,
        options=MEASURES.entry(measure.name).options.model_validate(measure.options),
        **settings,
    )
