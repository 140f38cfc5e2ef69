"""Page 1: the verdict and the headline numbers in plain words, for a reader who will not
open the measure cards.

Everything here is read from results.json: the gate verdicts, the measure cards (titles,
ideal values, directions) and what each measurement's `details` hold. A headline number
is explained in counts when its details give them: pair-preference counts
(`st_preferred`, `at_preferred`, `ties`) or harmful/benign statement counts per group
(`n_harmful`, `n_benign`, averaged in `groups_averaged`); any other measure gets its
card's direction and ideal value. No plug-in name is looked up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from audit.gates import gate_exit_code, judge_interval
from audit.ids import PluginId
from audit.report import cells
from audit.report.extrinsic import summary_blocks as extrinsic_summary_blocks
from audit.report.formatting import (
    fmt_band,
    fmt_bound,
    fmt_estimate,
    fmt_num,
    fmt_p,
    fmt_pct,
    group_name,
    plain,
    plural,
)
from audit.report.index import MeasurementIndex, Unit
from audit.report.model import Caveat, Summary, SummaryBlock
from audit.report.precision import precision_blocks
from audit.report.variants import summary_blocks
from audit.results import DatasetRecord, GateVerdict, Measurement

#: More failing or inconclusive checks of one gate than this are cut short on page 1.
MAX_LISTED = 16

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
Emphasis = Literal["", "good", "bad", "warn"]
Overall = Literal["PASS", "FAIL", "INCONCLUSIVE", "NONE"]
EMPHASIS: dict[str, Emphasis] = {"PASS": "good", "FAIL": "bad", "INCONCLUSIVE": "warn", "NONE": ""}


def overall_verdict(verdicts: Sequence[GateVerdict]) -> Overall:
    """FAIL if any check fails, INCONCLUSIVE if any cannot be decided, PASS, or NONE."""
    if not verdicts:
        return "NONE"
    kinds = {v.verdict for v in verdicts}
    return "FAIL" if "FAIL" in kinds else "INCONCLUSIVE" if "INCONCLUSIVE" in kinds else "PASS"


def verdict_reason(v: GateVerdict) -> str:
    """Why a check got its verdict, in words: recomputed from its interval and band when it
    has both (results.json of older versions holds terser reasons), else as stored."""
    if v.ci_low is not None and v.ci_high is not None:
        verdict, reason = judge_interval(v.ci_low, v.ci_high, v.low, v.high)
        if verdict == v.verdict:
            return reason
    return plain(v.reason)


def _tally(verdicts: Sequence[GateVerdict]) -> str:
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    n_fail = sum(v.verdict == "FAIL" for v in verdicts)
    n_inc = len(verdicts) - n_pass - n_fail
    return (
        f"Of {plural(len(verdicts), 'gate check')}, {n_pass} pass, {n_fail} fail and {n_inc} "
        f"{'is' if n_inc == 1 else 'are'} inconclusive"
    )


def _digits(index: MeasurementIndex, dataset: str, measure: PluginId) -> int:
    return cells.digits_for([m.value for m in index.of_dataset(dataset) if m.measure == measure])


def _record(index: MeasurementIndex, dataset: str) -> DatasetRecord | None:
    return next((d for d in index.result.datasets if d.name == dataset), None)


def _group_noun(record: DatasetRecord | None) -> tuple[str, str]:
    """What a dataset's groups are: ('target group', 'target groups') or bias types."""
    if record is not None and record.shape == "labelled":
        return "target group", "target groups"
    return "bias type", "bias types"


def _items_noun(record: DatasetRecord | None) -> str:
    return "statement" if record is not None and record.shape == "labelled" else "pair"


# --------------------------------------------------------------------------- the gates


def _outside_words(v: GateVerdict) -> str:
    """Where a failing interval lies: 'below 0.5', 'outside 45–55'."""
    if v.low is not None and v.high is not None:
        return f"outside {fmt_band(v.low, v.high)}"
    if v.low is not None:
        return f"below {fmt_bound(v.low)}"
    return f"above {fmt_bound(v.high)}" if v.high is not None else "outside the band"


def _crossing_words(v: GateVerdict) -> str:
    if v.low is not None and v.high is not None:
        return f"an edge of {fmt_band(v.low, v.high)}"
    bound = v.low if v.low is not None else v.high
    return f"{fmt_bound(bound)}" if bound is not None else "a bound"


def _distance_out(v: GateVerdict) -> float:
    """How far a value lies outside the band (negative inside); missing values last."""
    if v.value is None:
        return float("-inf")
    below = v.low - v.value if v.low is not None else float("-inf")
    above = v.value - v.high if v.high is not None else float("-inf")
    return max(below, above)


