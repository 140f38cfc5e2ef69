"""The cost of debiasing in the report: each variant's (pseudo-)perplexity on held-out
text against its base's, beside its bias change (the Variants section's table), the
damaged variants on page 1, and a caveat that says what the held-out text is.

Everything is read from results.json's `lm_quality` section (the verdict `damage` was
computed by the run, `audit.lm_quality.statistics`) and its `comparisons`."""

from __future__ import annotations

from collections import Counter

from audit.report import cells
from audit.report.formatting import fmt_ci, fmt_num, join_words, plural
from audit.report.index import MeasurementIndex
from audit.report.model import Caveat, SummaryBlock, Table
from audit.report.studies import StudyData
from audit.results import ComparisonRecord, LmQualityRecord, LmQualitySection
from audit.results.comparison_verdict import COMPARISON_VERDICTS

SALAZAR = (
    "Salazar, Liang, Nguyen & Kirchhoff 2020, Masked Language Model Scoring (ACL): "
    "pseudo-perplexity"
)
#: Decimals of a perplexity ratio (a change of 0.1% shows).
RATIO_DIGITS = 3
DAMAGE_EMPHASIS = {"damaged": "bad", "unclear": "warn", "not damaged": "good"}


def _pct(ratio: float) -> str:
    """A ratio as a signed change: 1.25 -> '+25%', 0.8 -> '-20%'."""
    change = 100 * (ratio - 1)
    digits = 0 if abs(change) >= 10 else 1
    return f"{change:+.{digits}f}%".replace("-", "−")


def _digits(record: LmQualityRecord) -> int:
    return 1 if min(record.base_perplexity.value, record.variant_perplexity.value) >= 10 else 2


def _ppl_words(record: LmQualityRecord) -> str:
    digits = _digits(record)
    return (
        f"{record.kind} {fmt_num(record.base_perplexity.value, digits)} → "
        f"{fmt_num(record.variant_perplexity.value, digits)} ({_pct(record.ratio)}"
        + (
            f", ratio {fmt_num(record.ratio, RATIO_DIGITS)} "
            f"{fmt_ci(record.ratio_ci_low, record.ratio_ci_high, RATIO_DIGITS)}"
            if record.ratio_ci_low is not None
            else f", ratio {fmt_num(record.ratio, RATIO_DIGITS)}, no interval"
        )
        + ")"
    )


def bias_changes(index: MeasurementIndex, variant: str) -> list[ComparisonRecord]:
    """The variant's comparisons with its base over all items (no group breakdowns)."""
    return [
        c
        for c in index.result.comparisons
        if c.model_a == variant and c.group == "all" and index.variants.is_base_comparison(c)
    ]


#: How many moved measures the bias-change cell names (the rest are counted).
MOVED_SHOWN = 3


def _bias_change_text(index: MeasurementIndex, records: list[ComparisonRecord]) -> str:
    """The verdicts of the variant's comparisons with its base, counted, and the measures
    that moved (at most `MOVED_SHOWN`, the rest counted): a cell that stays short however
    many measures the audit has. Every comparison is in Variants against their base."""
    if not records:
        return "no comparison with the base"
    tally = Counter(c.verdict for c in records)
    counts = ", ".join(f"{tally[v]} {v}" for v in COMPARISON_VERDICTS if tally[v])
    moved = [c for c in records if c.verdict not in ("no detectable change", "undefined")]
    parts = []
    for c in moved[:MOVED_SHOWN]:
        digits = cells.digits_for([c.value_a, c.value_b])
        ci = fmt_ci(c.difference_ci_low, c.difference_ci_high, digits)
        diff = fmt_num(c.difference, digits)
        parts.append(
            f"{index.cards.title(c.measure)} on {c.dataset} ({c.scorer.label}): {diff}"
            + (f" {ci}" if ci else "")
        )
    more = len(moved) - MOVED_SHOWN
    return (
        f"{plural(len(records), 'measure')}: {counts}"
        + (f". Moved: {'; '.join(parts)}" if parts else "")
        + (f"; and {more} more" if more > 0 else "")
    )


def lm_cost_table(index: MeasurementIndex) -> Table | None:
    """One row per variant: its base's and its own perplexity on the held-out text, the
    ratio with its paired CI, the verdict against the threshold, and its bias change."""
    section = index.result.lm_quality
    if section is None or not section.records:
        return None
    text = section.text
    maker = cells.TableMaker(
        id="lm-cost-table",
        title="Language-modelling cost of each variant",
        caption=f"(Pseudo-)perplexity on {plural(text.sentences, 'held-out sentence')} "
        f"({text.label}; see Caveats), base and variant on the same sentences: lower is "
        "better. Pseudo-perplexity for masked LMs (each token masked in turn), perplexity "
        "for causal LMs. Ratio = variant / base with a paired bootstrap CI (sentences "
        f"resampled); damaged = the ratio is above {fmt_num(1 + section.damage_threshold, 2)} "
        f"(a rise of more than {_pct(1 + section.damage_threshold)}), unclear = its CI spans "
        "that line. Bias change: the verdicts of the variant's paired comparisons with its "
        "base, counted, and the measures that moved (variant − base over all items, with "
        "its paired CI); every comparison is in Variants against their base.",
        columns=[
            "Variant",
            "Base",
            "Measured as",
            "Base perplexity",
            "Variant perplexity",
            "Variant / base",
            "Language model",
            "Bias change (variant − base)",
        ],
    )
    for r in section.records:
        digits = _digits(r)
        maker.add(
            [
                cells.text(r.variant, sub=index.variants.method_words(r.variant)),
                cells.text(r.base),
                cells.text(
                    r.kind, note=f"{plural(r.sentences, 'sentence')}, scored by {r.scorer.label}"
                ),
                cells.interval(
                    r.base_perplexity.value,
                    r.base_perplexity.ci_low,
                    r.base_perplexity.ci_high,
                    digits,
                ),
                cells.interval(
                    r.variant_perplexity.value,
                    r.variant_perplexity.ci_low,
                    r.variant_perplexity.ci_high,
                    digits,
                ),
                cells.interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, RATIO_DIGITS, note=r.note),
                cells.verdict(r.damage, DAMAGE_EMPHASIS[r.damage]),
                cells.text(_bias_change_text(index, bias_changes(index, r.variant))),
            ]
        )
    # A shortened body shows the damaged variants (and those whose CI spans the line) first.
    flagged = [i for i, r in enumerate(section.records) if r.damage != "not damaged"]
    return maker.table().model_copy(
        update={"key_rows": flagged, "key_rows_words": "damaged or unclear"}
    )


