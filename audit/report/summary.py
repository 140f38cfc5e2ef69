"""Page 1: the verdict and the headline numbers in plain words, for a reader who will not
open the measure cards.

Everything here is read from results.json: the gate verdicts (`audit.report.gate_summary`),
the measure cards and what each measurement's `details` hold (`audit.report.headlines`),
the variants' and extrinsic tasks' sentences and the precision check. This module puts
them together with what was audited and how to read an interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit.gates import gate_exit_code
from audit.report.extrinsic import summary_blocks as extrinsic_summary_blocks
from audit.report.formatting import fmt_num, join_words, plural
from audit.report.gate_summary import EMPHASIS, gate_blocks, overall_verdict
from audit.report.headlines import headline_block
from audit.report.index import MeasurementIndex
from audit.report.lm_cost import lm_cost_blocks
from audit.report.model import Caveat, Summary
from audit.report.page_one import build_page_one, caveat_sentence
from audit.report.precision import precision_blocks
from audit.report.seat_section import seat_summary_block
from audit.report.variant_summary import summary_blocks
from audit.results import GateVerdict, Measurement

VERDICT_MEANING = {
    "PASS": "Every gate check passes: for each, the whole {level}% confidence interval lies "
    "inside the band the spec requires. The release criteria are met on these measures.",
    "FAIL": "At least one gate check fails: its whole {level}% confidence interval lies "
    "outside the band the spec requires. The release criteria are not met.",
    "INCONCLUSIVE": "No gate check fails, but at least one cannot be decided: its {level}% "
    "confidence interval crosses the edge of the required band, or it has no value or no "
    "interval. The release criteria are not shown to be met.",
    "NONE": "The spec sets no release gates, so this report gives no pass/fail verdict; the "
    "numbers below still describe the model.",
}


def _tally(verdicts: Sequence[GateVerdict]) -> str:
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    n_fail = sum(v.verdict == "FAIL" for v in verdicts)
    n_inc = len(verdicts) - n_pass - n_fail
    return (
        f"Of {plural(len(verdicts), 'gate check')}, {n_pass} pass, {n_fail} fail and {n_inc} "
        f"{'is' if n_inc == 1 else 'are'} inconclusive"
    )


def _interval_method(m: Measurement) -> tuple[str, Any]:
    about = m.details.get("interval")
    if isinstance(about, dict) and about.get("method"):
        return str(about["method"]), about.get("min_items")
    return "", None


def interval_sentence(index: MeasurementIndex) -> str:
    """What the bracketed interval means and how each measure's interval was made."""
    result = index.result
    level = fmt_num(100 * (1 - result.alpha), 0)
    by_method: dict[tuple[str, Any], list[str]] = {}
    for measure in dict.fromkeys(m.measure for m in result.measurements):
        if index.cards.has_role(measure, "diagnostic"):
            continue
        mine = [m for m in result.measurements if m.measure == measure]
        if not any(m.ci_low is not None for m in mine) and not any(
            _interval_method(m)[0] for m in mine
        ):
            continue
        methods = {_interval_method(m) for m in mine if _interval_method(m)[0]}
        made = next(iter(methods)) if len(methods) == 1 else ("", None)
        by_method.setdefault(made, []).append(index.cards.name(measure))
    resamples = result.audit.bootstrap.resamples
    parts = []
    for (method, min_items), names in by_method.items():
        if "bootstrap" in method or not method:
            how = f"{result.audit.bootstrap.method} bootstrap of {resamples:,} seeded resamples"
            if min_items:
                how += (
                    f", none below {min_items} items (the value is then shown with 'no interval')"
                )
        else:
            how = f"{method}, valid at any number of items"
        parts.append(f"Intervals of the {join_words(names)}: {how}.")
    text = (
        f"Numbers in brackets are the {level}% confidence interval: the range the value would "
        "likely fall in on another sample of such items."
    )
    return " ".join([text, *parts])


def scope_sentence(index: MeasurementIndex) -> str:
    """What was audited: models, datasets with their sizes, scorers."""
    result = index.result
    models = [m.id for m in result.models if not index.variants.is_variant(m.id)]
    n_variants = len(result.models) - len(models)
    datasets = []
    for d in result.datasets:
        kind = {"pairs": "sentence pair", "choices": "multiple-choice question"}.get(
            d.shape, "labelled statement"
        )
        datasets.append(f"{index.cards.dataset_title(d.name)}, {plural(d.rows_kept, kind)}")
    scorers = list(dict.fromkeys(u.scorer for u in result.units)) or list(
        dict.fromkeys(m.scorer for m in result.measurements)
    )
    model_text = (
        f"one model, {models[0]},"
        if len(models) == 1
        else f"{len(models)} models ({join_words(models)})"
    )
    if n_variants:
        of = "it" if len(models) == 1 else "them"
        model_text = model_text.rstrip(",") + f" and {plural(n_variants, 'variant')} of {of}"
    text = f"This audit measured {model_text} on {plural(len(datasets), 'dataset')}"
    text += (": " + "; ".join(datasets)) if datasets else ""
    if scorers:
        text += ". Sentences were scored by " + join_words(
            [index.cards.scorer_name(s) for s in scorers]
        )
    return text + "."


def build_summary(
    index: MeasurementIndex, verdicts: list[GateVerdict], caveats: list[Caveat]
) -> Summary:
    """Page 1: the verdict and what it means, each gate's failures, the headline numbers in
    counts, how to read an interval, and the caveats that qualify it all."""
    level = fmt_num(100 * (1 - index.result.alpha), 0)
    overall = overall_verdict(verdicts)
    meaning = VERDICT_MEANING[overall].format(level=level)
    if verdicts:
        code = gate_exit_code(verdicts)
        meaning += (
            f" {_tally(verdicts)}; audit run exits with code {code} (0 only when every "
            "check passes)."
        )
    findings = [b for d in index.result.datasets if (b := headline_block(index, d.name))]
    findings += [b] if (b := seat_summary_block(index.result)) is not None else []
    return Summary(
        verdict=overall,
        emphasis=EMPHASIS[overall],
        verdict_text=meaning,
        scope=scope_sentence(index),
        gates=gate_blocks(index, verdicts),
        findings=findings,
        reading=interval_sentence(index),
        caveats=caveat_sentence(caveats),
        variants=summary_blocks(index) + lm_cost_blocks(index) + extrinsic_summary_blocks(index),
        precision=precision_blocks(index),
        page_one=build_page_one(index, verdicts, caveats),
    )
