# mypy: disable-error-code="operator"
"""ILPS of a corpus: counts by hand, phrases, bootstrap, word-list errors, real lists."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from audit.errors import DataError
from audit.measures.ilps import ILPS, ilps, load_word_pairs, tokenize
from audit.measures.options import IlpsOptions


def test_tokenize() -> None:
    assert tokenize("Ma'am, Mr. Smith's hair_salon!") == ["ma'am", "mr", "smith's", "hair", "salon"]


def test_counts_by_hand(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("He said she was his sister.\nThe man and the man.\nHair salon, he said.\n")
    value = ilps(
        corpus,
        male_words=["he", "his", "man", "brother"],
        female_words=["she", "her", "woman", "sister", "hair_salon"],
    )
    # female: she, sister, hair salon = 3; male: he, his, man, man, he = 5
    assert value.details["female_count"] == 3 and value.details["male_count"] == 5
    assert value.value == pytest.approx(math.log(3 / 5))
    assert value.details["tokens"] == 6 + 5 + 4


def test_bootstrap_interval_and_undefined(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("he she\nhe he\nshe\nhe\n" * 10)
    value = ilps(corpus, male_words=["he"], female_words=["she"], n_bootstrap=300, seed=1)
    assert value.ci_low <= value.value <= value.ci_high
    assert value == ilps(corpus, male_words=["he"], female_words=["she"], n_bootstrap=300, seed=1)
    none = ilps(corpus, male_words=["he"], female_words=["queen"])
    assert none.status == "undefined" and "no female word" in none.note


def test_word_list_errors(tmp_path: Path) -> None:
    male, female = tmp_path / "m.txt", tmp_path / "f.txt"
    male.write_text("he\nman\n")
    female.write_text("she\n")
    with pytest.raises(DataError, match="differ in length"):
        load_word_pairs(male, female)
    female.write_text("she\n \n")
    with pytest.raises(DataError, match=r"f.txt:2"):
        load_word_pairs(male, female)
    with pytest.raises(DataError, match="not found"):
        load_word_pairs(tmp_path / "nope.txt", female)


def test_registered_entry_with_the_gn_glove_lists(shared_data: Path, tmp_path: Path) -> None:
    lists = shared_data / "wordlists"
    pairs = load_word_pairs(lists / "gn_glove_male.txt", lists / "gn_glove_female.txt")
    assert len(pairs) == 222 and pairs[0] == ("countryman", "countrywoman")
    corpus = tmp_path / "c.txt"
    corpus.write_text("The fathers and mothers met. His mother said: ma'am, Mr. Lee is here.\n")
    options = IlpsOptions(
        corpus=str(corpus),
        male_words=str(lists / "gn_glove_male.txt"),
        female_words=str(lists / "gn_glove_female.txt"),
    )
    value = ILPS.compute_corpus(options=options, seed=0, n_bootstrap=0)
    assert value.status == "ok"
    assert value.details["female_count"] >= 3  # mothers, mother, ma'am
