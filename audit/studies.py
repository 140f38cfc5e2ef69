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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np

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
    from audit.stats.comparison import PairedData
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
    #: Variants that are bias-controlled ratio models (their comparisons are a family).
    ratio_models: frozenset[str] = frozenset()
    #: Correlations: the multiple-comparison correction of each family of tests.
    correction: Correction = "holm"
    #: Correlations: keep extrinsic values whose fine-tuning failed the dev check.
    keep_failed_dev_check: bool = False
    #: Correlations: the population Kendall tau a conclusive table detects with `power`.
    effect_size: float = 0.5
    power: float = 0.8
    #: Comparisons: the correction over each family, and the power of the detectable
    #: difference.
    comparison_correction: Correction = "holm"
    comparison_power: float = 0.8
    #: Each model's type (masked, causal): a correlation names the families it mixes.
    model_types: Mapping[str, str] = field(default_factory=dict)

    def compared(self, a: str, b: str) -> bool:
        """Whether model a (later) is compared with b (earlier): two spec models always;
        a variant only with its own base."""
        base_a, base_b = self.variant_bases.get(a), self.variant_bases.get(b)
        if base_a is None and base_b is None:
            return True
        return base_a == b

    def comparison_family(self, record: ComparisonRecord) -> str:
        """The family a comparison is corrected in (the set page 1 counts)."""
        if record.model_a in self.ratio_models:
            return RATIO_FAMILY
        if record.model_a in self.variant_bases:
            return VARIANT_FAMILY
        return MODEL_FAMILY


#: The families of paired comparisons (`ComparisonRecord.test_family`).
VARIANT_FAMILY = "variants against their base"
RATIO_FAMILY = "ratio models against their base"
MODEL_FAMILY = "models against each other"

#: A series' item replicates: (measure key, dataset, scorer key) -> model -> the measure's
#: value on each of the audit's item resamples (shape (B,)).
SeriesKey = tuple[tuple[str, str], str, tuple[str, str] | None]
ItemReplicates = dict[SeriesKey, dict[str, "np.ndarray"]]


@dataclass
class Studies:
    robustness: list[RobustnessRecord] = field(default_factory=list)
    correlations: list[CorrelationRecord] = field(default_factory=list)
    comparisons: list[ComparisonRecord] = field(default_factory=list)
    #: In memory only (not in results.json): each intrinsic series' values on the item
    #: resamples, for the two-level bootstraps (correlations, the meta-evaluation).
    replicates: ItemReplicates = field(default_factory=dict)


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
    *,
    extrinsic_replicates: Mapping[ExtrinsicKey, np.ndarray] | None = None,
) -> Studies:
    """Robustness, comparisons (corrected per family) and correlations (with two-level
    intervals) of one audit (see the module docstring)."""
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import SCORERS
    from audit.stats.comparison import paired_record, prepare_paired
    from audit.stats.comparison_family import PendingComparison, correct_families
    from audit.stats.robustness import robustness_study

    studies = Studies()
    pending: list[PendingComparison] = []
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
    studies.correlations = correlations(
        settings,
        measurements,
        extrinsic,
        replicates=studies.replicates,
        extrinsic_replicates=extrinsic_replicates,
    )
    return studies


#: An extrinsic record's replicates: (measure key, dataset, model).
ExtrinsicKey = tuple[tuple[str, str], str, str]

#: The seed offset of a redrawn p-value's resamples (apart from the intervals' draws).
RETEST_SEED_OFFSET = 1_000_003


def retest_with(paired: PairedData, *, seed: int) -> Callable[[int], tuple[float | None, float]]:
    """How a comparison's bootstrap p-values are redrawn with more resamples: seeded from
    the audit's seed, apart from the draws of its intervals."""

    def retest(n_resamples: int) -> tuple[float | None, float]:
        return paired.pvalues(n_resamples, seed + RETEST_SEED_OFFSET)

    return retest


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


