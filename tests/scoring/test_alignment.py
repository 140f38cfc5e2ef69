"""Pair alignment with difflib on token ids (METHODS.md section 2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.scoring.masked.alignment import align_pair
from tests.scoring import reference
from tests.scoring.pairs import PAIRS
from tests.scoring.tiny_models import byte_bpe_tokenizer, unigram_tokenizer, wordpiece_tokenizer

TOKENIZERS = {
    "wordpiece": wordpiece_tokenizer,
    "byte-bpe": byte_bpe_tokenizer,
    "unigram": unigram_tokenizer,
}


def _encode(tokenizer: object, text: str) -> tuple[list[int], list[bool]]:
    enc = tokenizer(text, return_special_tokens_mask=True)  # type: ignore[operator]
    return list(enc["input_ids"]), [bool(s) for s in enc["special_tokens_mask"]]


@pytest.mark.parametrize("family", sorted(TOKENIZERS))
@pytest.mark.parametrize(("st_text", "at_text"), PAIRS)
def test_matches_reference_code_spans(family: str, st_text: str, at_text: str) -> None:
    """U = the reference code's equal spans without the first and last ([CLS], [SEP]);
    M = its diff spans."""
    tokenizer = TOKENIZERS[family]()
    ids_a, special_a = _encode(tokenizer, st_text)
    ids_b, special_b = _encode(tokenizer, at_text)
    alignment = align_pair(ids_a, ids_b, special_a, special_b)
    eq_a, eq_b = reference.spans(ids_a, ids_b, "equal")
    diff_a, diff_b = reference.spans(ids_a, ids_b, "diff")
    assert list(alignment.unmodified_a) == eq_a[1:-1]
    assert list(alignment.unmodified_b) == eq_b[1:-1]
    assert list(alignment.modified_a) == diff_a
    assert list(alignment.modified_b) == diff_b


@pytest.mark.parametrize("family", sorted(TOKENIZERS))
def test_modified_span_at_the_very_start(family: str) -> None:
    tokenizer = TOKENIZERS[family]()
    ids_a, special_a = _encode(tokenizer, "Women are bad at math.")
    ids_b, special_b = _encode(tokenizer, "Men are bad at math.")
    alignment = align_pair(ids_a, ids_b, special_a, special_b)
    assert alignment.modified_a and alignment.modified_a[0] == 1  # right after [CLS] / <s>
    assert alignment.modified_b and alignment.modified_b[0] == 1
    assert 0 not in alignment.unmodified_a and len(ids_a) - 1 not in alignment.unmodified_a
    tail = tokenizer.convert_ids_to_tokens(ids_a[alignment.unmodified_a[0] : -1])
    text = "".join(tail).replace("▁", "").replace("Ġ", "").replace("#", "")
    # BPE and Unigram may share a word piece of Women/Men ("en", "n"): it is unmodified.
    assert text.endswith("arebadatmath.") and len(text) <= len("enarebadatmath.")


@pytest.mark.parametrize("family", sorted(TOKENIZERS))
def test_modified_span_at_the_very_end(family: str) -> None:
    tokenizer = TOKENIZERS[family]()
    ids_a, special_a = _encode(tokenizer, "He is a nurse")
    ids_b, special_b = _encode(tokenizer, "He is a doctor")
    alignment = align_pair(ids_a, ids_b, special_a, special_b)
    assert alignment.modified_a[-1] == len(ids_a) - 2  # just before [SEP] / </s>
    assert alignment.modified_b[-1] == len(ids_b) - 2
    assert alignment.unmodified_a[0] == 1


def test_identical_sentences_have_nothing_modified() -> None:
    ids, special = _encode(wordpiece_tokenizer(), "He is a nurse.")
    alignment = align_pair(ids, ids, special, special)
    assert alignment.modified_a == alignment.modified_b == ()
    assert alignment.unmodified_a == tuple(range(1, len(ids) - 1))


def test_mask_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="special-token mask"):
        align_pair([1, 2, 3], [1, 2], [True, False], [True, True])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=0, max_size=30),
    st.lists(st.integers(0, 6), min_size=0, max_size=30),
)
def test_partition_properties(body_a: list[int], body_b: list[int]) -> None:
    """U and M partition the non-special positions; U pairs up equal tokens in order."""
    ids_a, ids_b = [100, *body_a, 101], [100, *body_b, 101]
    special_a = [True] + [False] * len(body_a) + [True]
    special_b = [True] + [False] * len(body_b) + [True]
    alignment = align_pair(ids_a, ids_b, special_a, special_b)
    assert sorted(alignment.unmodified_a + alignment.modified_a) == list(range(1, len(ids_a) - 1))
    assert sorted(alignment.unmodified_b + alignment.modified_b) == list(range(1, len(ids_b) - 1))
    assert len(alignment.unmodified_a) == len(alignment.unmodified_b)
    assert [ids_a[i] for i in alignment.unmodified_a] == [ids_b[i] for i in alignment.unmodified_b]
