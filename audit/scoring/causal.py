"""Causal LM log-likelihood and perplexity (METHODS.md section 2).

LL(S) = sum_t log P(w_t | w_<t). By default the BOS token is prepended when the tokenizer
adds none, so the first word is scored too; `compat: reference` reproduces SafeNLP: the
tokenizer's ids as they are, first token unscored. Sentences are sorted by length and
batched with right padding under a token budget; only the target log-probabilities are
gathered, in float32, and summed per sentence in float64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.scoring.base import (
    ProgressCallback,
    ScorerOptions,
    ScoringInputError,
    SentenceScore,
    SentenceScorer,
)
from audit.scoring.batching import pack_by_length
from audit.scoring.layer_ticks import LayerTicks

if TYPE_CHECKING:
    import torch

    from audit.models.loaded import LoadedModel

#: Padded tokens per forward pass on CPU; on CUDA the budget grows with free memory.
CPU_TOKEN_BUDGET = 4096


def causal_token_ids(
    model: LoadedModel, texts: Sequence[str], *, reference: bool
) -> tuple[list[list[int]], int]:
    """Token ids per text and how many leading tokens are context only (not scored).

    Formula: if the tokenizer adds no BOS, prepend it; every token after the BOS is
    scored. Reference: ids as the tokenizer gives them; the first one is not scored.
    """
    tokenizer = model.tokenizer
    encoded: list[list[int]] = tokenizer(list(texts), add_special_tokens=True)["input_ids"]
    if reference:
        return encoded, 1
    bos = tokenizer.bos_token_id
    if bos is None:
        bos = getattr(model.model.config, "bos_token_id", None)
    if bos is None:
        # No BOS exists: the first token has no context and cannot be scored.
        return encoded, 1
    return [ids if ids and ids[0] == bos else [bos, *ids] for ids in encoded], 1


def _token_budget(model: LoadedModel) -> int:
    import torch

    if model.device.type != "cuda":
        return CPU_TOKEN_BUDGET
    free, _ = torch.cuda.mem_get_info(model.device)
    vocab = int(model.model.config.vocab_size)
    # logits (float32) dominate: keep them within a quarter of free memory.
    return max(512, int(free // 4 // (vocab * 4 * 3)))


def causal_log_likelihoods(
    model: LoadedModel,
    texts: Sequence[str],
    *,
    reference: bool,
    progress: ProgressCallback,
) -> list[SentenceScore]:
    """Sum of target-token log-probabilities (float64) and scored-token count per text."""
    import torch

    ids, context = causal_token_ids(model, texts, reference=reference)
    results: list[SentenceScore | None] = [None] * len(texts)
    pad_id = model.tokenizer.pad_token_id
    if pad_id is None:
        pad_id = 0  # masked out by the attention mask; never scored
    budget = _token_budget(model)
    with torch.inference_mode(), LayerTicks(model.model, progress) as ticks:
        for batch in pack_by_length([len(x) for x in ids], budget):
            with ticks.batch(len(batch)):
                scored = _score_batch(model, [ids[i] for i in batch], context, pad_id)
            for index, score in zip(batch, scored, strict=True):
                results[index] = score
    return [r for r in results if r is not None]


#: Rows of hidden states projected to the vocabulary at a time: the [rows x vocab]
#: logits stay small enough to live in cache instead of a fresh multi-GB temporary.
HEAD_CHUNK_ROWS = 128


def _score_batch(
    model: LoadedModel, batch_ids: list[list[int]], context: int, pad_id: int
) -> list[SentenceScore]:
    import torch

    width = max(len(x) for x in batch_ids)
    input_ids = torch.full((len(batch_ids), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(batch_ids), width), dtype=torch.long)
    for row, seq in enumerate(batch_ids):
        input_ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        attention[row, : len(seq)] = 1
    input_ids = input_ids.to(model.device)
    attention = attention.to(model.device)
    # Position t predicts token t+1; only real tokens at or after `context` are targets.
    positions = torch.arange(1, width, device=input_ids.device).unsqueeze(0)
    scored = (attention[:, 1:] == 1) & (positions >= context)
    rows, cols = scored.nonzero(as_tuple=True)
    targets = input_ids[:, 1:][rows, cols]
    token_lp = _target_log_probs(model, input_ids, attention, rows, cols, targets)
    sums = torch.zeros(len(batch_ids), dtype=torch.float64, device=token_lp.device)
    sums.index_add_(0, rows, token_lp.double())
    counts = scored.sum(dim=1).cpu().tolist()
    return [
        SentenceScore(float(s), int(n)) for s, n in zip(sums.cpu().tolist(), counts, strict=True)
    ]


def _head_is_plain(model: LoadedModel) -> bool:
    """True when the LM's logits are just its output embedding applied to the final
    hidden states (no soft-capping or scaling), so the head can run on chosen rows."""
    config = model.model.config
    extra = ("final_logit_softcapping", "logit_scale", "output_mult")
    text_config = getattr(config, "text_config", None)
    for cfg in (config, text_config):
        if cfg is not None and any(
            getattr(cfg, name, None) not in (None, 1, 1.0) for name in extra
        ):
            return False
    return model.model.get_output_embeddings() is not None and hasattr(model.model, "base_model")


def _target_log_probs(
    model: LoadedModel,
    input_ids: torch.Tensor,
    attention: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
    targets: torch.Tensor,
) -> torch.Tensor:
    """log P(target) at each (row, col) prediction position, float32 log-normaliser."""
    import torch

    if not _head_is_plain(model):
        logits = _forward(model, input_ids, attention, full=True)[rows, cols].float()
        return logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(
            logits, dim=-1
        )
    hidden = _forward(model, input_ids, attention, full=False)[rows, cols]
    head = model.model.get_output_embeddings()
    out = torch.empty(len(targets), dtype=torch.float32, device=hidden.device)
    for start in range(0, len(targets), HEAD_CHUNK_ROWS):
        chunk = slice(start, start + HEAD_CHUNK_ROWS)
        # float32 head even under autocast: hidden states are cast up, never the weights down
        logits = head(hidden[chunk].to(head.weight.dtype)).float()
        target_logit = logits.gather(-1, targets[chunk].unsqueeze(-1)).squeeze(-1)
        out[chunk] = target_logit - torch.logsumexp(logits, dim=-1)
    return out


def _forward(
    model: LoadedModel, input_ids: torch.Tensor, attention: torch.Tensor, *, full: bool
) -> torch.Tensor:
    """Logits of the whole model (`full`), or the final hidden states of its base model."""
    import contextlib

    import torch

    autocast = (
        torch.autocast(device_type=model.device.type, dtype=model.autocast_dtype)
        if model.autocast_dtype is not None
        else contextlib.nullcontext()
    )
    with autocast:
        if full:
            out = model.model(input_ids=input_ids, attention_mask=attention, use_cache=False)
            return out.logits
        base = model.model.base_model(
            input_ids=input_ids, attention_mask=attention, use_cache=False
        )
        return base.last_hidden_state


@dataclass(frozen=True)
class CausalScorer(SentenceScorer):
    """`ll` (log-likelihood, higher is likelier) or, with `perplexity`, `ppl`
    (perplexity exp(-LL/T), lower is likelier)."""

    name: str
    perplexity: bool = False

    def score_sentences(
        self,
        model: LoadedModel,
        texts: Sequence[str],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[SentenceScore]:
        if model.model_type != "causal":
            raise ScoringInputError(
                f"scorer '{self.name}' needs a causal LM; "
                f"'{model.model_id}' is a {model.model_type} LM"
            )
        scores = causal_log_likelihoods(
            model, texts, reference=options.compat == "reference", progress=progress
        )
        if not self.perplexity:
            return scores
        return [
            SentenceScore(math.exp(-s.score / s.n_tokens) if s.n_tokens else math.nan, s.n_tokens)
            for s in scores
        ]


LL_SCORER = CausalScorer("ll")
PPL_SCORER = CausalScorer("ppl", perplexity=True)
