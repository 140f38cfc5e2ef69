"""CDA: both directions, case kept, whole words only, possessives and plurals; the loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import AuditUserError
from audit.variants.cda import CounterfactualSwapper, augment, swap
from audit.variants.wordlists import GenderWordLists, load_gender_word_lists

PAIRS = [
    ("he", "she"),
    ("his", "her"),
    ("him", "her"),
    ("his", "hers"),
    ("himself", "herself"),
    ("man", "woman"),
    ("men", "women"),
    ("king", "queen"),
    ("mr.", "mrs."),
    ("barbershop", "hair_salon"),
]


@pytest.fixture(scope="module")
def lists() -> GenderWordLists:
    return GenderWordLists.from_pairs(PAIRS)


def write_lists(tmp_path: Path, male: str, female: str) -> Path:
    folder = tmp_path / "wordlists"
    folder.mkdir()
    (folder / "gn_glove_male.txt").write_text(male)
    (folder / "gn_glove_female.txt").write_text(female)
    return tmp_path


def test_swaps_both_directions_in_one_pass(lists: GenderWordLists) -> None:
    assert swap("he met the queen", lists) == "she met the king"
    assert swap("she met the king", lists) == "he met the queen"
    assert swap("he and she", lists) == "she and he"


def test_keeps_case(lists: GenderWordLists) -> None:
    assert swap("He left.", lists) == "She left."
    assert swap("HE LEFT.", lists) == "SHE LEFT."
    assert swap("he left.", lists) == "she left."
    assert swap("She saw Mr. Smith", lists) == "He saw Mrs. Smith"


def test_whole_words_only(lists: GenderWordLists) -> None:
    for text in ("The hero rested.", "a manly theme", "Sheila shelved the kingdom's hymn"):
        assert swap(text, lists) == text
    assert swap("the_man is he2", lists) == "the_man is he2"
    assert swap("(he)", lists) == "(she)"
    assert swap('"man"', lists) == '"woman"'


def test_possessives_and_plurals(lists: GenderWordLists) -> None:
    assert swap("The man's hat", lists) == "The woman's hat"
    assert swap("the men's room", lists) == "the women's room"
    assert swap("Men and women", lists) == "Women and men"
    assert swap("himself", lists) == "herself"


def test_ambiguous_her_follows_the_first_pair(lists: GenderWordLists) -> None:
    assert swap("her book", lists) == "his book"
    assert swap("his book", lists) == "her book"
    assert swap("I saw him", lists) == "I saw her"
    assert swap("it is hers", lists) == "it is his"


def test_phrases_with_underscores_match_running_text(lists: GenderWordLists) -> None:
    assert swap("a barbershop", lists) == "a hair salon"
    assert swap("the Hair  salon", lists) == "the Barbershop"


def test_augment_adds_swapped_copies_of_changed_sentences_only(lists: GenderWordLists) -> None:
    sentences = ["He runs.", "A cat sleeps.", "The woman sings."]
    assert augment(sentences, lists) == [*sentences, "She runs.", "The man sings."]
    assert augment([], lists) == []


def test_swap_is_deterministic_and_an_involution_on_one_to_one_words(
    lists: GenderWordLists,
) -> None:
    swapper = CounterfactualSwapper(lists)
    text = "The king told the men that he would see Mrs. Smith."
    assert swapper.swap(swapper.swap(text)) == text
    assert swapper.swap(text) == swapper.swap(text)


def test_mapping_is_immutable_and_first_pair_wins(lists: GenderWordLists) -> None:
    assert lists.to_male["her"] == "his"
    assert lists.to_female["his"] == "her"
    assert lists.to_male["hers"] == "his"
    assert lists.counterpart("HAIR_SALON") == "barbershop"
    with pytest.raises(TypeError):
        lists.to_male["her"] = "him"  # type: ignore[index]


def test_loader_reads_pairs_line_by_line(tmp_path: Path) -> None:
    data = write_lists(tmp_path, "he\nKing\n", "she\nqueen\n\n")
    lists = load_gender_word_lists(data)
    assert lists.pairs == (("he", "she"), ("king", "queen"))


@pytest.mark.parametrize(
    ("male", "female", "message"),
    [
        ("he\nman\n", "she\n", "differ in length"),
        ("", "she\n", "is empty"),
        ("he\n\nman\n", "she\nx\nwoman\n", "line 2 is blank"),
        ("he\nshe\n", "she\nhe\n", "both the male and the female list"),
    ],
)
def test_loader_errors(tmp_path: Path, male: str, female: str, message: str) -> None:
    data = write_lists(tmp_path, male, female)
    with pytest.raises(AuditUserError, match=message):
        load_gender_word_lists(data)


def test_loader_names_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "wordlists").mkdir()
    (tmp_path / "wordlists" / "gn_glove_male.txt").write_text("he\n")
    with pytest.raises(AuditUserError, match=r"gn_glove_female\.txt is missing"):
        load_gender_word_lists(tmp_path)


def test_real_lists_load_and_swap(shared_data: Path) -> None:
    lists = load_gender_word_lists(shared_data)
    assert len(lists) == 222
    assert swap("He is a man and his son's king.", lists) == (
        "She is a woman and her daughter's queen."
    )
    assert swap("The hero's theme", lists) == "The heroine's theme"  # hero/heroine is a pair
    text = "Sheila heroically shelved the theme; Hemingway agreed."
    assert swap(text, lists) == text