def _where(v: GateVerdict, varies: tuple[bool, bool, bool], index: MeasurementIndex) -> str:
    """What tells a check apart from the others of its gate: model, scorer, group."""
    parts = []
    if varies[0] and v.model:
        parts.append(v.model)
    if varies[1] and v.scorer is not None:
        parts.append(index.cards.scorer_name(v.scorer))
    if varies[2]:
        parts.append(group_name(v.group))
    return " · ".join(parts)


def _check_text(v: GateVerdict, label: str, digits: int, n: int | None) -> str:
    value = fmt_estimate(v.value, v.ci_low, v.ci_high, digits, n)
    if v.value is None:
        value = f"no value ({plain(v.reason)})"
    return f"{label} {value}".strip()


def _gate_block(
    index: MeasurementIndex, gate_index: int, verdicts: list[GateVerdict]
) -> SummaryBlock:
    first = verdicts[0]
    record = _record(index, first.dataset)
    one, many = _group_noun(record)
    dataset = index.cards.dataset_title(first.dataset)
    measure = index.cards.name(first.measure)
    if first.group == "*" or len({v.group for v in verdicts}) > 1:
        scope = f"for each {one}"
    else:
        scope = "on the whole dataset" if first.group == "all" else f"for {group_name(first.group)}"
    models = {v.model for v in verdicts}
    who = "" if len(models) > 1 or len(index.result.models) == 1 else f" of {first.model}"
    if len(models) > 1:
        who = " of every model"
    rule = (
        f"{measure[0].upper() + measure[1:]}{who} on {dataset} {scope} must be {_required(first)}"
    )
    overall = overall_verdict(verdicts)
    digits = _digits(index, first.dataset, first.measure)
    sizes = record.groups if record is not None else {}
    if len(verdicts) == 1:
        v = first
        text = f"{rule}: {_check_text(v, '', digits, _n(index, v, sizes))}; {verdict_reason(v)}."
        return SummaryBlock(
            heading=f"Gate {gate_index + 1}: {v.verdict}.", text=text, emphasis=EMPHASIS[v.verdict]
        )
    keys = [(v.model or "", v.scorer.label if v.scorer else "", v.group) for v in verdicts]
    # Name a check's scorer only where a model was judged with more than one.
    scorers_of: dict[str, set[str]] = {}
    for model, scorer, _ in keys:
        scorers_of.setdefault(model, set()).add(scorer)
    varies = (
        len({k[0] for k in keys}) > 1,
        any(len(s) > 1 for s in scorers_of.values()),
        len({k[2] for k in keys}) > 1,
    )
    noun_many = many if varies == (False, False, True) else "checks"
    total = len(verdicts)
    items: list[str] = []
    for kind in ("FAIL", "INCONCLUSIVE"):
        mine = sorted((v for v in verdicts if v.verdict == kind), key=_distance_out, reverse=True)
        if not mine:
            continue
        listed = [
            _check_text(v, _where(v, varies, index), digits, _n(index, v, sizes))
            for v in mine[:MAX_LISTED]
        ]
        if len(mine) > MAX_LISTED:
            listed.append(f"and {len(mine) - MAX_LISTED} more (see Gates and verdicts)")
        if kind == "FAIL":
            why = f"the whole interval lies {_outside_words(first)}"
            head = f"{len(mine)} of {total} {noun_many} fail{'s' if len(mine) == 1 else ''} ({why})"
        else:
            crossing = all(v.ci_low is not None and v.value is not None for v in mine)
            why = f"the interval crosses {_crossing_words(first)}" + (
                "" if crossing else ", or there is no interval"
            )
            head = f"{len(mine)} of {total} {noun_many} {'is' if len(mine) == 1 else 'are'} " + (
                f"inconclusive ({why})"
            )
        items.append(f"{head}: " + "; ".join(listed) + ".")
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    passing = "none passes" if n_pass == 0 else f"{n_pass} of {total} pass"
    if n_pass == total:
        passing = f"all {total} {noun_many} pass, each with its whole interval inside"
    return SummaryBlock(
        heading=f"Gate {gate_index + 1}: {overall}.",
        text=f"{rule}; {passing}.",
        items=items,
        emphasis=EMPHASIS[overall],
    )


def _required(v: GateVerdict) -> str:
    if v.low is not None and v.high is not None:
        return f"between {fmt_bound(v.low)} and {fmt_bound(v.high)}"
    return fmt_band(v.low, v.high)


def _n(index: MeasurementIndex, v: GateVerdict, sizes: dict[str, int]) -> int | None:
    m = next(
        (
            m
            for m in index.of_dataset(v.dataset)
            if m.measure == v.measure
            and m.model == v.model
            and m.group == v.group
            and (v.scorer is None or m.scorer == v.scorer)
        ),
        None,
    )
    return m.n if m is not None else sizes.get(v.group)


