"""The words of a paired comparison's verdict, one set for every place that shows them:
the paired-comparison study, Variants against their base, page 1 and `audit compare`.

The verdicts themselves are `audit.results.comparison_verdict`'s; here is how they are
styled, explained in a caption and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit.report.cards import MeasureCards
from audit.report.cells import digits_for
from audit.report.formatting import fmt_num, fmt_pct, join_words, plural
from audit.report.index import unique
from audit.results import COMPARISON_VERDICTS, MOVED, ComparisonRecord, CorrectedVerdict

#: For people: each correction's name.
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}

#: How a verdict cell is styled: only a move towards or away from the ideal is judged.
EMPHASIS: dict[CorrectedVerdict, str] = {
    "closer to the ideal": "good",
    "further from the ideal": "bad",
    "changed": "",
    "no detectable change": "",
    "borderline": "warn",
    "undefined": "warn",
}


def verdict_key(label_a: str, label_b: str) -> str:
    """What each verdict means, for a table's caption."""
    return (
        f"Closer to / further from the ideal: {label_a}'s distance to the measure's ideal "
        f"value is significantly smaller / larger than {label_b}'s (the paired test of the "
        f"distance, p). Changed: the test of {label_a} − {label_b} (McNemar's exact test "
        "for the bias score, else the paired bootstrap) is significant, but the distance "
        "test decides neither way (the value moved, not known to be towards the ideal). "
        "Significant means after the correction over the family of comparisons (p corr.). "
        "Borderline: the decision depends on the resampling (it differs within the "
        "bootstrap p-value's Monte-Carlo uncertainty, or an interval's bound lies within one "
        "pair of 0): never counted as a change. No detectable change: neither test is "
        "significant; each cell's note gives the smallest difference detectable with the "
        "stated power."
    )


def distinct(records: Sequence[ComparisonRecord]) -> list[ComparisonRecord]:
    """The records that are findings of their own: a record with the same values and test
    as an earlier one (the bias score and StereoSet's `ss`) is counted once, there."""
    return [r for r in records if not r.same_test_as]


def count_verdicts(records: Sequence[ComparisonRecord]) -> dict[CorrectedVerdict, int]:
    """How many distinct records have each verdict (every verdict present, 0 when none)."""
    found = distinct(records)
    return {v: sum(r.verdict == v for r in found) for v in COMPARISON_VERDICTS}


def tally(records: Sequence[ComparisonRecord], *, short: bool = False) -> str:
    """'1 changed (not detectably closer or further), 1 borderline (not counted as a
    change) and 7 no detectable change; none closer to or further from the ideal': the
    verdicts of the distinct records, those with none said once at the end."""
    counts = count_verdicts(records)
    words = {
        "closer to the ideal": "closer to the ideal",
        "further from the ideal": "further from the ideal",
        "changed": "changed (not detectably closer or further)",
        "borderline": "borderline (not counted as a change)",
        "no detectable change": "no detectable change",
        "undefined": "undefined",
    }
    if short:
        words = {v: w.split(" (")[0] for v, w in words.items()}
    parts = [f"{counts[v]} {w}" for v, w in words.items() if counts[v]]  # type: ignore[index]
    text = join_words(parts) or "none"
    none = [
        v for v in ("closer to the ideal", "further from the ideal", "changed") if not counts[v]
    ]
    if len(none) == 3:
        text += "; none closer to or further from the ideal, none changed"
    elif none:
        text += "; none " + " or ".join(none)
    return text


def family_words(records: Sequence[ComparisonRecord], *, short: bool = False) -> str:
    """How the records were judged: 'Holm-corrected over the 96 comparisons of variants
    against their base' ('Holm over 96' when `short`), per family, or that they were not
    corrected."""
    judged = [r for r in records if r.correction is not None]
    if not judged:
        return "uncorrected: results written before 4.0"
    families = {(r.test_family, r.family_size or 0, r.correction): None for r in judged}
    parts = [
        f"{CORRECTION_NAMES.get(c or '', c)} over {m}"
        if short
        else f"{CORRECTION_NAMES.get(c or '', c)}-corrected over the {plural(m, 'comparison')} "
        f"of {family}"
        for family, m, c in families
    ]
    return join_words(parts)


