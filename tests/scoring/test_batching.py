"""Packing by length under a token budget."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.scoring.batching import (
    CPU_TOKEN_BUDGET,
    PADDING_CUT_MIN_TOKENS,
    default_token_budget,
    pack_by_length,
    padding_share,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 60), max_size=80), st.integers(1, 400))
def test_every_index_once_within_budget(lengths: list[int], budget: int) -> None:
    batches = pack_by_length(lengths, budget)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(len(lengths)))
    previous_longest = 0
    for batch in batches:
        longest = max(lengths[i] for i in batch)
        assert len(batch) == 1 or len(batch) * longest <= budget
        assert min(lengths[i] for i in batch) >= previous_longest  # shortest first
        previous_longest = longest
    assert [lengths[i] for i in flat] == sorted(lengths)


def test_equal_lengths_keep_input_order() -> None:
    """All masked copies of one sentence share its length, so they stay together."""
    assert pack_by_length([3, 3, 2, 3], 100) == [[2, 0, 1, 3]]
    assert pack_by_length([3, 3, 2, 3], 6) == [[2, 0], [1, 3]]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(1, 300), max_size=400),
    st.integers(1, 100_000),
    st.sampled_from([0.0, 0.1, 0.5]),
)
def test_padding_cut(lengths: list[int], budget: int, share: float) -> None:
    """With `max_padding`, a batch pads at most that share over its real tokens unless
    what it held before its longest sequences was under the cut's minimum; the budget
    and the order still hold."""
    batches = pack_by_length(lengths, budget, max_padding=share)
    flat = [i for batch in batches for i in batch]
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in batches:
        sizes = [lengths[i] for i in batch]
        longest, real = max(sizes), sum(sizes)
        assert len(batch) == 1 or len(batch) * longest <= budget
        before = sum(n for n in sizes if n < longest)
        assert before < PADDING_CUT_MIN_TOKENS or len(batch) * longest <= (1 + share) * real


def test_padding_cut_parts_lengths_not_copies() -> None:
    """A long tail gets batches of its own once a batch is large enough; sequences of
    one length (a sentence's masked copies) are never parted by the cut."""
    many = [10] * 300
    assert pack_by_length([*many, 20], 10**6, max_padding=0.1) == [list(range(300)), [300]]
    assert pack_by_length([*many, 20], 10**6) == [list(range(301))]
    few = [10] * 100  # 1,000 real tokens: under the cut's minimum
    assert pack_by_length([*few, 20], 10**6, max_padding=0.1) == [list(range(101))]
    assert pack_by_length([10] * 1000, 10**6, max_padding=0.0) == [list(range(1000))]


def test_padding_cut_only_on_accelerators() -> None:
    assert padding_share(torch.device("cpu")) is None
    assert padding_share(torch.device("cuda")) == 0.1


def test_bad_budget() -> None:
    with pytest.raises(ValueError, match="positive"):
        pack_by_length([1], 0)


def test_cpu_budget_is_fixed() -> None:
    budget = default_token_budget(
        torch.device("cpu"), hidden_size=768, num_layers=12, intermediate_size=3072
    )
    assert budget == CPU_TOKEN_BUDGET
