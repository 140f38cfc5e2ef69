"""The correlation study: every two measure series across the audit's models, each value
as its distance to the measure's ideal value, with two-level bootstrap intervals from the
item replicates there are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from audit.ids import PluginId
from audit.results import CorrelationRecord, ExcludedModel, Measurement, MeasureSeries
from audit.studies.settings import ItemReplicates, StudySettings

if TYPE_CHECKING:
    from audit.results import DevCheck, ExtrinsicRecord

#: An extrinsic record's replicates: (measure key, dataset, model).
ExtrinsicKey = tuple[tuple[str, str], str, str]


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
