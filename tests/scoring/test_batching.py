"""Packing by length under a token budget."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.scoring.batching import CPU_TOKEN_BUDGET, default_token_budget, pack_by_length


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


def test_bad_budget() -> None:
    with pytest.raises(ValueError, match="positive"):
        pack_by_length([1], 0)


def test_cpu_budget_is_fixed() -> None:
    budget = default_token_budget(
        torch.device("cpu"), hidden_size=768, num_layers=12, intermediate_size=3072
    )
    assert budget == CPU_TOKEN_BUDGET
