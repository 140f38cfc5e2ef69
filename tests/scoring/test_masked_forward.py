"""Projecting to the vocabulary only at gathered positions gives the full model's logits."""

from __future__ import annotations

from typing import Any

import torch

from audit.scoring.masked.forward import eager_attention, gathered_logits, log_probs_of_targets
from audit.scoring.masked.last_layer import supports_last_layer_pruning
from tests.scoring.tiny_models import TinyModel


def test_gathered_logits_equal_full_logits(masked_tiny: TinyModel) -> None:
    tokenizer, model = masked_tiny.tokenizer, masked_tiny.model
    batch = tokenizer(["He is a nurse.", "Women are bad at math, really."], padding=True,
                      return_tensors="pt")  # fmt: skip
    rows = torch.tensor([0, 0, 1, 1, 1])
    cols = torch.tensor([1, 3, 0, 2, 5])
    with torch.inference_mode():
        full = model(**batch).logits
        picked, attentions = gathered_logits(
            model, batch["input_ids"], batch["attention_mask"], rows, cols
        )
    assert attentions is None
    assert picked.shape == (5, full.shape[-1])
    torch.testing.assert_close(picked, full[rows, cols], atol=1e-5, rtol=1e-5)


def test_eager_attention_is_restored(masked_tiny: TinyModel) -> None:
    model = masked_tiny.model
    before = model.config._attn_implementation
    ids = masked_tiny.tokenizer(["He is a nurse."], return_tensors="pt")
    with eager_attention(model):
        assert model.config._attn_implementation == "eager"
        _logits, attentions = gathered_logits(
            model, ids["input_ids"], ids["attention_mask"], torch.tensor([0]), torch.tensor([1]),
            output_attentions=True,
        )  # fmt: skip
    assert attentions is not None and len(attentions) == 2
    assert model.config._attn_implementation == before


def test_log_probs_of_targets_is_log_softmax() -> None:
    logits = torch.randn(4, 50) * 10
    targets = torch.tensor([[0, 3], [7, 7], [49, 1], [2, 2]])
    expected = torch.log_softmax(logits, dim=-1).gather(1, targets)
    torch.testing.assert_close(log_probs_of_targets(logits, targets), expected)


def test_pruned_last_layer_equals_full_logits(masked_tiny: TinyModel) -> None:
    """BERT-shaped models compute the last layer at the read rows only; same logits."""
    model = masked_tiny.model
    expected_support = masked_tiny.name in {"bert", "roberta"}
    assert supports_last_layer_pruning(model) is expected_support
    if not expected_support:
        return
    batch = masked_tiny.tokenizer(
        ["He is a nurse.", "Women are bad at math, really, always."], padding=True,
        return_tensors="pt",
    )  # fmt: skip
    rows = torch.tensor([0, 1, 1, 0])
    cols = torch.tensor([2, 0, 9, 5])
    with torch.inference_mode():
        full = model(**batch).logits
        pruned, _ = gathered_logits(
            model, batch["input_ids"], batch["attention_mask"], rows, cols,
            prune_last_layer=True,
        )  # fmt: skip
    torch.testing.assert_close(pruned, full[rows, cols], atol=1e-5, rtol=1e-5)
    encoder: Any = model.base_model.encoder
    assert len(encoder.layer) == 2  # restored