def gate_blocks(index: MeasurementIndex, verdicts: Sequence[GateVerdict]) -> list[SummaryBlock]:
    """One block per gate of the spec: its rule, verdict and the checks that did not pass."""
    blocks = []
    for gate_index in dict.fromkeys(v.gate_index for v in verdicts):
        mine = [v for v in verdicts if v.gate_index == gate_index]
        blocks.append(_gate_block(index, gate_index, mine))
    return blocks


# --------------------------------------------------------------------------- headline numbers


def _lean(m: Measurement, neutral: float, digits: int, above: str, below: str) -> str:
    """Which side of the no-preference value the whole interval lies on, if it does."""
    if m.ci_low is None or m.ci_high is None:
        return ""
    point = fmt_bound(neutral)
    if m.ci_low > neutral:
        return f" The whole interval lies above {point}: {above}."
    if m.ci_high < neutral:
        return f" The whole interval lies below {point}: {below}."
    return f" The interval includes {point}: no clear preference either way."


def _pair_counts(m: Measurement, digits: int, alpha: float) -> str | None:
    """A bias score in counts: '838 of 1,508 pairs (55.6%) preferred the stereotypical
    sentence ...' (details `st_preferred`, `at_preferred`, `ties`)."""
    d = m.details
    if not isinstance(d.get("st_preferred"), int) or not isinstance(d.get("at_preferred"), int):
        return None
    interval = d.get("interval") if isinstance(d.get("interval"), dict) else {}
    n = int(interval.get("trials", m.n)) if interval else m.n
    if n <= 0:
        return None
    st, at, ties = d["st_preferred"], d["at_preferred"], int(d.get("ties", 0) or 0)
    tied = f"; {plural(ties, 'pair')} tied" if ties else ", none tied"
    text = (
        f"{st:,} of {plural(n, 'pair')} ({fmt_pct(st / n, 1)}) preferred the stereotypical "
        f"sentence and {at:,} ({fmt_pct(at / n, 1)}) the anti-stereotypical one{tied}; 50% "
        "would be no preference."
    )
    text += _lean(
        m,
        50.0 if m.value is not None and m.value > 1 else 0.5,
        digits,
        "the model prefers the stereotypical sentence more often than not",
        "the model prefers the anti-stereotypical sentence more often than not",
    )
    if m.p_value is not None:
        chance = "unlikely" if m.p_value < alpha else "not unlikely"
        text += (
            f" Exact sign test against 50%: p {fmt_p(m.p_value)}, so a lean this large is "
            f"{chance} to be chance."
        )
    return text


def _statement_pairs(
    index: MeasurementIndex, unit: Unit, dataset: str, measure: PluginId, m: Measurement
) -> str | None:
    """A safety score in counts: the share of (harmful, benign) statement pairs about a
    group in which the model found the harmful one less likely (details `n_harmful`,
    `n_benign` per group; the whole-dataset value averages `groups_averaged`)."""
    if m.value is None or not 0 <= m.value <= 1:
        return None
    d = m.details
    if "n_harmful" in d and "n_benign" in d:
        about = f"about {group_name(m.group)}" if m.group != "all" else "about a group"
        pairs = int(d["n_harmful"]) * int(d["n_benign"])
        lead = f"in {fmt_pct(m.value)} of the {pairs:,} (harmful, benign) statement pairs {about}"
    elif isinstance(d.get("groups_averaged"), list):
        groups = d["groups_averaged"]
        per_group = [index.get(unit, dataset, measure, g) for g in groups]
        if not groups or not all(g is not None and "n_harmful" in g.details for g in per_group):
            return None
        lead = (
            f"averaged over {plural(len(groups), 'target group')}, in {fmt_pct(m.value)} of "
            "the (harmful, benign) statement pairs about a group"
        )
    else:
        return None
    ideal = index.cards.ideal_value(measure)
    ideal_text = f" and {fmt_bound(ideal)} is ideal" if ideal is not None and ideal != 0.5 else ""
    text = (
        f"{lead[0].upper() + lead[1:]} the model found the harmful statement less likely than "
        f"the benign one; 0.5 would be no preference{ideal_text}."
    )
    return text + _lean(
        m,
        0.5,
        2,
        "the model tends to find harmful statements less likely than benign ones",
        "in most pairs the model found the harmful statement the likelier one",
    )


def _generic(index: MeasurementIndex, measure: PluginId) -> str:
    card = index.cards.card(measure)
    if card is None:
        return ""
    parts = [plain(card.direction).rstrip(".") + "." if card.direction else ""]
    if card.ideal:
        parts.append(f"Ideal: {plain(card.ideal)}.")
    return " ".join(p for p in parts if p)


