"""A family of paired comparisons judged together: their p-values corrected for their
number, their verdicts decided after the correction, the decisions that depend on the
resampling labelled borderline, and what each could have detected.

The family is the set of comparisons a count on page 1 adds up (every variant against
its base, every ratio model against its base, every two models, or one `audit compare`).

1. **One finding, one test.** Records whose values and p-values are identical on the same
   models, dataset, scorer and group (the bias score and StereoSet's `ss`: one number
   under two names) are one test: m counts it once, and the later record notes it.
2. **Enough resamples for the correction.** A bootstrap p-value cannot go below
   2 / (B + 1); under Holm over m tests the first step needs alpha / m. A test whose raw
   p-value is at most alpha (the only ones a correction can keep) is redrawn with
   `needed_resamples(m, alpha)` resamples when B is fewer, so that alpha / m is resolved
   (at least 20 resamples beyond it). The difference of a `pair_indicator` measure (the
   bias score) is tested exactly by McNemar instead, with no resampling at all.
3. **Correction** by Holm (default) or Benjamini-Hochberg, the distance test's p-values
   and the difference test's each over the family (`audit.stats.multiple_testing`).
4. **Verdict** after correction: closer to / further from the ideal when the corrected
   distance p is at most alpha (by the sign of the distance difference), else changed
   when the corrected difference p is, else no detectable change.
5. **Borderline** when the verdict depends on the resampling: recomputed with every
   bootstrap p-value at the low and at the high end of its Monte-Carlo band (p +- 3
   sqrt(p (1 - p) / B)), the verdict differs; or the verdict rests on an interval of a
   pair-indicator measure whose bound lies within one pair (100 / n) of 0. A borderline
   record is never counted as a change.
6. **Detectable difference**: the smallest |A - B| the corrected two-sided test detects
   with the asked power, (z(1 - alpha / 2m) + z(power)) x SE, SE the bootstrap standard
   deviation of A - B (a normal approximation). For a difference tested by the exact
   McNemar test it is never below what that test can reach at all: k pairs of n (100 k / n
   points), k the fewest discordant pairs, all one way, whose two-sided p (2 x 0.5^k) is at
   most alpha / m. Two models that agree on every pair (SE 0) could still not have shown a
   change of fewer than k pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scipy import stats

from audit.results import ComparisonRecord, CorrectedVerdict
from audit.stats.multiple_testing import CORRECTION_NAMES, Correction, adjust_pvalues

#: Resamples beyond alpha / m a redrawn bootstrap p-value resolves.
RESOLUTION = 20
#: The most resamples one redrawn p-value takes.
MAX_RESAMPLES = 100_000
#: Monte-Carlo band of a bootstrap p-value: this many standard errors either side.
MC_BAND = 3.0

#: Recomputes a record's bootstrap p-values with n resamples: (difference p or None when it
#: is exact, distance p).
Retest = Callable[[int], tuple[float | None, float]]


@dataclass(frozen=True)
class PendingComparison:
    """A comparison judged on its own, with how to redraw its p-values."""

    record: ComparisonRecord
    retest: Retest | None = None


def needed_resamples(m: int, alpha: float) -> int:
    """Resamples a bootstrap p-value needs to resolve alpha / m: RESOLUTION resamples
    beyond it, at most MAX_RESAMPLES."""
    return min(MAX_RESAMPLES, math.ceil(RESOLUTION * max(m, 1) / alpha))


def _same_test_key(r: ComparisonRecord) -> tuple[object, ...]:
    return (
        r.dataset,
        r.scorer.key,
        r.group,
        r.model_a,
        r.model_b,
        r.value_a,
        r.value_b,
        r.difference_p,
        r.p_value,
    )


def _band(p: float | None, resamples: int | None, exact: bool) -> tuple[float | None, float | None]:
    """The Monte-Carlo band of a p-value (an exact one has none)."""
    if p is None or exact or not resamples:
        return p, p
    half = MC_BAND * math.sqrt(max(p * (1 - p), 1.0 / resamples) / resamples)
    return max(0.0, p - half), min(1.0, p + half)


def _verdict(
    r: ComparisonRecord, dist_p: float | None, diff_p: float | None, alpha: float
) -> CorrectedVerdict:
    if r.verdict == "undefined" or r.distance_difference is None:
        return "undefined"
    if dist_p is not None and dist_p <= alpha:
        return "closer to the ideal" if r.distance_difference < 0 else "further from the ideal"
    if diff_p is not None and diff_p <= alpha:
        return "changed"
    return "no detectable change"


def _one_item(r: ComparisonRecord, verdict: CorrectedVerdict, indicator: bool) -> str:
    """Why a pair-indicator verdict rests on one pair, '' when it does not."""
    if (
        not indicator
        or r.n_items < 1
        or verdict not in ("closer to the ideal", "further from the ideal")
    ):
        return ""
    step = 100.0 / r.n_items
    bound = r.distance_ci_high if verdict == "closer to the ideal" else r.distance_ci_low
    if bound is not None and abs(bound) <= step + 1e-12:
        return (
            f"the distance interval's bound ({bound:+.3g}) lies within one pair "
            f"({step:.3g} points) of 0"
        )
    return ""


def correct_family(
    pending: Sequence[PendingComparison],
    *,
    family: str,
    correction: Correction,
    alpha: float,
    power: float,
) -> list[ComparisonRecord]:
    """The records of one family, corrected and judged (see the module docstring), in
    input order."""
    records = [p.record for p in pending]
    first_of: dict[tuple[object, ...], int] = {}
    for i, r in enumerate(records):
        if r.p_value is not None:
            first_of.setdefault(_same_test_key(r), i)
    distinct = sorted(set(first_of.values()))
    m = len(distinct)
    needed = needed_resamples(m, alpha)
    tested: dict[int, ComparisonRecord] = {}
    for i in distinct:
        r, retest = records[i], pending[i].retest
        raw = [p for p in (r.p_value, None if _exact(r) else r.difference_p) if p is not None]
        if retest is not None and (r.resamples_for_p or 0) < needed and min(raw) <= alpha:
            diff_p, dist_p = retest(needed)
            r = r.model_copy(
                update={
                    "p_value": dist_p,
                    "difference_p": r.difference_p if _exact(r) else diff_p,
                    "resamples_for_p": needed,
                }
            )
        tested[i] = r
    ordered = [tested[i] for i in distinct]
    dist = adjust_pvalues([r.p_value for r in ordered], correction)
    diff = adjust_pvalues([r.difference_p for r in ordered], correction)
    bands = [
        (
            _band(r.p_value, r.resamples_for_p, False),
            _band(r.difference_p, r.resamples_for_p, _exact(r)),
        )
        for r in ordered
    ]
    low = [adjust_pvalues([b[k][0] for b in bands], correction) for k in (0, 1)]
    high = [adjust_pvalues([b[k][1] for b in bands], correction) for k in (0, 1)]
    z = float(stats.norm.isf(alpha / (2 * max(m, 1)))) + float(stats.norm.ppf(power))
    judged: dict[int, ComparisonRecord] = {}
    for j, (i, r) in enumerate(zip(distinct, ordered, strict=True)):
        verdict = _verdict(r, dist[j], diff[j], alpha)
        why = ""
        at_low = _verdict(r, low[0][j], low[1][j], alpha)
        at_high = _verdict(r, high[0][j], high[1][j], alpha)
        if verdict != "undefined" and at_low != at_high:
            why = (
                f"with its bootstrap p-values ({r.resamples_for_p:,} resamples) anywhere in "
                f"their Monte-Carlo uncertainty the verdict is '{at_low}' or '{at_high}'"
            )
        why = why or _one_item(r, verdict, _exact(r))
        judged[i] = r.model_copy(
            update={
                "verdict": "borderline" if why else verdict,
                "borderline_reason": why,
                "correction": correction,
                "test_family": family,
                "family_size": m,
                "p_value_corrected": dist[j],
                "difference_p_corrected": diff[j],
                "detectable_difference": detectable(r, z, alpha, m),
                "detectable_power": power,
            }
        )
    out: list[ComparisonRecord] = []
    for i, r in enumerate(records):
        if i in judged:
            out.append(judged[i])
            continue
        first = first_of.get(_same_test_key(r))
        if first is None:  # no test at all (undefined)
            out.append(
                r.model_copy(
                    update={"correction": correction, "test_family": family, "family_size": m}
                )
            )
            continue
        twin = judged[first]
        note = (
            f"the same values and test as {twin.measure.label} on these models: one finding, "
            f"counted once in the {CORRECTION_NAMES[correction]} correction"
        )
        out.append(
            r.model_copy(
                update={
                    k: getattr(twin, k)
                    for k in (
                        "verdict",
                        "borderline_reason",
                        "correction",
                        "test_family",
                        "family_size",
                        "p_value",
                        "difference_p",
                        "resamples_for_p",
                        "p_value_corrected",
                        "difference_p_corrected",
                        "detectable_difference",
                        "detectable_power",
                    )
                }
                | {
                    "note": "; ".join(filter(None, [r.note, note])),
                    "same_test_as": twin.measure.label,
                }
            )
        )
    return out


def _exact(r: ComparisonRecord) -> bool:
    return r.difference_test == "exact McNemar"


def fewest_pairs(alpha: float, m: int) -> int:
    """The fewest discordant pairs, all one way, whose exact two-sided McNemar p-value
    (2 x 0.5^k) is at most alpha / m: no smaller change can be significant."""
    return max(1, math.ceil(math.log2(2 * max(m, 1) / alpha) - 1e-12))


def detectable(r: ComparisonRecord, z: float, alpha: float, m: int) -> float | None:
    """The smallest |A - B| the family's corrected test detects (module docstring, 6)."""
    if r.difference_se is None:
        return None
    normal = z * r.difference_se
    if _exact(r) and r.n_items > 0:
        return max(normal, fewest_pairs(alpha, m) * 100.0 / r.n_items)
    return normal


def correct_families(
    pending: Sequence[PendingComparison],
    *,
    family_of: Callable[[ComparisonRecord], str],
    correction: Correction,
    alpha: float,
    power: float,
) -> list[ComparisonRecord]:
    """Every family of `pending` (by `family_of`) corrected on its own, in input order."""
    families: dict[str, list[int]] = {}
    for i, p in enumerate(pending):
        families.setdefault(family_of(p.record), []).append(i)
    out: list[ComparisonRecord | None] = [None] * len(pending)
    for family, members in families.items():
        fixed = correct_family(
            [pending[i] for i in members],
            family=family,
            correction=correction,
            alpha=alpha,
            power=power,
        )
        for i, record in zip(members, fixed, strict=True):
            out[i] = record
    return [r for r in out if r is not None]
