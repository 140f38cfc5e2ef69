"""Page 1's headline numbers: what each dataset's headline measure says, per model (and
scorer), in counts when its details give them: pair-preference counts (`st_preferred`,
`at_preferred`, `ties`) or harmful/benign statement counts per group (`n_harmful`,
`n_benign`, averaged in `groups_averaged`); any other measure gets its card's direction
and ideal value. No plug-in name is looked up."""

from __future__ import annotations

from audit.ids import PluginId
from audit.report.formatting import (
    fmt_bound,
    fmt_estimate,
    fmt_p,
    fmt_pct,
    group_name,
    lower_first,
    plain,
    plural,
    upper_first,
)
from audit.report.index import MeasurementIndex, Unit
from audit.report.model import SummaryBlock
from audit.report.tables import measure_digits
from audit.report.worst_values import worst_words
from audit.results import DatasetRecord, Measurement


def _items_noun(record: DatasetRecord | None) -> str:
    if record is None:
        return "pair"
    return {"labelled": "statement", "choices": "question"}.get(record.shape, "pair")


def kept_of_read(record: DatasetRecord) -> str:
    """'150 of 1,508 pairs' for a sample (or a selection) of the file's rows, '1,508 pairs'
    for all of them."""
    noun = _items_noun(record)
    if record.rows_kept < record.rows_read:
        return f"{record.rows_kept:,} of {plural(record.rows_read, noun)}"
    return plural(record.rows_kept, noun)


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
    measured on the dataset; else, so that no dataset goes without its sentence (a file
    whose cards name no headline for its shape, e.g. BBQ before s_AMB was one), the first
    measure measured on it that has an ideal value and is not a diagnostic."""
    measured = index.measures(dataset)
    headline = index.cards.names_with_role("headline")
    found = next((m for name in headline for m in measured if m.name == name), None)
    if found is not None:
        return found
    return next(
        (
            m
            for m in measured
            if index.cards.ideal_value(m) is not None and not index.cards.has_role(m, "diagnostic")
        ),
        None,
    )


def headline_block(index: MeasurementIndex, dataset: str) -> SummaryBlock | None:
    """What the dataset's headline number means, per model (and scorer), in counts."""
    measure = _headline_measure(index, dataset)
    if measure is None:
        return None
    digits = measure_digits(index, dataset, measure)
    generic = _generic(index, measure)
    lines: list[str] = []
    # A variant's values, one line per variant: '<variant> (<method> of <base>): bias
    # score 47.3 [41.2, 53.6] (cps), 56.5 [50.2, 62.6] (aula)' (its line where its first
    # value falls).
    variant_values: dict[str, list[str]] = {}
    variant_line: dict[str, int] = {}
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
        if variant is not None:  # read beside its base's: the counts are not repeated
            if unit.model not in variant_line:
                variant_line[unit.model] = len(lines)
                lines.append("")
            variant_values.setdefault(unit.model, []).append(f"{value} ({unit.scorer.label})")
            continue
        meaning = _pair_counts(m, digits, index.result.alpha) or _statement_pairs(
            index, unit, dataset, measure, m
        )
        in_counts = in_counts or bool(meaning)
        lines.append(f"{who}: {index.cards.name(measure)} {value}. {meaning or ''}".rstrip())
    for model, at in variant_line.items():
        name = f"{model} ({index.variants.describe(model)})"
        lines[at] = f"{name}: {index.cards.name(measure)} {', '.join(variant_values[model])}."
    if not lines:
        return None
    record = index.dataset_record(dataset)
    heading = index.cards.dataset_title(dataset)
    if record is not None:
        heading += f" ({kept_of_read(record)})"
    # The card's direction and ideal, once, where a value is not explained in counts.
    lead = "" if in_counts and len(lines) == 1 else generic
    if len(lines) == 1:
        return SummaryBlock(heading=heading + ".", text=" ".join(filter(None, [lines[0], lead])))
    return SummaryBlock(heading=heading + ".", text=lead, items=lines)