def correlations(
    settings: StudySettings,
    measurements: list[Measurement],
    extrinsic: Sequence[ExtrinsicRecord] = (),
    *,
    replicates: ItemReplicates | None = None,
    extrinsic_replicates: Mapping[ExtrinsicKey, np.ndarray] | None = None,
) -> list[CorrelationRecord]:
    """Correlation of every two series across the audit's models: one per intrinsic
    (measure, dataset, scorer), then one per extrinsic (task measure, dataset). Each value
    enters as its distance to the measure's ideal value; a measure without one is left out.
    An extrinsic value whose fine-tuning failed the task's dev check is left out (and
    named) unless the spec keeps it. The p-values of each family (intrinsic x extrinsic,
    intrinsic, extrinsic) are corrected together; pairs that are one by construction are
    marked and not tested; each pair gets a two-level bootstrap interval from the item
    replicates there are (intrinsic: `replicates`; extrinsic: `extrinsic_replicates`)."""
    from audit.measures.catalog import MEASURES
    from audit.stats.correlation import correlate_measures

    series: dict[MeasureSeries, dict[str, float | None]] = {}
    kinds: dict[MeasureSeries, str] = {}
    excluded: dict[MeasureSeries, list[ExcludedModel]] = {}
    failed: dict[MeasureSeries, list[str]] = {}
    distances: dict[MeasureSeries, dict[str, np.ndarray]] = {}

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
        reps = (replicates or {}).get((m.measure.key, m.dataset, m.scorer.key), {})
        if m.model in reps:
            distances.setdefault(key, {})[m.model] = np.abs(reps[m.model] - ideal)
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
        found = (extrinsic_replicates or {}).get((record.measure.key, record.dataset, record.model))
        if found is not None:
            distances.setdefault(key, {})[record.model] = np.abs(found - record.ideal_value)
    measured = {model for values in series.values() for model in values}
    if len(measured) < 2 or len(series) < 2:
        return []
    records = correlate_measures(
        series,
        seed=settings.seed,
        alpha=settings.alpha,
        correction=settings.correction,
        family_of=lambda x, y: _family(kinds[x], kinds[y]),
        related=same_fits,
        replicates=distances,
        n_bootstrap=settings.bootstrap,
        effect_size=settings.effect_size,
        target_power=settings.power,
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


def same_fits(x: MeasureSeries, y: MeasureSeries) -> str:
    """Why two series are functions of the same fits of the same scores ('' when not):
    two `gaussian_fit` measures (KLS, JSS) on the same dataset and scorer."""
    from audit.measures.catalog import MEASURES

    if x.scorer is None or y.scorer is None or (x.dataset, x.scorer) != (y.dataset, y.scorer):
        return ""
    names = (x.measure.name, y.measure.name)
    if all(n in MEASURES and MEASURES.entry(n).has_role("gaussian_fit") for n in names):
        return (
            f"both are computed from the same Gaussian fits of the same {x.scorer.label} "
            f"scores on {x.dataset}: related by construction"
        )
    return ""


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
    entry = MEASURES.entry(measure.name)
    return compare_models(
        frame_a,
        frame_b,
        measure=measure,
        scorer=scorer,
        implementation=MEASURES.load(measure.name),
        scorer_info=SCORERS.entry(scorer.name).info,
        options=entry.options.model_validate(measure.options),
        exact_difference=entry.has_role("pair_indicator"),
        **settings,
    )


class RunComparisonTests:
    """The paired tests of `audit compare`, then judged together: every record of the
    comparison is one family ("the candidate against the baseline"), corrected by
    `correction`, its bootstrap p-values redrawn with more resamples where the correction
    needs them (`audit.stats.comparison_family`). Called like `paired_test`."""

    FAMILY = "the candidate against the baseline"

    def __init__(self, correction: Correction = "holm", power: float = 0.8) -> None:
        self.correction = correction
        self.power = power
        self._retests: dict[tuple[object, ...], Callable[[int], tuple[float | None, float]]] = {}

    @staticmethod
    def _key(record: ComparisonRecord) -> tuple[object, ...]:
        return (
            record.model_a,
            record.model_b,
            record.measure.key,
            record.dataset,
            record.scorer.key,
            record.group,
        )

    def __call__(
        self,
        frame_a: pd.DataFrame,
        frame_b: pd.DataFrame,
        *,
        measure: PluginId,
        scorer: PluginId,
        **settings: Unpack[PairedSettings],
    ) -> ComparisonRecord:
        try:
            from audit.measures.catalog import MEASURES
            from audit.scoring.catalog import SCORERS
            from audit.stats.comparison import paired_record, prepare_paired
            from audit.stats.inputs import StatisticsInputError
        except ImportError as error:
            raise AuditUserError(f"the measure code cannot be imported ({error})") from None
        entry = MEASURES.entry(measure.name)
        if settings["n_bootstrap"] < 1:
            raise StatisticsInputError(
                f"a paired bootstrap needs n_bootstrap >= 1 (got {settings['n_bootstrap']})"
            )
        paired = prepare_paired(
            frame_a,
            frame_b,
            measure=measure,
            scorer=scorer,
            implementation=MEASURES.load(measure.name),
            scorer_info=SCORERS.entry(scorer.name).info,
            options=entry.options.model_validate(measure.options),
            ideal_value=settings["ideal_value"],
            model_a=settings["model_a"],
            model_b=settings["model_b"],
            exact_difference=entry.has_role("pair_indicator"),
        )
        record = paired_record(
            paired,
            frames={settings["model_a"]: frame_a, settings["model_b"]: frame_b},
            model_a=settings["model_a"],
            model_b=settings["model_b"],
            alpha=settings["alpha"],
            n_bootstrap=settings["n_bootstrap"],
            seed=settings["seed"],
        )
        self._retests[self._key(record)] = retest_with(paired, seed=settings["seed"])
        return record

    def judge(self, records: Sequence[ComparisonRecord]) -> list[ComparisonRecord]:
        """The comparison's records corrected together (untested records pass unchanged)."""
        from audit.stats.comparison_family import PendingComparison, correct_family

        if not records:
            return []
        return correct_family(
            [PendingComparison(r, self._retests.get(self._key(r))) for r in records],
            family=self.FAMILY,
            correction=self.correction,
            alpha=records[0].alpha,
            power=self.power,
        )