def _headline_measure(index: MeasurementIndex, dataset: str) -> PluginId | None:
    """The first measure with the role `headline` (in the order of the result's cards)
    measured on the dataset."""
    measured = index.measures(dataset)
    headline = index.cards.names_with_role("headline")
    return next((m for name in headline for m in measured if m.name == name), None)


def headline_block(index: MeasurementIndex, dataset: str) -> SummaryBlock | None:
    """What the dataset's headline number means, per model (and scorer), in counts."""
    measure = _headline_measure(index, dataset)
    if measure is None:
        return None
    digits = _digits(index, dataset, measure)
    generic = _generic(index, measure)
    lines: list[str] = []
    in_counts = False
    for unit in index.units(dataset):
        m = index.get(unit, dataset, measure, "all")
        variant = index.variants.get(unit.model)
        # Bias-controlled ratio models are instruments of the meta-evaluation: page 1
        # sums them up in one sentence of their own.
        if m is None or (variant is not None and variant.ratio is not None):
            continue
        name = unit.model
        if variant is not None:
            name += f" ({index.variants.describe(unit.model)})"
        who = f"{name}, scored by {index.cards.scorer_name(unit.scorer)}"
        if m.value is None or m.status != "ok":
            lines.append(f"{who}: no value ({plain(m.note) or 'undefined'}).")
            continue
        value = fmt_estimate(m.value, m.ci_low, m.ci_high, digits, m.n)
        # A variant's value is read beside its base's: the counts are not repeated.
        meaning = (
            None
            if variant is not None
            else _pair_counts(m, digits, index.result.alpha)
            or _statement_pairs(index, unit, dataset, measure, m)
        )
        in_counts = in_counts or bool(meaning)
        lines.append(f"{who}: {index.cards.name(measure)} {value}. {meaning or ''}".rstrip())
    if not lines:
        return None
    record = _record(index, dataset)
    heading = index.cards.dataset_title(dataset)
    if record is not None:
        heading += f" ({plural(record.rows_kept, _items_noun(record))})"
    # The card's direction and ideal, once, where a value is not explained in counts.
    lead = "" if in_counts and len(lines) == 1 else generic
    if len(lines) == 1:
        return SummaryBlock(heading=heading + ".", text=" ".join(filter(None, [lines[0], lead])))
    return SummaryBlock(heading=heading + ".", text=lead, items=lines)


# --------------------------------------------------------------------------- reading aids


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
        parts.append(f"Intervals of the {_join(names)}: {how}.")
    text = (
        f"Numbers in brackets are the {level}% confidence interval: the range the value would "
        "likely fall in on another sample of such items."
    )
    return " ".join([text, *parts])


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def scope_sentence(index: MeasurementIndex) -> str:
    """What was audited: models, datasets with their sizes, scorers."""
    result = index.result
    models = [m.id for m in result.models if not index.variants.is_variant(m.id)]
    n_variants = len(result.models) - len(models)
    datasets = []
    for d in result.datasets:
        kind = "sentence pair" if d.shape == "pairs" else "labelled statement"
        datasets.append(f"{index.cards.dataset_title(d.name)}, {plural(d.rows_kept, kind)}")
    scorers = list(dict.fromkeys(u.scorer for u in result.units)) or list(
        dict.fromkeys(m.scorer for m in result.measurements)
    )
    model_text = (
        f"one model, {models[0]},"
        if len(models) == 1
        else f"{len(models)} models ({_join(models)})"
    )
    if n_variants:
        of = "it" if len(models) == 1 else "them"
        model_text = model_text.rstrip(",") + f" and {plural(n_variants, 'variant')} of {of}"
    text = f"This audit measured {model_text} on {plural(len(datasets), 'dataset')}"
    text += (": " + "; ".join(datasets)) if datasets else ""
    if scorers:
        text += ". Sentences were scored by " + _join([index.cards.scorer_name(s) for s in scorers])
    return text + "."


def caveat_sentence(caveats: list[Caveat]) -> str:
    warnings = [c.title for c in caveats if c.severity == "warning"]
    if not warnings:
        return ""
    return (
        f"{plural(len(warnings), 'caveat')} qualify these numbers (see Caveats): "
        + "; ".join(warnings)
        + "."
    ).replace("1 caveat qualify", "1 caveat qualifies")


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
    return Summary(
        verdict=overall,
        emphasis=EMPHASIS[overall],
        verdict_text=meaning,
        scope=scope_sentence(index),
        gates=gate_blocks(index, verdicts),
        findings=findings,
        reading=interval_sentence(index),
        caveats=caveat_sentence(caveats),
        variants=summary_blocks(index) + extrinsic_summary_blocks(index),
        precision=precision_blocks(index),
    )
