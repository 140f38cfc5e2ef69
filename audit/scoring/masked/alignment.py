"""Token alignment of a sentence pair (METHODS.md section 2).

The two token-id sequences (special tokens included) are aligned with
`difflib.SequenceMatcher` on the id lists, exactly as the CrowS-Pairs and Kaneko
reference code do (default arguments, so the same automatic-junk heuristic applies to
sequences of 200 tokens or more). Tokens inside `equal` blocks are *unmodified* (U), the
others *modified* (M). Special-token positions are in neither set: they are never scored.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PairAlignment:
    """Scored positions of each side of a pair, in increasing order."""

    unmodified_a: tuple[int, ...]
    unmodified_b: tuple[int, ...]
    modified_a: tuple[int, ...]
    modified_b: tuple[int, ...]


def align_pair(
    ids_a: Sequence[int],
    ids_b: Sequence[int],
    special_a: Sequence[bool],
    special_b: Sequence[bool],
) -> PairAlignment:
    """Split both sides' non-special positions into unmodified (U) and modified (M).

    `special_a[i]` is True where position i of side a is a special token ([CLS], </s>...).
    """
    if len(ids_a) != len(special_a) or len(ids_b) != len(special_b):
        raise ValueError("each special-token mask must be as long as its id sequence")
    # The reference code compares the ids as strings; equality is the same on ints.
    matcher = difflib.SequenceMatcher(None, list(ids_a), list(ids_b))
    equal_a: set[int] = set()
    equal_b: set[int] = set()
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            equal_a.update(range(a0, a1))
            equal_b.update(range(b0, b1))
    scored_a = [i for i, special in enumerate(special_a) if not special]
    scored_b = [i for i, special in enumerate(special_b) if not special]
    return PairAlignment(
        unmodified_a=tuple(i for i in scored_a if i in equal_a),
        unmodified_b=tuple(i for i in scored_b if i in equal_b),
        modified_a=tuple(i for i in scored_a if i not in equal_a),
        modified_b=tuple(i for i in scored_b if i not in equal_b),
    )