def before_correction(records: Sequence[ComparisonRecord]) -> str:
    """'4 had moved before the correction (none after it)' ('' when none, or not
    corrected)."""
    found = [r for r in distinct(records) if r.correction is not None]
    moved = [r for r in found if r.verdict_uncorrected in MOVED]
    if not moved:
        return ""
    kept = sum(r.verdict in MOVED for r in moved)
    return f"{len(moved)} had moved before the correction" + (
        f" ({kept} still after it)" if kept else " (none after it)"
    )


def duplicate_words(records: Sequence[ComparisonRecord]) -> str:
    """'24 more repeat an identical comparison under another measure's name'."""
    twins = [r for r in records if r.same_test_as]
    if not twins:
        return ""
    names = unique(r.measure.label for r in twins)
    return (
        f"{plural(len(twins), 'more comparison')} repeat an identical one under another "
        f"name ({join_words(names)} equal {join_words(unique(r.same_test_as for r in twins))} "
        "on these models) and are counted once"
    )


def moved_words(records: Sequence[ComparisonRecord], cards: MeasureCards) -> list[str]:
    """Each distinct record that moved after the correction, largest |change| first:
    'minilm-cda: bias score on CrowS-Pairs (AULA) 49.2 -> 56.5 (+7.3 [+0.4, +14.1]),
    further from the ideal'."""
    moved = [r for r in distinct(records) if r.verdict in MOVED and r.difference is not None]
    moved.sort(key=lambda r: -abs(r.difference or 0.0))
    out = []
    for r in moved:
        digits = digits_for([r.value_a, r.value_b])
        change = f"{r.difference:+.{digits}f}"
        if r.difference_ci_low is not None and r.difference_ci_high is not None:
            change += f" [{r.difference_ci_low:+.{digits}f}, {r.difference_ci_high:+.{digits}f}]"
        out.append(
            f"{r.model_a}: {cards.name(r.measure)} on {cards.dataset_title(r.dataset)} "
            f"({r.scorer.label}) {fmt_num(r.value_b, digits)} → {fmt_num(r.value_a, digits)} "
            f"({change}), {r.verdict}"
        )
    return out


def detectable_words(records: Sequence[ComparisonRecord], cards: MeasureCards) -> str:
    """What the comparisons could have detected, for their first pair-indicator measure
    (the bias score) or else their first measure: 'a change of the bias score smaller than
    3.7 to 15.5 points was not detectable (80% power)'."""
    found = [r for r in distinct(records) if r.detectable_difference is not None]
    if not found:
        return ""
    indicator = [r for r in found if cards.has_role(r.measure, "pair_indicator")]
    chosen = indicator or [r for r in found if r.measure == found[0].measure]
    values = [r.detectable_difference for r in chosen if r.detectable_difference is not None]
    digits = digits_for([v for r in chosen for v in (r.value_a, r.value_b)])
    low, high = fmt_num(min(values), digits), fmt_num(max(values), digits)
    span = low if low == high else f"{low} to {high} (by comparison)"
    power = fmt_pct(chosen[0].detectable_power)
    return (
        f"changes of the {cards.name(chosen[0].measure)} below {span} were undetectable "
        f"({power} power)"
    )


@dataclass(frozen=True)
class ComparisonWords:
    """What page 1 says of a set of paired comparisons: how many ('3 distinct paired
    comparisons'), their family and correction, their verdicts tallied, the sentences
    on what they could detect and on repeated pairs (those that apply), and what moved,
    largest change first."""

    counted: str
    family: str
    tally: str
    extra: list[str]
    moved: list[str]


def comparison_words(records: Sequence[ComparisonRecord], cards: MeasureCards) -> ComparisonWords:
    """`ComparisonWords` of `records` (short forms, for page 1)."""
    extra = [detectable_words(records, cards), duplicate_words(records)]
    return ComparisonWords(
        counted=plural(len(distinct(records)), "distinct paired comparison"),
        family=family_words(records, short=True),
        tally=tally(records, short=True),
        extra=[e for e in extra if e],
        moved=moved_words(records, cards),
    )
