"""What a correlation record says, in words the report tables and page 1 share: each
series with its scorer and direction ("distance to ideal 50; lower is less biased"), the
multiple-comparison correction of its family of tests, the models left out because their
fine-tuning failed the dev check, and rows that mix model families.

Everything is read from the `CorrelationRecord`s of results.json and the measure cards; a
file written before results_version 3.0 (raw values, no correction) is said to be one.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.report.cards import MeasureCards
from audit.report.formatting import fmt_bound, join_words, plural
from audit.results import CorrelationRecord, MeasureSeries

#: For people: each correction's name.
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


def series_name(cards: MeasureCards, series: MeasureSeries) -> str:
    """'Bias score on CrowS-Pairs, scored by sentence pseudo-log-likelihood (sss)'."""
    name = f"{cards.title(series.measure)} on {cards.dataset_title(series.dataset)}"
    if series.scorer is not None:
        name += f", scored by {cards.scorer_name(series.scorer)}"
    return name


def direction(cards: MeasureCards, series: MeasureSeries) -> str:
    """What the series' numbers are: 'distance to ideal 50; lower is less biased'."""
    if series.scale != "distance" or series.ideal_value is None:
        return "raw values, not distances to the ideal (results written before 3.0)"
    biased = cards.has_role(series.measure, "intrinsic") or cards.has_role(
        series.measure, "extrinsic"
    )
    lower = "less biased" if biased else "closer to the ideal"
    return f"distance to ideal {fmt_bound(series.ideal_value)}; lower is {lower}"


def correction_name(record: CorrelationRecord) -> str:
    return CORRECTION_NAMES.get(record.correction or "", "")


def correction_sentence(records: Sequence[CorrelationRecord]) -> str:
    """How the p-values were corrected, per family of tests."""
    corrected = [r for r in records if r.correction is not None]
    if not corrected:
        return (
            "The p-values are not corrected for multiple comparisons (results written before 3.0)."
        )
    families = {
        (r.test_family, r.family_size or 0, correction_name(r)): None
        for r in corrected
        if r.family_size
    }
    if not families:
        return "No test was computed: too few models with both values."
    parts = [
        f"{method} over the {plural(size, (family + ' test').strip())}"
        for family, size, method in families
    ]
    return (
        "p: raw; p (corr.): corrected for multiple comparisons, "
        + join_words(parts)
        + " (each coefficient's p-values are corrected on their own)."
    )


def excluded_sentence(records: Sequence[CorrelationRecord]) -> str:
    """Which models were left out (or kept although they failed the dev check), and why."""
    left_out = {f"{e.model} ({e.series}: {e.reason})": None for r in records for e in r.excluded}
    kept = {m: None for r in records for m in r.failed_kept}
    text = ""
    if left_out:
        text += (
            "Left out of the correlations because their fine-tuning did not learn the task "
            "(a value measured on an unlearned task measures noise): " + "; ".join(left_out) + "."
        )
    if kept:
        text += (
            (" " if text else "")
            + f"Kept although their fine-tuning failed the dev check (the spec's "
            f"correlations.failed_dev_check: keep): {join_words(list(kept))}."
        )
    return text


def mixed_note(record: CorrelationRecord) -> str:
    """The label of a row whose models are of more than one family."""
    if not record.mixes_families:
        return ""
    return (
        f"mixes model families ({', '.join(record.model_types)}): the correlation may only "
        "separate the families"
    )


def too_few_sentence(records: Sequence[CorrelationRecord], alpha: float) -> str:
    """Why none of the records can conclude anything, from the Kendall floor."""
    floors = [r for r in records if r.kendall_p_floor is not None]
    if not floors:
        n = max((r.n for r in records), default=0)
        return f"{plural(n, 'model')} with both values: too few for any test"
    best = min(floors, key=lambda r: r.kendall_p_floor or 1.0)
    method = correction_name(best)
    return (
        f"with {plural(best.n, 'model')} and {plural(best.family_size or 0, 'test')} "
        f"corrected by {method}, the smallest corrected Kendall p-value attainable is "
        f"{best.kendall_p_floor:.3g}, above alpha {alpha:g}, whatever the values"
    )


#: Most rows of a correlation table in the body: the significant ones, then the strongest.
BODY_CORRELATIONS = 8


def significant(record: CorrelationRecord, alpha: float) -> bool:
    """Any of the record's corrected p-values (Pearson, Spearman, Kendall) at most alpha:
    a row the body of a report shows first."""
    corrected = (
        record.pearson_p_corrected,
        record.spearman_p_corrected,
        record.kendall_p_corrected,
    )
    return any(p is not None and p <= alpha for p in corrected)


def strength(record: CorrelationRecord) -> float:
    """|Kendall τ| (0 without one): the order in which a shortened table keeps rows."""
    return abs(record.kendall_tau or 0.0)
