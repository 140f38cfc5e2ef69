"""GPU throughput settings that must not change a number: the LM head's chunk size, the
budgets sized from device memory (CPU values unchanged), and the one-transfer results.
The CUDA tests (marker `gpu`) are skipped without CUDA."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.scoring import batching, causal
from audit.scoring.base import ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.masked.engine import resolve_token_budget
from audit.scoring.options import CausalOptions
from audit.scoring.transfer import to_device, to_host
from tests.scoring.tiny_models import CORPUS, loaded, tiny_bert, tiny_gpt2, tiny_llama

SENTENCES = [*CORPUS[:16], "a", "The librarian and the farmer met again at the old village."]


def _ll(model: LoadedModel) -> np.ndarray:
    scores = LL_SCORER.score_sentences(
        model, SENTENCES, ScoringCall(CausalOptions(), lambda _: None)
    )
    return np.array([s.score for s in scores])


@pytest.mark.parametrize("builder", [tiny_gpt2, tiny_llama])
def test_head_chunk_size_changes_float32_scores_by_rounding_only(
    builder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = loaded(builder())  # type: ignore[operator]
    monkeypatch.setattr(causal, "HEAD_CHUNK_ROWS", 1)  # one row per product
    one_row = _ll(model)
    monkeypatch.setattr(causal, "HEAD_CHUNK_ROWS", 100_000)  # one product per batch
    one_product = _ll(model)
    np.testing.assert_allclose(one_row, one_product, rtol=0, atol=1e-5)
    assert not np.array_equal(one_row, np.zeros_like(one_row))


def test_cpu_sizes_are_the_tuned_constants() -> None:
    gpt2 = loaded(tiny_gpt2())
    assert causal._head_chunk_rows(gpt2) == causal.HEAD_CHUNK_ROWS == 512
    threads = torch.get_num_threads()
    assert causal.CPU_TOKEN_BUDGET is None  # tests set one; the engine sizes by threads
    assert causal._token_budget(gpt2) == causal.CPU_TOKENS_PER_THREAD * threads
    assert causal.CPU_TOKENS_PER_THREAD == 256
    bert = loaded(tiny_bert())
    assert resolve_token_budget(bert, None) == batching.CPU_TOKEN_BUDGET == 2048
    assert resolve_token_budget(bert, 77) == 77


def test_head_chunk_grows_with_free_memory_within_bounds() -> None:
    vocab = 49_152
    rows = batching.head_chunk_rows_for_memory(70 * 2**30, vocab_size=vocab)
    # an eighth of 70 GiB at 16 bytes per logit: about 12k rows, not 1,480 chunks of 128
    assert rows == int(0.125 * 70 * 2**30 / (16 * vocab))
    assert 10_000 < rows < 15_000
    assert batching.head_chunk_rows_for_memory(0, vocab_size=vocab) == 128
    assert batching.head_chunk_rows_for_memory(10**15, vocab_size=vocab) == 65_536


def test_token_budgets_from_memory() -> None:
    budget = batching.memory_token_budget(
        70 * 2**30, hidden_size=2048, num_layers=16, intermediate_size=8192
    )
    assert budget == batching.MAX_TOKEN_BUDGET  # a 1B model on an 80 GB GPU: the cap
    small = batching.memory_token_budget(
        2**30, hidden_size=2048, num_layers=16, intermediate_size=8192
    )
    per_token = 4 * (8 * 2048 + 2 * 8192 + 2 * 128 * 4)
    assert small == int(0.5 * 2**30 / per_token)
    assert batching.logits_token_budget(2**30, vocab_size=50_000) == 2**30 // 4 // (50_000 * 12)
    assert batching.logits_token_budget(0, vocab_size=50_000) == batching.MIN_TOKEN_BUDGET


def test_model_dims_read_every_family() -> None:
    assert batching.model_dims(tiny_gpt2().model.config) == (32, 2, 128)  # n_inner None: 4 d
    assert batching.model_dims(tiny_llama().model.config) == (32, 2, 64)
    bert = tiny_bert().model.config
    assert batching.model_dims(bert) == (
        bert.hidden_size,
        bert.num_hidden_layers,
        bert.intermediate_size,
    )


def test_to_host_brings_every_batch_back_in_order() -> None:
    parts = [torch.arange(6, dtype=torch.float32).reshape(2, 3), torch.tensor([7.5]), torch.ones(0)]
    host = to_host(parts)
    assert [h.shape for h in host] == [(2, 3), (1,), (0,)]
    assert host[0].dtype == np.float64
    np.testing.assert_array_equal(host[0], [[0, 1, 2], [3, 4, 5]])
    assert host[1][0] == 7.5
    assert to_host([]) == []
    array = np.array([[1, 2], [3, 4]], dtype=np.int64)
    assert to_device(array, torch.device("cpu")).tolist() == [[1, 2], [3, 4]]


# ----------------------------------------------------------------------------- CUDA


def _on_cuda(model: LoadedModel) -> LoadedModel:
    device = torch.device("cuda")
    model.model.to(device)
    return dataclasses.replace(model, device=device)


@pytest.mark.gpu
@pytest.mark.parametrize("builder", [tiny_gpt2, tiny_llama])
def test_cuda_head_chunk_from_memory_equals_small_chunks(
    builder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit.models.device import exact_float32

    exact_float32(torch.device("cuda"))
    cpu = _ll(loaded(builder()))  # type: ignore[operator]
    model = _on_cuda(loaded(builder()))  # type: ignore[operator]
    assert causal._head_chunk_rows(model) >= batching.MIN_HEAD_CHUNK_ROWS
    from_memory = _ll(model)
    monkeypatch.setattr(causal, "_head_chunk_rows", lambda _model: 1)
    one_row = _ll(model)
    np.testing.assert_allclose(from_memory, one_row, rtol=0, atol=1e-5)
    np.testing.assert_allclose(from_memory, cpu, rtol=0, atol=1e-4)


@pytest.mark.gpu
def test_cuda_transfers_round_trip() -> None:
    device = torch.device("cuda")
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    on_device = to_device(array, device)
    assert on_device.device.type == "cuda"
    (back,) = to_host([on_device.float() * 2])
    np.testing.assert_array_equal(back, array * 2)


def test_in_place_log_normaliser_is_logsumexp_bit_for_bit() -> None:
    generator = torch.Generator().manual_seed(0)
    for shape in ((3, 49_152), (17, 1_000), (1, 2)):
        logits = torch.randn(*shape, generator=generator) * 12
        expected = torch.logsumexp(logits, dim=-1)
        assert torch.equal(causal._logsumexp_in_place(logits.clone()), expected)
    infinite = torch.tensor([[float("-inf")] * 3, [0.5, float("-inf"), 2.0]])
    assert torch.equal(causal._logsumexp_in_place(infinite.clone()), torch.logsumexp(infinite, -1))
