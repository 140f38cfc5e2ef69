"""What a paired comparison of model A with model B says moved, as one word group.

Two paired-bootstrap intervals decide it (`audit.stats.comparison`):

- **closer to the ideal** / **further from the ideal**: the (1 - alpha) interval of
  |A - ideal| - |B - ideal| lies wholly below / above 0 (the distance test);
- **changed**: the distance test decides neither, but the interval of A - B excludes 0:
  the value moved, and it is not known to have moved towards or away from the ideal
  (e.g. from one side of the ideal to the other, or by less than the distance test sees);
- **no detectable change**: neither interval excludes 0;
- **undefined**: no paired test (a value missing, no scores to pair, ...; the note says).

Since results_version 4.0 a record's `verdict` is decided by p-values corrected over its
family of comparisons (`CorrectedVerdict`), and can also be **borderline**: the corrected
decision depends on the resampling (it differs within the Monte-Carlo uncertainty of a
bootstrap p-value, or a decisive interval's bound lies within one item of 0); a borderline
record is never counted as a change. `judge_comparison` (the two intervals alone) gives
`verdict_uncorrected`.

Results version 2 had `better` / `worse` / `not distinguishable`; `not distinguishable`
covered both `changed` and `no detectable change` (`audit/migrations/v2.py`).
"""

from __future__ import annotations

from typing import Literal, get_args

ComparisonVerdict = Literal[
    "closer to the ideal",
    "further from the ideal",
    "changed",
    "no detectable change",
    "undefined",
]

CorrectedVerdict = Literal[
    "closer to the ideal",
    "further from the ideal",
    "changed",
    "no detectable change",
    "borderline",
    "undefined",
]

#: Every verdict, in the order a tally lists them.
COMPARISON_VERDICTS: tuple[CorrectedVerdict, ...] = get_args(CorrectedVerdict)

#: The verdicts that say a value moved (a borderline one never counts).
MOVED: frozenset[str] = frozenset({"closer to the ideal", "further from the ideal", "changed"})


def _excludes_zero(low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and (low > 0 or high < 0)


def judge_comparison(
    *,
    difference_low: float | None,
    difference_high: float | None,
    distance_low: float | None,
    distance_high: float | None,
) -> ComparisonVerdict:
    """The verdict from the interval of A - B and of |A - ideal| - |B - ideal|; 'undefined'
    when neither interval exists."""
    if distance_low is not None and distance_high is not None:
        if distance_high < 0:
            return "closer to the ideal"
        if distance_low > 0:
            return "further from the ideal"
    if _excludes_zero(difference_low, difference_high):
        return "changed"
    if None in (difference_low, difference_high) and None in (distance_low, distance_high):
        return "undefined"
    return "no detectable change"
