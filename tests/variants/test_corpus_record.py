"""Kaneko et al. 2022 Table 1 records: counts by hand, ILPS equal to the `ilps` measure's,
the undefined case, and golden numbers for the real STS-B corpus."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from audit.measures.ilps import ilps
from audit.variants.corpus import Corpus, load_corpus, sentences_sha256
from audit.variants.corpus_record import corpus_record
from audit.variants.settings import CorpusSpec
from audit.variants.wordlists import GenderWordLists, load_gender_word_lists


def spec_of(**fields: object) -> CorpusSpec:
    return CorpusSpec.model_validate(fields)


LISTS = GenderWordLists.from_pairs(
    [("he", "she"), ("his", "her"), ("man", "woman"), ("his", "hers"), ("barber", "hair_salon")]
)


def corpus_of(sentences: list[str], name: str = "hand.txt") -> Corpus:
    return Corpus(
        name=name,
        source=f"/somewhere/{name}",
        sha256=sentences_sha256(sentences),
        sentences=tuple(sentences),
    )


SENTENCES = [
    "He said his man was there.",  # male: he, his, man
    "She went to the hair salon.",  # female: she, hair salon
    "A man and a woman met.",  # mixed
    "The cat slept.",  # neutral
    "HIS book, hers too.",  # mixed: his, hers
    "The Woman's hat.",  # female (ILPS's tokens: "woman's" is one word, not "woman")
    "He ran.",  # male
]


def test_counts_and_ilps_by_hand() -> None:
    record = corpus_record(
        corpus_of(SENTENCES), LISTS, seed=0, n_bootstrap=0, alpha=0.05, used_by=["cda1", "at1"]
    )
    assert (record.female_only, record.male_only, record.mixed, record.neutral) == (2, 2, 2, 1)
    assert record.sentences == 7 and record.used_by == ["cda1", "at1"]
    assert record.name == "hand.txt" and record.source == "/somewhere/hand.txt"
    assert record.sha256 == sentences_sha256(SENTENCES)
    # ILPS, as the measure counts: female words she, hair salon, woman, hers = 4 (the
    # measure's tokens keep "woman's" whole); male words he, his, man, man, his, he = 6
    assert record.ilps == pytest.approx(math.log(4 / 6))
    assert record.ilps_ci_low is None and record.ilps_ci_high is None


def test_ilps_is_the_measure_s_value_and_interval(tmp_path: Path) -> None:
    sentences = SENTENCES * 6
    record = corpus_record(
        corpus_of(sentences), LISTS, seed=3, n_bootstrap=400, alpha=0.1, used_by=[]
    )
    path = tmp_path / "c.txt"
    path.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    measured = ilps(
        path,
        male_words=["he", "his", "man", "his", "barber"],
        female_words=["she", "her", "woman", "hers", "hair_salon"],
        n_bootstrap=400,
        seed=3,
        alpha=0.1,
    )
    assert measured.value is not None and measured.ci_low is not None
    assert (record.ilps, record.ilps_ci_low, record.ilps_ci_high) == (
        measured.value,
        measured.ci_low,
        measured.ci_high,
    )
    assert record.ilps is not None and record.ilps_ci_low is not None
    assert record.ilps_ci_high is not None
    assert record.ilps_ci_low < record.ilps < record.ilps_ci_high
    other_seed = corpus_record(
        corpus_of(sentences), LISTS, seed=4, n_bootstrap=400, alpha=0.1, used_by=[]
    )
    assert other_seed.ilps == record.ilps and other_seed.ilps_ci_low != record.ilps_ci_low


def test_ilps_undefined_without_female_words() -> None:
    record = corpus_record(
        corpus_of(["He ran.", "The cat slept.", "His man waited."], name="men.txt"),
        LISTS,
        seed=0,
        n_bootstrap=100,
        alpha=0.05,
        used_by=["v"],
    )
    assert record.ilps is None and record.ilps_ci_low is None
    assert record.ilps_note == "no female word occurs in men.txt"
    assert (record.female_only, record.male_only, record.neutral) == (0, 2, 1)


@pytest.mark.slow
def test_real_sts_b_table_1_golden(shared_data: Path) -> None:
    lists = load_gender_word_lists(shared_data)
    corpus = load_corpus(spec_of(name="sts_b"), data_dir=shared_data, base_dir=Path("."))
    record = corpus_record(corpus, lists, seed=0, n_bootstrap=1000, alpha=0.05, used_by=["m"])
    assert record.sentences == 13_197
    assert (record.female_only, record.male_only, record.mixed, record.neutral) == (
        1192,
        2013,
        186,
        9806,
    )
    assert record.ilps == pytest.approx(-0.48905182421643006, abs=1e-12)
    assert record.ilps_ci_low == pytest.approx(-0.557709175574801, abs=1e-9)
    assert record.ilps_ci_high == pytest.approx(-0.419854116091987, abs=1e-9)
    assert record.ilps_note == ""