def lm_cost_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: the damaged variants (and those that may be), or that none is."""
    section = index.result.lm_quality
    if section is None or not section.records:
        return []
    limit = _pct(1 + section.damage_threshold)
    damaged = [r for r in section.records if r.damage == "damaged"]
    unclear = [r for r in section.records if r.damage == "unclear"]
    where = f"on {plural(section.text.sentences, 'held-out sentence')} ({section.text.label})"
    blocks: list[SummaryBlock] = []
    if damaged:
        blocks.append(
            SummaryBlock(
                heading="Damaged by debiasing.",
                text=f"{plural(len(damaged), 'variant')} of {len(section.records)} lost "
                f"language-modelling quality: perplexity {where} rose by more than "
                f"{limit} over the base's (the interval too, where there is one). Bias "
                "numbers of a damaged model say little about the method. See Variants.",
                items=[f"{r.variant} (of {r.base}): {_ppl_words(r)}" for r in damaged],
                emphasis="bad",
            )
        )
    if unclear:
        blocks.append(
            SummaryBlock(
                heading="Possibly damaged.",
                text=f"{plural(len(unclear), 'variant')}: the perplexity interval {where} "
                f"spans the {limit} line, so whether it is damaged is not settled by these "
                "sentences.",
                items=[f"{r.variant} (of {r.base}): {_ppl_words(r)}" for r in unclear],
                emphasis="warn",
            )
        )
    if not damaged and not unclear:
        # the largest change either way, by its absolute size
        largest = max(section.records, key=lambda r: abs(r.ratio - 1))
        blocks.append(
            SummaryBlock(
                heading="Language-modelling cost.",
                text=f"No variant is damaged: no variant's perplexity {where} rose by more "
                f"than {limit} over its base's (largest change: {largest.variant}, "
                f"{_ppl_words(largest)}). See Variants.",
                emphasis="good",
            )
        )
    return blocks


def lm_quality_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """What the held-out text is, and what a (pseudo-)perplexity can be compared with."""
    section: LmQualitySection | None = index.result.lm_quality
    if section is None:
        return _not_measured_caveat(index)
    text = section.text
    removed = (
        f"; {plural(text.overlap_removed, 'sentence')} that a variant trains on were removed first"
        if text.overlap_removed
        else "; none of its sentences is in a variant's training text"
    )
    kinds = join_words(sorted({r.kind for r in section.records})) or "perplexity"
    return Caveat(
        id="lm-quality-text",
        title="What the language-modelling cost is measured on",
        text=f"The {kinds} of each variant and of its base are computed on "
        f"{plural(text.sentences, 'sentence')} drawn (seed {text.seed}) from "
        f"{text.description}{removed}. It is exp(−sum of log-likelihoods / tokens): for a "
        "masked LM the pseudo-log-likelihood, each token masked in turn (Salazar et al. "
        "2020); for a causal LM the log-likelihood of each token given those before it. "
        "A value depends on the tokenizer, so it compares a variant with its own base "
        "only, never models of another family; and it says how well the model fits this "
        "kind of text, not how well it does any task.",
        trigger=f"results.json lm_quality: {plural(len(section.records), 'variant')}, "
        f"held-out text {text.label} ({text.source}), damage threshold "
        f"{_pct(1 + section.damage_threshold)}",
        citation=SALAZAR,
        severity="info",
    )


def _not_measured_caveat(index: MeasurementIndex) -> Caveat | None:
    """A result with variants and no `lm_quality` section: the spec left their cost out
    (`enabled: false`), or the file predates results.json 3.0 (a reader never reads the
    raw spec, so the caveat names both)."""
    variants = index.result.variants
    if not variants:
        return None
    return Caveat(
        id="lm-quality-not-measured",
        title="The language-modelling cost is not measured",
        text=f"The (pseudo-)perplexity of the {plural(len(variants), 'variant')} against "
        "their bases is not in these results: the spec left it out (`lm_quality: "
        "{enabled: false}`), or they were written before results.json 3.0, which has it. "
        "A bias change (or none) says nothing of what making a variant cost it as a "
        "language model; a variant that moved a bias measure may have done so by "
        "damaging the model.",
        trigger=f"results.json: {plural(len(variants), 'variant')}, no lm_quality section",
        severity="info",
    )
