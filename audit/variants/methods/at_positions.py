"""AT's word positions and schedules (`audit.variants.methods.at_loss`): where a sentence's
target or attribute words lie in its tokens, the reference's per-sentence word weights, and
the reference's seeded batches and term order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from audit.training.encode import Encoded, encode_sentences
from audit.training.schedule import Stream, permutation
from audit.variants.wordlists import normalise_entry

if TYPE_CHECKING:
    from audit.variants.objective import ObjectiveSetup


@dataclass(frozen=True)
class LocatedSentence:
    """An encoded sentence and the token positions of the words found in it."""

    enc: Encoded
    words: tuple[tuple[int, ...], ...]  # token positions of each word found, in text order
    classes: tuple[str, ...]  # the attribute class of each word ('' for target words)

    def positions(self) -> tuple[int, ...]:
        return tuple(sorted({p for word in self.words for p in word}))


def word_positions(enc: Encoded, start: int, end: int) -> tuple[int, ...]:
    """Positions of the (non-special) tokens whose characters overlap [start, end)."""
    assert enc.offsets is not None
    return tuple(
        i
        for i, (a, b) in enumerate(enc.offsets)
        if b > a and a < end and b > start and not enc.special[i]
    )


def locate(
    enc: Encoded, text: str, regex: re.Pattern[str], class_of: dict[str, str] | None
) -> LocatedSentence:
    """The words of `regex` in `text`, as token positions of `enc` (words cut off by
    truncation are left out)."""
    words: list[tuple[int, ...]] = []
    classes: list[str] = []
    for match in regex.finditer(text):
        positions = word_positions(enc, match.start(), match.end())
        if positions:
            words.append(positions)
            classes.append(class_of[normalise_entry(match.group(0))] if class_of else "")
    return LocatedSentence(enc, tuple(words), tuple(classes))


def reference_weights(words: Sequence[tuple[int, ...]], width: int) -> torch.Tensor:
    """The code's per-sentence selection [B, width]: each word's positions weighted
    1/longest, shifted one place left when the longest word has several tokens."""
    longest = max((len(w) for w in words), default=1)
    weights = torch.zeros(len(words), width)
    for row, word in enumerate(words):
        for p in word:
            q = p - 1 if longest > 1 else p
            if 0 <= q < width:
                weights[row, q] += 1.0 / longest
    return weights


def fresh_batch(n: int, size: int, seed: int, stream: Stream, step: int) -> list[int]:
    """The reference's batch at `step`: the first `size` of a fresh seeded permutation of
    the `n` sentences (all of them when there are fewer)."""
    return [int(i) for i in permutation(n, seed, stream, step)[:size]]


def reference_kind(step: int, per_kind: int, kinds: int, seed: int) -> int:
    """Which term step `step` trains in the reference's schedule: a pass holds `per_kind`
    steps of each of `kinds` kinds in a seeded shuffled order (the code's shuffled
    `train_distribution`); 0 is L_debias, c + 1 the regulariser on attribute class c."""
    length = per_kind * kinds
    epoch, offset = divmod(step, length)
    return int(permutation(length, seed, Stream.TERM_ORDER, epoch)[offset]) // per_kind


def encode_with_offsets(
    setup: ObjectiveSetup, sentences: Sequence[str], what: str
) -> list[Encoded]:
    """The setup's sentences with their character offsets (words are found by offset)."""
    return encode_sentences(
        setup.tokenizer,
        setup.model,
        sentences,
        model_type=setup.model_type,
        max_length=setup.max_length,
        offsets=True,
        what=what,
    )
