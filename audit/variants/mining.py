"""Mining gendered sentences for bias-controlled fine-tuning (Kaneko et al. 2023) and the
corpus counts of Kaneko et al. 2022 Table 1 (METHODS.md section 5, issue 10).

A sentence is classified by the paired gender word lists, whole words only and ignoring
case (the same matching as `audit.variants.cda`): "female" when it holds only words of the
female list, "male" when only words of the male list, "mixed" when both, "neutral" when
neither. D_f and D_m are the female-only and male-only sentences, in corpus order;
duplicates are kept (deduplicate the corpus first if repeats should not count twice).

Sampling is seeded and nested: `downsample(pool, n, seed)` is a prefix of
`downsample(pool, n + k, seed)`, so with one seed the ratio models of a study draw their
male sentences from one fixed order of D_m and their female sentences from one of D_f.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from audit.errors import AuditUserError
from audit.variants.cda import gendered_word_regex
from audit.variants.wordlists import GenderWordLists, normalise_entry


class SentenceGender(StrEnum):
    FEMALE = "female"
    MALE = "male"
    MIXED = "mixed"
    NEUTRAL = "neutral"


@dataclass(frozen=True)
class CorpusCounts:
    """Counts of a corpus's sentences by class, as Kaneko et al. 2022 Table 1 shows them."""

    female_only: int
    male_only: int
    mixed: int
    neutral: int

    @property
    def total(self) -> int:
        return self.female_only + self.male_only + self.mixed + self.neutral


@dataclass(frozen=True)
class MinedCorpus:
    """D_f and D_m of a corpus plus its counts."""

    female: tuple[str, ...]
    male: tuple[str, ...]
    counts: CorpusCounts


class SentenceClassifier:
    """Classifies sentences with one compiled regex over both word lists."""

    def __init__(self, lists: GenderWordLists) -> None:
        self.lists = lists
        self.regex = gendered_word_regex(lists.male_words | lists.female_words)

    def classify(self, sentence: str) -> SentenceGender:
        has_male = has_female = False
        for match in self.regex.finditer(sentence):
            word = normalise_entry(match.group(0))
            has_male = has_male or word in self.lists.male_words
            has_female = has_female or word in self.lists.female_words
            if has_male and has_female:
                return SentenceGender.MIXED
        if has_male:
            return SentenceGender.MALE
        return SentenceGender.FEMALE if has_female else SentenceGender.NEUTRAL

    def mine(self, sentences: Iterable[str]) -> MinedCorpus:
        buckets: dict[SentenceGender, list[str]] = {g: [] for g in SentenceGender}
        for sentence in sentences:
            buckets[self.classify(sentence)].append(sentence)
        counts = CorpusCounts(
            female_only=len(buckets[SentenceGender.FEMALE]),
            male_only=len(buckets[SentenceGender.MALE]),
            mixed=len(buckets[SentenceGender.MIXED]),
            neutral=len(buckets[SentenceGender.NEUTRAL]),
        )
        return MinedCorpus(
            female=tuple(buckets[SentenceGender.FEMALE]),
            male=tuple(buckets[SentenceGender.MALE]),
            counts=counts,
        )


def classify(sentence: str, lists: GenderWordLists) -> SentenceGender:
    return SentenceClassifier(lists).classify(sentence)


def mine(sentences: Iterable[str], lists: GenderWordLists) -> MinedCorpus:
    """D_f (female-only) and D_m (male-only) sentences of a corpus, with its counts."""
    return SentenceClassifier(lists).mine(sentences)


def corpus_counts(sentences: Iterable[str], lists: GenderWordLists) -> CorpusCounts:
    return mine(sentences, lists).counts


def _check_count(n: object, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise AuditUserError(f"{what} must be a whole number >= 0, got {n!r}")
    return n


def downsample(
    sentences: Sequence[str], n: int, seed: int, *, pool_name: str = "the pool"
) -> list[str]:
    """`n` sentences drawn without replacement from a seeded shuffle (nested in `n`)."""
    n = _check_count(n, "the number of sentences to sample")
    if n > len(sentences):
        raise AuditUserError(
            f"{pool_name} has {len(sentences)} sentences, fewer than the {n} asked; "
            f"ask for at most {len(sentences)} or use a larger corpus"
        )
    order = list(range(len(sentences)))
    random.Random(seed).shuffle(order)
    return [sentences[i] for i in order[:n]]


def ratio_counts(n: int, r: float) -> tuple[int, int]:
    """(male, female) sentence counts for ratio r: round(r*n) and n - round(r*n)."""
    n = _check_count(n, "N")
    if (
        isinstance(r, bool) or not isinstance(r, int | float) or not 0.0 <= r <= 1.0
    ):  # NaN fails too
        raise AuditUserError(f"the ratio r must be a number in [0, 1], got {r!r}")
    n_male = round(r * n)
    return n_male, n - n_male


def ratio_mix(d_m: Sequence[str], d_f: Sequence[str], n: int, r: float, seed: int) -> list[str]:
    """round(r*n) male-only then n - round(r*n) female-only sentences (Kaneko et al. 2023).

    Python's `round` is used (halves go to the even number). Each pool is sampled with its
    own stream of `seed`, so the male part for a larger r extends the one for a smaller r.
    The result lists the male sentences first; shuffle for training as usual.
    """
    n_male, n_female = ratio_counts(n, r)
    male = downsample(d_m, n_male, seed, pool_name=f"D_m (male-only sentences, r={r}, N={n})")
    female = downsample(
        d_f, n_female, seed + 1, pool_name=f"D_f (female-only sentences, r={r}, N={n})"
    )
    return male + female