def _side_words(values: list[tuple[str, Measurement]], ideal: float) -> str:
    """Where each interval lies against the ideal value: which lie wholly above or below
    it, and how many include it (those without an interval are counted apart)."""
    above = [who for who, m in values if m.ci_low is not None and m.ci_low > ideal]
    below = [who for who, m in values if m.ci_high is not None and m.ci_high < ideal]
    bare = sum(m.ci_low is None or m.ci_high is None for _, m in values)
    including = len(values) - len(above) - len(below) - bare
    point = fmt_bound(ideal)
    parts = []
    if including:
        parts.append(
            f"the interval includes {point} for {including} of {len(values)}"
            if including < len(values)
            else f"every interval includes {point}"
        )
    if len(above) == len(values) or len(below) == len(values):
        return f"Every interval lies wholly {'above' if above else 'below'} {point}."
    if above:
        parts.append(f"lies wholly above {point} for {', '.join(above)}")
    if below:
        parts.append(f"lies wholly below {point} for {', '.join(below)}")
    if bare:
        parts.append(f"{bare} without an interval")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "." if text else ""


def headline_sentence(index: MeasurementIndex, dataset: str) -> SummaryBlock | None:
    """Page 1's sentence on a dataset's headline measure: the counts of `headline_block`
    when one model was scored once; otherwise each audited model's value with its interval
    (variants are summed up by the variant study) and which intervals lie on which side of
    the measure's ideal value."""
    block = headline_block(index, dataset)
    if block is None or not block.items:
        return block
    measure = _headline_measure(index, dataset)
    if measure is None:
        return None
    digits = measure_digits(index, dataset, measure)
    per_model: dict[str, list[str]] = {}
    values: list[tuple[str, Measurement]] = []
    n_variants = 0
    for unit in index.units(dataset):
        m = index.get(unit, dataset, measure, "all")
        if m is None:
            continue
        if index.variants.is_variant(unit.model):
            n_variants += 1
            continue
        scorer = unit.scorer.label
        if m.value is None or m.status != "ok":
            per_model.setdefault(unit.model, []).append(f"no value ({scorer})")
            continue
        estimate = fmt_estimate(m.value, m.ci_low, m.ci_high, digits, m.n)
        estimate += worst_words(measure, m.value)
        per_model.setdefault(unit.model, []).append(f"{estimate} ({scorer})")
        values.append((f"{unit.model} ({scorer})", m))
    if not per_model:
        return None
    ideal = index.cards.ideal_value(measure)
    lead = f"{index.cards.name(measure)}, ideal {fmt_bound(ideal)}" if ideal is not None else ""
    text = "; ".join(f"{model} {', '.join(found)}" for model, found in per_model.items()) + "."
    text = f"{upper_first(lead or index.cards.name(measure))}: {text}"
    if ideal is not None and values:
        text += " " + _side_words(values, ideal)
    for gate_number, side, bound in _gate_bounds(index, dataset, measure):
        if values and bound != ideal:
            where = _side_words(values, bound)
            text += f" Against gate {gate_number}'s {side} {fmt_bound(bound)}: {lower_first(where)}"
    if n_variants:
        text += f" The {plural(n_variants, 'value')} of variants are in their own section."
    return SummaryBlock(heading=block.heading, text=text)


def _gate_bounds(
    index: MeasurementIndex, dataset: str, measure: PluginId
) -> list[tuple[int, str, float]]:
    """The bounds of the gates judged on this dataset's headline measure over all items
    (gate number, 'minimum' or 'maximum', bound), each once: page 1 says where the
    intervals lie against what a gate requires, not only against the ideal value."""
    bounds: dict[tuple[int, str, float], None] = {}
    for v in index.result.gate_verdicts:
        if v.dataset != dataset or v.measure != measure or v.group != "all":
            continue
        if v.low is not None:
            bounds[(v.gate_index + 1, "minimum", v.low)] = None
        if v.high is not None:
            bounds[(v.gate_index + 1, "maximum", v.high)] = None
    return list(bounds)
