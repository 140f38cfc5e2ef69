"""Checks of the spec's `gates`: each names a measure, dataset, model and scorer the spec
has, a measure that can be gated (one with a confidence interval) and a dataset of the
shape the measure reads."""

from __future__ import annotations

from audit.measures.catalog import MEASURES
from audit.measures.seat_options import SENTENCE_SETS
from audit.registry import did_you_mean
from audit.spec.dataset_checks import dataset_shape_of
from audit.spec.models import DatasetSpec, GateSpec
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.reference_findings import not_in_spec, spec_names
from audit.spec.sections import Items, SpecSections

MODEL_TYPES = ("masked", "causal")


def check_gates(gates: Items[GateSpec], sections: SpecSections) -> list[Finding]:
    """A gate must name a measure, dataset, model and scorer that the spec has.

    A cross-reference is checked only when the list it refers to validated whole.
    """
    findings: list[Finding] = []
    measures = spec_names(sections.measures, lambda m: m.name)
    registry_only = measures is not None and any(name not in MEASURES for name in measures)
    if registry_only:
        # A misspelt measure is reported where it is misspelt; a gate on the measure
        # meant is right as it is, so gates are checked against the registry only.
        measures = None
    models = spec_names(sections.models, lambda m: m.id)
    datasets = None
    if sections.datasets is not None and sections.datasets.complete:
        datasets = {d.name: d for _, d in sections.datasets.valid()}
    for i, gate in gates.valid():
        loc: Loc = ("gates", i)
        if gate.measure in MEASURES and MEASURES.entry(gate.measure).shape == SENTENCE_SETS:
            findings.append(_ungateable(gate.measure, (*loc, "measure"), measures))
            continue
        if measures is not None and gate.measure not in measures:
            findings.append(
                not_in_spec("measure", gate.measure, (*loc, "measure"), measures, "measures")
            )
        elif registry_only and gate.measure not in MEASURES:
            hint = did_you_mean(gate.measure, MEASURES.names())
            findings.append(
                Finding(
                    (*loc, "measure"),
                    f"unknown measure '{gate.measure}'" + (f"; {hint}" if hint else ""),
                    got=show(gate.measure),
                    expected=one_of(MEASURES.names(), "measure"),
                )
            )
        if datasets is not None and gate.dataset not in datasets:
            findings.append(
                not_in_spec("dataset", gate.dataset, (*loc, "dataset"), list(datasets), "datasets")
            )
        if models is not None and gate.model is not None and gate.model not in models:
            findings.append(not_in_spec("model", gate.model, (*loc, "model"), models, "models"))
        if sections.scorers is not None and gate.scorer is not None:
            used = [r.name for t in MODEL_TYPES for r in getattr(sections.scorers, t)]
            if gate.scorer not in used:
                findings.append(
                    not_in_spec("scorer", gate.scorer, (*loc, "scorer"), used, "scorers")
                )
        if datasets is not None and gate.dataset in datasets and gate.measure in MEASURES:
            findings += _gate_shape(gate, datasets[gate.dataset], loc)
    return findings


def _ungateable(measure: str, loc: Loc, in_spec: list[str] | None) -> Finding:
    """A gate on SEAT (shape sentence_sets): its results are per-test effect sizes with a
    permutation p-value and no confidence interval, and a gate is judged on the interval;
    they are not measurements of a spec dataset either."""
    names = in_spec if in_spec is not None else MEASURES.names()
    gateable = [n for n in names if n in MEASURES and MEASURES.entry(n).shape != SENTENCE_SETS]
    return Finding(
        loc,
        f"measure '{measure}' cannot be gated: SEAT reports per test an effect size and a "
        "permutation p-value, with no confidence interval, and a gate is judged on the "
        "interval (it passes only when the whole interval lies in its band); read SEAT in "
        "the report, and gate a measure that has an interval",
        got=show(measure),
        expected=one_of(gateable, "measure with a confidence interval"),
    )


def _gate_shape(gate: GateSpec, dataset: DatasetSpec, loc: Loc) -> list[Finding]:
    measure_fits = MEASURES.entry(gate.measure).shape
    data_holds = dataset_shape_of(dataset)
    if data_holds is None or data_holds == measure_fits:
        return []
    return [
        Finding(
            (*loc, "dataset"),
            f"measure '{gate.measure}' applies to {measure_fits} datasets, but "
            f"'{dataset.name}' holds {data_holds}",
            got=show(dataset.name),
            expected=f"a {measure_fits} dataset",
        )
    ]
