"""Mining D_f / D_m, seeded downsampling, ratio mixes and corpus counts."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from audit.errors import AuditUserError
from audit.variants.mining import (
    SentenceGender,
    classify,
    corpus_counts,
    downsample,
    mine,
    ratio_mix,
)
from audit.variants.wordlists import GenderWordLists, load_gender_word_lists

LISTS = GenderWordLists.from_pairs(
    [("he", "she"), ("his", "her"), ("man", "woman"), ("men", "women"), ("king", "queen")]
)
CORPUS = [
    "He runs.",
    "The woman sings.",
    "A man and a woman talk.",
    "A cat sleeps.",
    "Her king waits.",
    "SHE laughs.",
    "The hero rests.",
    "The men's room.",
]
D_M = [f"man {i}" for i in range(20)]
D_F = [f"woman {i}" for i in range(20)]


def test_classify() -> None:
    assert classify("He runs.", LISTS) is SentenceGender.MALE
    assert classify("SHE laughs.", LISTS) is SentenceGender.FEMALE
    assert classify("Her king waits.", LISTS) is SentenceGender.MIXED
    assert classify("The hero rests.", LISTS) is SentenceGender.NEUTRAL
    assert classify("The men's room.", LISTS) is SentenceGender.MALE


def test_mining_keeps_no_mixed_sentence() -> None:
    mined = mine(CORPUS, LISTS)
    assert mined.female == ("The woman sings.", "SHE laughs.")
    assert mined.male == ("He runs.", "The men's room.")
    for sentence in mined.female:
        assert classify(sentence, LISTS) is SentenceGender.FEMALE
    for sentence in mined.male:
        assert classify(sentence, LISTS) is SentenceGender.MALE
    counts = mined.counts
    assert (counts.female_only, counts.male_only, counts.mixed, counts.neutral) == (2, 2, 2, 2)
    assert counts.total == len(CORPUS)
    assert corpus_counts(CORPUS, LISTS) == counts


def test_downsample_is_seeded_and_nested() -> None:
    first = downsample(D_M, 5, seed=3)
    assert first == downsample(D_M, 5, seed=3)
    assert len(set(first)) == 5 and set(first) <= set(D_M)
    assert downsample(D_M, 8, seed=3)[:5] == first
    assert downsample(D_M, 5, seed=4) != first
    assert downsample(D_M, 0, seed=3) == []


@pytest.mark.parametrize(("r", "n_male"), [(0.0, 0), (0.3, 3), (1.0, 10), (0, 0), (1, 10)])
def test_ratio_mix_counts_are_exact(r: float, n_male: int) -> None:
    mix = ratio_mix(D_M, D_F, n=10, r=r, seed=0)
    assert len(mix) == 10
    assert sum(s in D_M for s in mix) == n_male
    assert sum(s in D_F for s in mix) == 10 - n_male
    assert len(set(mix)) == 10
    assert mix == ratio_mix(D_M, D_F, n=10, r=r, seed=0)


def test_ratio_mix_male_part_grows_with_r() -> None:
    low = [s for s in ratio_mix(D_M, D_F, n=10, r=0.3, seed=1) if s in D_M]
    high = [s for s in ratio_mix(D_M, D_F, n=10, r=0.7, seed=1) if s in D_M]
    assert high[: len(low)] == low


@pytest.mark.parametrize("r", [1.2, -0.1, float("nan"), True])
def test_ratio_outside_unit_interval_is_an_error(r: float) -> None:
    with pytest.raises(AuditUserError, match=r"ratio r must be a number in \[0, 1\]"):
        ratio_mix(D_M, D_F, n=10, r=r, seed=0)


def test_too_few_sentences_says_how_many_there_are() -> None:
    with pytest.raises(AuditUserError, match=r"D_m .* has 20 sentences, fewer than the 24"):
        ratio_mix(D_M, D_F, n=30, r=0.8, seed=0)
    with pytest.raises(AuditUserError, match=r"D_f .* has 3 sentences, fewer than the 5"):
        ratio_mix(D_M, D_F[:3], n=10, r=0.5, seed=0)
    with pytest.raises(AuditUserError, match="whole number"):
        downsample(D_M, -1, seed=0)


def sts_b_sentences(data: Path) -> list[str]:
    """Both sentences of every STS-B pair (columns 6 and 7 of the TSV files)."""
    out: list[str] = []
    for name in ("sts-train.tsv", "sts-dev.tsv", "sts-test.tsv"):
        with (data / "sts_b" / name).open(encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                out.extend(row[5:7])
    return out


def test_real_sts_b_counts_are_plausible(shared_data: Path) -> None:
    lists = load_gender_word_lists(shared_data)
    sentences = sts_b_sentences(shared_data)
    mined = mine(sentences, lists)
    counts = mined.counts
    assert counts.total == len(sentences) > 10_000
    assert counts.female_only > 0 and counts.male_only > 0 and counts.mixed > 0
    assert counts.neutral > counts.mixed
    # STS-B (image captions, news) has more male-only than female-only sentences.
    assert counts.male_only > counts.female_only
    assert all(classify(s, lists) is SentenceGender.FEMALE for s in mined.female)
    assert all(classify(s, lists) is SentenceGender.MALE for s in mined.male)
    n = min(len(mined.female), len(mined.male))
    mix = ratio_mix(mined.male, mined.female, n=n, r=0.3, seed=0)
    assert len(mix) == n
