"""The executive summary: a few plain sentences built from the results and the gates."""

from __future__ import annotations

from audit.report.formatting import fmt_ci, fmt_num, fmt_p
from audit.report.index import MeasurementIndex
from audit.report.model import Caveat
from audit.results import GateVerdict


def _gate_sentence(verdicts: list[GateVerdict]) -> str:
    if not verdicts:
        return "The spec sets no release gates, so this report gives no pass/fail verdict."
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    n_fail = sum(v.verdict == "FAIL" for v in verdicts)
    n_inc = len(verdicts) - n_pass - n_fail
    head = (
        f"Of {len(verdicts)} gate checks, {n_pass} pass, {n_fail} fail and {n_inc} are inconclusive"
    )
    if n_fail:
        return head + ": the release criteria are NOT met."
    if n_inc:
        return (
            head + ": the release criteria are not shown to be met (an interval straddles a bound "
            "or a value is missing)."
        )
    return head + ": every release criterion is met with its whole confidence interval."


def _headline(index: MeasurementIndex, dataset: str) -> str | None:
    """The dataset's sentence on its headline measure: the first measure with the role
    `headline` (in the order of the result's cards) that was measured on it."""
    measured = index.measures(dataset)
    headline = index.cards.names_with_role("headline")
    measure = next((m for name in headline for m in measured if m.name == name), None)
    if measure is None:
        return None
    parts = []
    for unit in index.units(dataset):
        m = index.get(unit, dataset, measure, "all")
        if m is None:
            continue
        if m.value is None:
            parts.append(f"{unit.label}: undefined")
            continue
        digits = 1 if abs(m.value) >= 10 else 3
        extras = []
        if m.ci_low is not None and m.ci_high is not None:
            extras.append(f"CI {fmt_ci(m.ci_low, m.ci_high, digits)}")
        if m.p_value is not None:
            extras.append(f"p {fmt_p(m.p_value)}")
        inside = f" ({', '.join(extras)})" if extras else ""
        parts.append(f"{unit.label} {fmt_num(m.value, digits)}{inside}")
    if not parts:
        return None
    ideal = index.cards.ideal_value(measure)
    ideal_text = f" (ideal {ideal:g})" if ideal is not None else ""
    return f"On {dataset}, {index.cards.title(measure)}{ideal_text}: " + "; ".join(parts) + "."


def build_summary(
    index: MeasurementIndex, verdicts: list[GateVerdict], caveats: list[Caveat]
) -> list[str]:
    """The executive summary, one sentence (or short paragraph) per entry."""
    result = index.result
    models = ", ".join(m.id for m in result.models)
    datasets = ", ".join(d.name for d in result.datasets)
    level = fmt_num(100 * (1 - result.alpha), 0)
    sentences = [
        f"This audit measured {len(result.models)} model(s) ({models}) on "
        f"{len(result.datasets)} dataset(s) ({datasets}). Every value comes with a {level}% "
        "confidence interval from a seeded bootstrap.",
        _gate_sentence(verdicts),
    ]
    sentences += [h for d in result.datasets if (h := _headline(index, d.name))]
    warnings = [c.title for c in caveats if c.severity == "warning"]
    if warnings:
        sentences.append(
            f"{len(warnings)} caveat(s) qualify these numbers: " + "; ".join(warnings) + "."
        )
    return sentences
