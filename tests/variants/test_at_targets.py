"""AT's target words: by default the reference code's stereotype list, split from the
attribute sentences by the reference's rule; debiaswe's professions keep the words not
gendered by definition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.variants.corpus import Corpus
from audit.variants.methods.at import read_target_words, training_data
from audit.variants.methods.at_data import AtData
from audit.variants.methods.at_targets import STEREOTYPE_WORDS
from audit.variants.methods.base import MethodContext, VariantPart
from audit.variants.methods.options import AtOptions

STEREOTYPED = (
    "nurse",
    "secretary",
    "housekeeper",
    "receptionist",
    "librarian",
    "carpenter",
    "mechanic",
)


def test_the_default_is_the_reference_stereotype_list() -> None:
    assert len(STEREOTYPE_WORDS) == len(set(STEREOTYPE_WORDS)) == 168
    assert STEREOTYPE_WORDS[:3] == ("aerobics", "adventurer", "apparel")
    assert STEREOTYPE_WORDS[-3:] == ("blue", "makeup", "football")
    for word in (*STEREOTYPED, "pretty", "strong"):
        assert word in STEREOTYPE_WORDS


def test_professions_keep_the_words_not_gendered_by_definition(tmp_path: Path) -> None:
    path = tmp_path / "professions.json"
    rows = [
        ["nurse", -0.1, -0.9],
        ["surgeon", 0.1, 0.7],
        ["mechanic", 0.3, 0.6],
        ["architect", 0.0, 0.2],
        ["actress", -1.0, 0.0],
        ["businessman", 0.8, 0.2],
        ["barber", 0.5, 0.5],
        ["police_officer", 0.0, 0.3],
    ]
    path.write_text(json.dumps(rows), encoding="utf-8")
    words = read_target_words(path, field="target_words")
    assert words == ["nurse", "surgeon", "mechanic", "architect", "police officer"]


@pytest.fixture
def context(tmp_path: Path) -> MethodContext:
    lists = tmp_path / "wordlists"
    lists.mkdir()
    (lists / "gn_glove_male.txt").write_text("he\nman\nwaiter\n", encoding="utf-8")
    (lists / "gn_glove_female.txt").write_text("she\nwoman\nwaitress\n", encoding="utf-8")
    return MethodContext(data_dir=tmp_path, base_dir=tmp_path, seed=0, loc="variants[0]")


def test_sentences_split_by_the_reference_rule(context: MethodContext) -> None:
    targets = [f"The {w} is here today ." for w in STEREOTYPED] + [
        "A waiter brings the soup .",  # a listed word that is an attribute word
        "My secretary and the librarian met .",
        "The weather is fine .",  # neither
    ]
    attributes = [f"{p} said the {w} is kind ." for p in ("She", "He") for w in STEREOTYPED]
    sentences = tuple(targets + attributes)
    corpus = Corpus(name="toy", source="toy", sha256="", sentences=sentences)
    data = training_data(corpus, AtOptions(), VariantPart(), context)
    assert data.own_as(AtData).target_sentences == tuple(
        s for s in targets if "waiter" not in s and "weather" not in s
    )
    assert data.own_as(AtData).attribute_sentences == (targets[len(STEREOTYPED)], *attributes)
    assert data.own_as(AtData).target_words == tuple(sorted(STEREOTYPED))
    assert dict(data.own_as(AtData).attribute_words) == {
        "male": ("he", "man", "waiter"),
        "female": ("she", "waitress", "woman"),
    }
