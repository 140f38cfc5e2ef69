"""Release gates: thresholds from the spec's `gates`, judged with each measurement's CI.

A gate passes only when the whole confidence interval lies inside its band, fails when the
whole interval lies outside it, and is inconclusive otherwise: when the interval straddles a
bound, or when the measurement is missing, undefined or has no interval. `audit run` exits
with `gate_exit_code(...)`: 0 when every gate passes, 3 when any fails or is inconclusive.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from audit.errors import AuditUserError
from audit.results import AuditResult, Measurement
from audit.spec.models import GateSpec

Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]

#: Exit code of `audit run` when any gate fails or is inconclusive.
GATE_FAILURE_EXIT_CODE = 3


class GateVerdict(BaseModel):
    """One gate judged on one measurement (a gate with `group: '*'` or no model gives several)."""

    model_config = ConfigDict(extra="forbid")

    gate_index: int
    measure: str
    dataset: str
    model: str | None
    scorer: str | None
    group: str
    low: float | None
    high: float | None
    value: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    verdict: Verdict
    reason: str


def gate_band(gate: GateSpec) -> tuple[float | None, float | None]:
    """The accepted band of a gate: (low, high), None for an open side."""
    low = gate.within[0] if gate.within is not None else None
    high = gate.within[1] if gate.within is not None else None
    if gate.min is not None:
        low = gate.min if low is None else max(low, gate.min)
    if gate.max is not None:
        high = gate.max if high is None else min(high, gate.max)
    return low, high


def describe_band(low: float | None, high: float | None) -> str:
    """The band in words: 'within [45, 55]', '>= 0.4' or '<= 10'."""
    if low is not None and high is not None:
        return f"within [{low:g}, {high:g}]"
    if low is not None:
        return f">= {low:g}"
    return f"<= {high:g}"


def judge_interval(
    ci_low: float, ci_high: float, low: float | None, high: float | None
) -> tuple[Verdict, str]:
    """PASS when [ci_low, ci_high] lies inside the band, FAIL when outside, else INCONCLUSIVE."""
    lo = -math.inf if low is None else low
    hi = math.inf if high is None else high
    band = describe_band(low, high)
    if ci_low >= lo and ci_high <= hi:
        return "PASS", f"the whole CI lies {band}"
    if ci_high < lo or ci_low > hi:
        return "FAIL", f"the whole CI lies outside {band}"
    return "INCONCLUSIVE", f"the CI straddles a bound of {band}"


def _measure_matches(label: str, wanted: str) -> bool:
    return label == wanted or label.split("[", 1)[0] == wanted


def parse_gates(spec: dict[str, Any]) -> list[GateSpec]:
    """The gates of a spec as given (results.json keeps the raw spec)."""
    raw = spec.get("gates") or []
    gates: list[GateSpec] = []
    for index, entry in enumerate(raw):
        try:
            gates.append(GateSpec.model_validate(entry))
        except ValidationError as error:
            raise AuditUserError(
                f"gates[{index}] in the results' spec is not a valid gate ({entry!r}): "
                f"{error.errors()[0]['msg']}; expected measure, dataset and within/min/max"
            ) from None
    return gates


def _candidates(gate: GateSpec, result: AuditResult) -> list[Measurement]:
    labels = {m.measure for m in result.measurements if m.measure == gate.measure}
    return [
        m
        for m in result.measurements
        if m.dataset == gate.dataset
        and (m.measure in labels if labels else _measure_matches(m.measure, gate.measure))
        and (gate.model is None or m.model == gate.model)
        and (gate.scorer is None or _measure_matches(m.scorer, gate.scorer))
    ]


def _judge_measurement(index: int, gate: GateSpec, m: Measurement) -> GateVerdict:
    low, high = gate_band(gate)
    if m.status != "ok" or m.value is None:
        verdict: Verdict = "INCONCLUSIVE"
        reason = f"measure undefined: {m.note or 'no value'}"
    elif m.ci_low is None or m.ci_high is None:
        verdict, reason = "INCONCLUSIVE", "the measurement has no confidence interval"
    else:
        verdict, reason = judge_interval(m.ci_low, m.ci_high, low, high)
    return GateVerdict(
        gate_index=index,
        measure=m.measure,
        dataset=m.dataset,
        model=m.model,
        scorer=m.scorer,
        group=m.group,
        low=low,
        high=high,
        value=m.value,
        ci_low=m.ci_low,
        ci_high=m.ci_high,
        verdict=verdict,
        reason=reason,
    )


def _missing(index: int, gate: GateSpec, model: str | None, why: str) -> GateVerdict:
    low, high = gate_band(gate)
    return GateVerdict(
        gate_index=index,
        measure=gate.measure,
        dataset=gate.dataset,
        model=model,
        scorer=gate.scorer,
        group=gate.group,
        low=low,
        high=high,
        verdict="INCONCLUSIVE",
        reason=why,
    )


def evaluate_gate(index: int, gate: GateSpec, result: AuditResult) -> list[GateVerdict]:
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
            verdicts.append(_missing(index, gate, model, f"{missing_why}: {where}{scorer}"))
            continue
        verdicts.extend(_judge_measurement(index, gate, m) for m in mine)
    if not models:
        verdicts.append(_missing(index, gate, None, "the results hold no model"))
    return verdicts


def evaluate_gates(result: AuditResult) -> list[GateVerdict]:
    """Judge every gate of the result's spec; an empty list when the spec has none."""
    verdicts: list[GateVerdict] = []
    for index, gate in enumerate(parse_gates(result.spec)):
        verdicts.extend(evaluate_gate(index, gate, result))
    return verdicts


def gate_exit_code(verdicts: list[GateVerdict]) -> int:
    """0 when every verdict is PASS (or there is no gate), 3 when any fails or is inconclusive."""
    if all(v.verdict == "PASS" for v in verdicts):
        return 0
    return GATE_FAILURE_EXIT_CODE


def describe_verdict(verdict: GateVerdict) -> str:
    """One line for the terminal: verdict, what was judged, value with CI, and why."""
    where = "/".join(x for x in (verdict.model, verdict.scorer, verdict.group) if x)
    value = "no value" if verdict.value is None else f"{verdict.value:.4g}"
    if verdict.ci_low is not None and verdict.ci_high is not None:
        value += f" (CI {verdict.ci_low:.4g} to {verdict.ci_high:.4g})"
    band = describe_band(verdict.low, verdict.high)
    return (
        f"gate {verdict.gate_index + 1} {verdict.verdict}: {verdict.measure} on "
        f"{verdict.dataset} [{where}] = {value}, required {band}: {verdict.reason}"
    )
