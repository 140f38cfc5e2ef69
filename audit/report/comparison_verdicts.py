"""The words of a paired comparison's verdict, one set for every place that shows them:
the paired-comparison study, Variants against their base, page 1 and `audit compare`.

The verdicts themselves are `audit.results.comparison_verdict`'s; here is how they are
styled, explained in a caption and counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.report.formatting import join_words
from audit.results import COMPARISON_VERDICTS, ComparisonRecord, CorrectedVerdict

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
        f"distance, p). Changed: the CI of {label_a} − {label_b} excludes 0, but the "
        "distance test decides neither way (the value moved, not known to be towards the "
        "ideal). No detectable change: neither test excludes 0."
    )


def count_verdicts(records: Sequence[ComparisonRecord]) -> dict[CorrectedVerdict, int]:
    """How many records have each verdict (every verdict present, 0 when none)."""
    return {v: sum(r.verdict == v for r in records) for v in COMPARISON_VERDICTS}


def tally(records: Sequence[ComparisonRecord]) -> str:
    """'2 closer to the ideal, 0 further from the ideal, 3 changed (not detectably closer
    or further) and 7 no detectable change' (and 'n undefined' when there are any)."""
    counts = count_verdicts(records)
    parts = [
        f"{counts['closer to the ideal']} closer to the ideal",
        f"{counts['further from the ideal']} further from the ideal",
        f"{counts['changed']} changed (not detectably closer or further)",
        f"{counts['no detectable change']} no detectable change",
    ]
    if counts["undefined"]:
        parts.append(f"{counts['undefined']} undefined")
    return join_words(parts)
