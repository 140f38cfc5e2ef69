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
from audit.report.formatting import fmt_bound, fmt_num, fmt_pct, join_words, plural
from audit.report.layout import BODY_ROWS
from audit.results import CorrelationRecord, DetectionLimit, MeasureSeries

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


def body_limit(found: Sequence[CorrelationRecord], alpha: float) -> int:
    """The rows of a correlation table the body shows: as many as any table's (the
    significant ones, then the strongest), or none when no pair is significant and no
    Kendall test of the table could have been (its caption says so; the whole table is in
    the appendix)."""
    limits = [c.detection for c in found if c.detection is not None]
    hopeless = bool(limits) and all(_critical(d) is None for d in limits)
    if hopeless and not any(significant(c, alpha) for c in found):
        return 0
    return BODY_ROWS


def significant(record: CorrelationRecord, alpha: float) -> bool:
    """Any of the record's corrected p-values (Pearson, Spearman, Kendall) at most alpha
    (a pair that is one by construction never is): a row the body of a report shows
    first."""
    if record.trivial:
        return False
    corrected = (
        record.pearson_p_corrected,
        record.spearman_p_corrected,
        record.kendall_p_corrected,
    )
    return any(p is not None and p <= alpha for p in corrected)


def strength(record: CorrelationRecord) -> float:
    """|Kendall τ| (0 without one): the order in which a shortened table keeps rows."""
    return abs(record.kendall_tau or 0.0)


def detection_words(detection: DetectionLimit, *, statistic: str = "τ") -> str:
    """'with 12 models and 24 tests corrected by Holm, |τ| had to reach 0.67 to be
    significant; the test's power was 19% at τ 0.5 and 3% at τ 0.3'."""
    method = CORRECTION_NAMES.get(detection.correction or "", "")
    tests = plural(detection.family_size, "test")
    corrected = f" corrected by {method}" if method else " (uncorrected)"
    reach = _reach(detection, " to be significant")
    shown = sorted(detection.power, key=lambda p: -p.tau)
    powers = join_words([f"{fmt_pct(p.power)} at τ {fmt_bound(p.tau)}" for p in shown])
    return (
        f"with {plural(detection.n, 'model')} and {tests}{corrected}, {reach}; the test's "
        f"power was {powers}"
    )


def _critical(detection: DetectionLimit) -> float | None:
    """The smallest |statistic| of the detection limit's test that can be significant (None:
    none can)."""
    if detection.test == "kendall":
        return detection.critical_kendall_tau
    return detection.critical_spearman_rho


def _reach(detection: DetectionLimit, tail: str) -> str:
    """'|τ| had to reach 0.67' + tail, or 'no |τ| could be significant' (the test's
    statistic: τ for Kendall, ρ for Spearman)."""
    critical = _critical(detection)
    symbol = "τ" if detection.test == "kendall" else "ρ"
    if critical is None:
        return f"no |{symbol}| could be significant"
    return f"|{symbol}| had to reach {fmt_num(critical, 2)}{tail}"


def detection_short(detection: DetectionLimit) -> str:
    """Page 1's form: 'with 12 models and 24 tests (Holm), |τ| had to reach 0.67; power
    19% at τ 0.5'."""
    method = CORRECTION_NAMES.get(detection.correction or "", "uncorrected")
    reach = _reach(detection, "")
    text = f"with {plural(detection.n, 'model')} and {plural(detection.family_size, 'test')} "
    text += f"({method}), {reach}"
    if detection.powered:
        return text + (
            f"; power {fmt_pct(detection.power_at_effect)} at τ {fmt_bound(detection.effect_size)}"
        )
    return text + f": {undetectable_words(detection)}"


def undetectable_words(detection: DetectionLimit) -> str:
    """'this study could not have detected a correlation of τ 0.5 (power 19% < 80%)'."""
    return (
        f"this study could not have detected a correlation of τ {fmt_bound(detection.effect_size)}"
        f" (power {fmt_pct(detection.power_at_effect)} < {fmt_pct(detection.target_power)})"
    )


def best_detection(records: Sequence[CorrelationRecord]) -> DetectionLimit | None:
    """The detection limit of the table's most powerful test (the most models)."""
    found = [r.detection for r in records if r.detection is not None]
    return max(found, key=lambda d: (d.power_at_effect, d.n), default=None)


def counted(records: Sequence[CorrelationRecord]) -> list[CorrelationRecord]:
    """The records that are findings: tested, and not one by construction."""
    return [r for r in records if not r.trivial and r.kendall_tau is not None]


def trivial_sentence(records: Sequence[CorrelationRecord]) -> str:
    """How many pairs are one by construction and left out of every count."""
    trivial = [r for r in records if r.trivial]
    if not trivial:
        return ""
    return (
        f"{plural(len(trivial), 'pair')} {'is' if len(trivial) == 1 else 'are'} one by "
        "construction (identical series, a rescaling, or two measures from the same "
        "Gaussian fits) and not counted"
    )


def tau_with_interval(record: CorrelationRecord) -> str:
    """'τ -0.55 [-0.81, -0.12]' (the two-level bootstrap interval when there is one)."""
    text = f"τ {fmt_num(record.kendall_tau, 2)}"
    if record.kendall_tau_ci_low is not None and record.kendall_tau_ci_high is not None:
        text += (
            f" [{fmt_num(record.kendall_tau_ci_low, 2)}, {fmt_num(record.kendall_tau_ci_high, 2)}]"
        )
    return text


def interval_words(records: Sequence[CorrelationRecord]) -> str:
    """Which noise the table's τ intervals cover."""
    with_ci = [r for r in records if r.kendall_tau_ci_low is not None]
    if not with_ci:
        return ""
    items = all(r.items_resampled for r in with_ci) and all(
        len(r.items_resampled) == 2 for r in with_ci
    )
    if items:
        return (
            "Intervals: two-level bootstrap, the models resampled and within each model the "
            "items of both measures."
        )
    return (
        "Intervals: bootstrap over the models; the items are resampled within each model "
        "only for the measures named in each cell's note, so the other measures' item noise "
        "is left out."
    )
