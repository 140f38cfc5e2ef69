"""Release gates: thresholds from the spec's `gates`, judged with each measurement's CI.

A gate passes only when the whole confidence interval lies inside its band, fails when the
whole interval lies outside it, and is inconclusive otherwise: when the interval crosses a
bound, or when the measurement is missing, undefined or has no interval. `audit run` exits
with `gate_exit_code(...)`: 0 when every gate passes, 3 when any fails or is inconclusive.

This module reads only `audit.results` types: the gates come resolved (`Gate.low`/`high`)
in `AuditResult.gates`, and `evaluate_gates` judges them on `AuditResult.measurements`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from audit.ids import PluginId
from audit.results import AuditResult, Gate, GateVerdict, Measurement, Verdict

#: Exit code of `audit run` when any gate fails or is inconclusive.
GATE_FAILURE_EXIT_CODE = 3


class BandWords(NamedTuple):
    """One way to put a band in words: a `str.format` template of `low` and `high` for a
    band with both bounds, one for a lower bound only and one for an upper bound only."""

    both: str
    low_only: str
    high_only: str
    unbounded: str = "any value"

    def __call__(self, low: float | None, high: float | None) -> str:
        if low is not None and high is not None:
            return self.both.format(low=low, high=high)
        if low is not None:
            return self.low_only.format(low=low)
        if high is not None:
            return self.high_only.format(high=high)
        return self.unbounded


#: The band for the terminal: 'within [45, 55]', '>= 0.4' or '<= 10'.
describe_band = BandWords("within [{low:g}, {high:g}]", ">= {low:g}", "<= {high:g}")
#: The band for people (the report): '45–55', 'at least 0.5' or 'at most 10'.
plain_band = BandWords("{low:g}\u2013{high:g}", "at least {low:g}", "at most {high:g}")
#: The band for a sentence: 'the band 45–55', 'at least 0.5' or 'at most 10'.
_band_words = plain_band._replace(both="the band " + plain_band.both)


def judge_interval(
    ci_low: float, ci_high: float, low: float | None, high: float | None
) -> tuple[Verdict, str]:
    """PASS when [ci_low, ci_high] lies inside the band, FAIL when outside, else
    INCONCLUSIVE; the reason says it in words ('the interval crosses the bound 0.5')."""
    lo = -math.inf if low is None else low
    hi = math.inf if high is None else high
    band = _band_words(low, high)
    both = low is not None and high is not None
    of_band = f" of {band}" if both else ""
    if ci_low >= lo and ci_high <= hi:
        if both:
            return "PASS", f"the whole interval lies inside {band}"
        side = f"at or above {lo:g}" if low is not None else f"at or below {hi:g}"
        return "PASS", f"the whole interval lies {side}"
    if ci_high < lo:
        return "FAIL", f"the whole interval lies below {band if both else f'{lo:g}'}"
    if ci_low > hi:
        return "FAIL", f"the whole interval lies above {band if both else f'{hi:g}'}"
    # Neither inside nor wholly outside: the interval reaches past the lower or upper
    # bound (or past both) and still overlaps the band.
    crossed = [x for x, past in ((lo, ci_low < lo), (hi, ci_high > hi)) if past]
    if len(crossed) > 1:
        return "INCONCLUSIVE", f"the interval reaches past both edges{of_band}"
    edge = "edge" if both else "bound"
    side = ("lower " if crossed[0] == lo else "upper ") if both else ""
    return "INCONCLUSIVE", f"the interval crosses the {side}{edge} {crossed[0]:g}{of_band}"


def id_matches(plugin: PluginId, wanted: str) -> bool:
    """Whether a gate's `measure`/`scorer` names `plugin`: its name (any options) or its
    exact label."""
    return plugin.name == wanted or plugin.label == wanted


def _measure_ids(gate: Gate, measurements: Iterable[Measurement]) -> set[PluginId]:
    """The measure ids a gate means: those labelled exactly as the gate says when there
    are any, else every id of that name."""
    ids = {m.measure for m in measurements}
    exact = {i for i in ids if i.label == gate.measure}
    return exact or {i for i in ids if i.name == gate.measure}


def _candidates(gate: Gate, result: AuditResult) -> list[Measurement]:
    wanted = _measure_ids(gate, result.measurements)
    return [
        m
        for m in result.measurements
        if m.dataset == gate.dataset
        and m.measure in wanted
        and (gate.model is None or m.model == gate.model)
        and (gate.scorer is None or id_matches(m.scorer, gate.scorer))
    ]


def _judge_measurement(index: int, gate: Gate, m: Measurement) -> GateVerdict:
    if m.status != "ok" or m.value is None:
        verdict: Verdict = "INCONCLUSIVE"
        reason = f"measure undefined: {m.note or 'no value'}"
    elif m.ci_low is None or m.ci_high is None:
        verdict = "INCONCLUSIVE"
        reason = "the value has no confidence interval" + (f" ({m.note})" if m.note else "")
    else:
        verdict, reason = judge_interval(m.ci_low, m.ci_high, gate.low, gate.high)
    return GateVerdict(
        gate_index=index,
        measure=m.measure,
        dataset=m.dataset,
        model=m.model,
        scorer=m.scorer,
        group=m.group,
        low=gate.low,
        high=gate.high,
        value=m.value,
        ci_low=m.ci_low,
        ci_high=m.ci_high,
        verdict=verdict,
        reason=reason,
    )


def _named_id(wanted: str, ids: Iterable[PluginId]) -> PluginId:
    """The id a gate names, for a verdict without a measurement: a measured id with that
    exact label, else an id of that name without options."""
    return next((i for i in ids if i.label == wanted), PluginId.of(wanted))


def _missing(
    index: int, gate: Gate, result: AuditResult, model: str | None, why: str
) -> GateVerdict:
    measured = result.measurements
    return GateVerdict(
        gate_index=index,
        measure=_named_id(gate.measure, (m.measure for m in measured)),
        dataset=gate.dataset,
        model=model,
        scorer=None
        if gate.scorer is None
        else _named_id(gate.scorer, (m.scorer for m in measured)),
        group=gate.group,
        low=gate.low,
        high=gate.high,
        verdict="INCONCLUSIVE",
        reason=why,
    )


def evaluate_gate(index: int, gate: Gate, result: AuditResult) -> list[GateVerdict]:
    """Every verdict of one gate: one per model x scorer x group it covers."""
    models = [gate.model] if gate.model is not None else [m.id for m in result.models]
    candidates = _candidates(gate, result)
    verdicts: list[GateVerdict] = []
    for model in models:
        mine = [m for m in candidates if m.model == model]
        if gate.group == "*":
            mine = [m for m in mine if m.group != "all"]
            missing_why = "no per-group measurement"
        else:
            mine = [m for m in mine if m.group == gate.group]
            missing_why = f"no measurement for group '{gate.group}'"
        if not mine:
            where = f"{gate.measure} on {gate.dataset} for model '{model}'"
            scorer = f" with scorer '{gate.scorer}'" if gate.scorer else ""
            why = f"{missing_why}: {where}{scorer}"
            verdicts.append(_missing(index, gate, result, model, why))
            continue
        verdicts.extend(_judge_measurement(index, gate, m) for m in mine)
    if not models:
        verdicts.append(_missing(index, gate, result, None, "the results hold no model"))
    return verdicts


def evaluate_gates(result: AuditResult) -> list[GateVerdict]:
    """Judge every gate of `result.gates` on its measurements; [] when there is none."""
    verdicts: list[GateVerdict] = []
    for index, gate in enumerate(result.gates):
        verdicts.extend(evaluate_gate(index, gate, result))
    return verdicts


def gate_exit_code(verdicts: Sequence[GateVerdict]) -> int:
    """0 when every verdict is PASS (or there is no gate), 3 when any fails or is inconclusive."""
    if all(v.verdict == "PASS" for v in verdicts):
        return 0
    return GATE_FAILURE_EXIT_CODE


def describe_verdict(verdict: GateVerdict) -> str:
    """One line for the terminal: verdict, what was judged, value with CI, and why."""
    scorer = verdict.scorer.label if verdict.scorer is not None else None
    where = "/".join(x for x in (verdict.model, scorer, verdict.group) if x)
    value = "no value" if verdict.value is None else f"{verdict.value:.4g}"
    if verdict.ci_low is not None and verdict.ci_high is not None:
        value += f" (CI {verdict.ci_low:.4g} to {verdict.ci_high:.4g})"
    band = describe_band(verdict.low, verdict.high)
    return (
        f"gate {verdict.gate_index + 1} {verdict.verdict}: {verdict.measure.label} on "
        f"{verdict.dataset} [{where}] = {value}, required {band}: {verdict.reason}"
    )
