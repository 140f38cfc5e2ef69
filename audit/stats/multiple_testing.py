"""Multiple-comparison corrections of a family of p-values, and the smallest p-value a
family's Kendall test can reach with a given number of models.

- Holm (1979), step-down, controls the family-wise error rate: with the m p-values sorted
  p_(1) <= ... <= p_(m), adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j)).
- Benjamini & Hochberg (1995), step-up, controls the false discovery rate: adjusted
  p_(i) = min over j >= i of min(1, m p_(j) / j) (`scipy.stats.false_discovery_control`).

A test whose p-value is None (not computed) is not part of the family: its adjusted value
is None and it does not count in m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

#: The corrections a spec can ask for (`correlations.correction`).
Correction = Literal["holm", "bh"]

#: For people: each correction's name.
CORRECTION_NAMES: dict[str, str] = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


def adjust_pvalues(pvalues: Sequence[float | None], method: Correction) -> list[float | None]:
    """The family's p-values adjusted by `method`, in input order (None stays None)."""
    tested = [(i, p) for i, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = [None] * len(pvalues)
    m = len(tested)
    if m == 0:
        return out
    ranked = sorted(tested, key=lambda item: item[1])
    if method == "holm":
        running = 0.0
        for rank, (i, p) in enumerate(ranked):
            running = max(running, min(1.0, (m - rank) * p))
            out[i] = running
    elif method == "bh":
        running = 1.0
        for rank in range(m - 1, -1, -1):
            i, p = ranked[rank]
            running = min(running, min(1.0, m * p / (rank + 1)))
            out[i] = running
    else:
        raise ValueError(f"unknown correction {method!r}; expected one of {list(CORRECTION_NAMES)}")
    return out


def min_kendall_p(n: int) -> float:
    """The smallest two-sided p-value of the exact Kendall tau test with n models (no ties):
    2 / n!, reached when the two rankings agree (or disagree) completely; 1 below 2 models."""
    if n < 2:
        return 1.0
    return min(1.0, 2.0 / math.factorial(n))


def min_corrected_p(p_min: float, m: int, method: Correction) -> float:
    """The smallest adjusted p-value a test whose own p-value cannot go below `p_min` can
    reach in a family of m tests: Holm m * p_min (the test ranked first); Benjamini-Hochberg
    p_min (every test of the family at its own minimum)."""
    if method == "holm":
        return min(1.0, max(m, 1) * p_min)
    if method == "bh":
        return p_min
    raise ValueError(f"unknown correction {method!r}; expected one of {list(CORRECTION_NAMES)}")
