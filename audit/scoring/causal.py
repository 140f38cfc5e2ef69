"""Causal LM log-likelihood and perplexity (METHODS.md section 2).

LL(S) = sum_t log P(w_t | w_<t). By default the BOS token is prepended when the tokenizer
adds none, so the first word is scored too; `compat: reference` reproduces SafeNLP: the
tokenizer's ids as they are, first token unscored. Sentences are sorted by length and
batched with right padding under a token budget; only the target log-probabilities are
gathered, in float32, and summed per sentence in float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from audit.models.sequence_limit import sequence_limit
from audit.scoring.base import (
    ProgressCallback,
    ScoringCall,
    ScoringInputError,
    SentenceScore,
    SentenceScorer,
    perplexity_of,
)
from audit.scoring.batch_journal import journaled
from audit.scoring.batching import (
    free_memory,
    head_chunk_rows_for_memory,
    logits_token_budget,
    memory_token_budget,
    model_dims,
    pack_by_length,
    padding_share,
)
from audit.scoring.causal_batch import CausalBatch, CausalTensors, padded_causal_batch
from audit.scoring.layer_ticks import LayerTicks
from audit.scoring.retained_heap import retained_heap
from audit.scoring.transfer import to_host

if TYPE_CHECKING:
    import torch

    from audit.models.loaded import LoadedModel

#: Padded tokens per forward pass on CPU for each of torch's threads (512 on the project's
#: 2-core machine); on CUDA the budget grows with free memory. Measured idle on that CPU
#: with SmolLM2 on 500 ToxiGen sentences (`benchmarks/causal_budget.py`, docs/scoring.md):
#: 512-token batches 39.0-40.0 s, 1,024 42.1-44.4, 2,048 42.0-45.1, 4,096 (the budget
#: before) 51.8-54.3, 16,384 71.7-71.9: a batch whose activations stay in the cores'
#: caches beats a larger, less padded one. Per-sentence values move by float32 rounding
#: only (2.5e-5 at most against 4,096).
CPU_TOKENS_PER_THREAD = 256
#: A fixed CPU budget in its place (tests set one); None: `CPU_TOKENS_PER_THREAD` x threads.
CPU_TOKEN_BUDGET: int | None = None


def cpu_token_budget() -> int:
    """Padded tokens per batch on the CPU: `CPU_TOKEN_BUDGET` when set, else
    `CPU_TOKENS_PER_THREAD` for each of torch's threads."""
    if CPU_TOKEN_BUDGET is not None:
        return CPU_TOKEN_BUDGET
    import torch

    return CPU_TOKENS_PER_THREAD * max(1, torch.get_num_threads())


def causal_token_ids(
    model: LoadedModel, texts: Sequence[str], *, reference: bool
) -> tuple[list[list[int]], int]:
    """Token ids per text and how many leading tokens are context only (not scored).

    Formula: if the tokenizer adds no BOS, prepend it; every token after the BOS is
    scored. Reference: ids as the tokenizer gives them; the first one is not scored.
    """
    tokenizer = model.tokenizer
    encoded: list[list[int]] = tokenizer(list(texts), add_special_tokens=True)["input_ids"]
    if not reference:
        bos = tokenizer.bos_token_id
        if bos is None:
            bos = getattr(model.model.config, "bos_token_id", None)
        # Without a BOS the first token has no context and cannot be scored.
        if bos is not None:
            encoded = [ids if ids and ids[0] == bos else [bos, *ids] for ids in encoded]
    _check_lengths(model, texts, encoded)
    return encoded, 1


def _check_lengths(model: LoadedModel, texts: Sequence[str], encoded: list[list[int]]) -> None:
    """A sentence longer than the model's positions is a clear error naming it (not an
    index error deep in the position embeddings)."""
    limit = sequence_limit(model.model, model.tokenizer)
    if limit is None:
        return
    for index, (text, ids) in enumerate(zip(texts, encoded, strict=True)):
        if len(ids) > limit:
            raise ScoringInputError(
                f"model '{model.model_id}': sentence {index} is {len(ids)} tokens long, more "
                f"than the {limit} the model accepts: {text[:80]!r}"
            )


def _token_budget(model: LoadedModel) -> int:
    """Padded tokens per batch: fixed on CPU; on CUDA sized from free memory by the
    activations, and by the full logits when the head cannot run on chosen rows; shared
    by a Self-Debias model's plain rows and their prefixed copies."""
    groups = 1 if model.self_debias is None else model.self_debias.groups
    if model.device.type != "cuda":
        return max(1, cpu_token_budget() // groups)
    free = free_memory(model.device)
    hidden, layers, ffn = model_dims(model.model.config)
    budget = memory_token_budget(free, hidden_size=hidden, num_layers=layers, intermediate_size=ffn)
    if not _head_is_plain(model):
        budget = min(budget, logits_token_budget(free, vocab_size=_vocab_size(model)))
    # a Self-Debias model runs each row once more per prefix (`audit.scoring.self_debias`)
    return max(1, budget // groups)


def _vocab_size(model: LoadedModel) -> int:
    head = model.model.get_output_embeddings()
    if head is not None and getattr(head, "weight", None) is not None:
        return int(head.weight.shape[0])
    config = model.model.config
    return int(getattr(getattr(config, "text_config", None) or config, "vocab_size", 0) or 1)


def _head_chunk_rows(model: LoadedModel) -> int:
    """Rows per LM-head product: `HEAD_CHUNK_ROWS` on CPU, from free memory on CUDA."""
    if model.device.type != "cuda":
        return HEAD_CHUNK_ROWS
    return head_chunk_rows_for_memory(free_memory(model.device), vocab_size=_vocab_size(model))


def causal_log_likelihoods(
    model: LoadedModel,
    texts: Sequence[str],
    *,
    reference: bool,
    progress: ProgressCallback,
) -> list[SentenceScore]:
    """Sum of target-token log-probabilities (float64) and scored-token count per text."""

    ids, context = causal_token_ids(model, texts, reference=reference)
    totals = summed_log_likelihoods(
        model, ids, [context] * len(ids), progress, tag=f"causal/{context}", starts_in_key=False
    )
    return [
        SentenceScore(total, _scored_tokens(len(seq), context))
        for total, seq in zip(totals, ids, strict=True)
    ]


def summed_log_likelihoods(
    model: LoadedModel,
    ids: Sequence[Sequence[int]],
    starts: Sequence[int],
    progress: ProgressCallback,
    *,
    tag: str,
    starts_in_key: bool,
) -> list[float]:
    """Per sequence, the float64 sum of log P(w_t | w_<t) over its tokens t >= its start
    (at least 1), in input order: the sequences sorted by length and packed into padded
    batches under the token budget, each batch journalled (`batch_journal`) under
    `<tag>/<pad id>` and its exact inputs (the starts among them when `starts_in_key`,
    for callers whose starts differ by sequence)."""
    import torch

    pad_id = model.tokenizer.pad_token_id
    if pad_id is None:
        pad_id = 0  # masked out by the attention mask; never scored
    order: list[int] = []
    sums: list[torch.Tensor] = []  # per batch, left on the device until every batch has run
    with (
        torch.inference_mode(),
        LayerTicks(model.model, progress) as ticks,
        retained_heap(model.device),  # batches reuse freed memory (`retained_heap`)
    ):
        lengths = [len(x) for x in ids]
        packing = padding_share(model.device)
        for batch in pack_by_length(lengths, _token_budget(model), max_padding=packing):
            batch_ids = [ids[i] for i in batch]
            batch_starts = [starts[i] for i in batch]
            inputs = [np.array([len(x) for x in batch_ids]), np.concatenate(batch_ids)]
            if starts_in_key:
                inputs.append(np.array(batch_starts))
            with ticks.batch(len(batch)):
                run = partial(_score_batch, model, batch_ids, batch_starts, pad_id)
                (batch_sums,) = journaled(f"{tag}/{pad_id}", inputs, run)
            sums.append(batch_sums)
            order.extend(batch)
    out = [0.0] * len(ids)
    totals = [float(value) for host in to_host(sums) for value in host]
    for index, total in zip(order, totals, strict=True):
        out[index] = total
    return out


def _scored_tokens(length: int, context: int) -> int:
    """Targets of a sequence: its tokens at positions max(1, context) .. length - 1."""
    return max(0, length - max(1, context))


#: Rows of hidden states projected to the vocabulary at a time on CPU: a [rows x vocab]
#: temporary of about 100 MB for a 49k vocabulary instead of a multi-GB one. Each product
#: streams the whole head weight, so fewer, larger products run faster: on the 2-core CPU
#: 512-row products ran at 1.3x the rate of 128-row ones and 3x that of 32-row ones
#: (docs/scoring.md). On CUDA the chunk is sized from free memory
#: (`batching.head_chunk_rows_for_memory`).
HEAD_CHUNK_ROWS = 512


def _score_batch(
    model: LoadedModel, batch_ids: list[Sequence[int]], starts: list[int], pad_id: int
) -> list[torch.Tensor]:
    """Per sequence, the float64 sum of its target log-probabilities, on the device.

    Inputs and target positions are built on the host and sent without blocking, and the
    sums stay on the device: the batch asks the GPU for nothing it must wait for.
    """
    return [summed_target_log_probs(model, padded_causal_batch(batch_ids, starts, pad_id))]


def summed_target_log_probs(model: LoadedModel, batch: CausalBatch) -> torch.Tensor:
    """Per row of a padded batch, the float64 sum of log P(target | prefix) over its
    (row, col, target) triples: the inputs sent to the model's device, the targets'
    log-probabilities taken at the chosen positions only, summed on the device."""
    import torch

    on_device = batch.to(model.device)
    token_lp = _target_log_probs(model, on_device)
    sums = torch.zeros(len(batch.input_ids), dtype=torch.float64, device=token_lp.device)
    sums.index_add_(0, on_device.rows.to(token_lp.device), token_lp.double())
    return sums


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


def _target_log_probs(model: LoadedModel, batch: CausalTensors) -> torch.Tensor:
    """log P(target) at each (row, col) prediction position, float32 log-normaliser (a
    Self-Debias model's rescaled distribution, `_debiased_target_log_probs`)."""
    import torch

    if model.self_debias is not None:
        return _debiased_target_log_probs(model, batch)
    input_ids, attention, rows, cols = batch.input_ids, batch.attention, batch.rows, batch.cols
    targets = batch.targets
    # A model spread over devices (`device_map: auto`) returns its outputs on its last
    # device: indices go there, results come back to the inputs' device (no-ops otherwise).
    if not _head_is_plain(model):
        states = _forward(model, input_ids, attention, full=True)
        logits = states[rows.to(states.device), cols.to(states.device)].float()
        picked = logits.gather(-1, targets.to(logits.device).unsqueeze(-1)).squeeze(-1)
        return (picked - torch.logsumexp(logits, dim=-1)).to(input_ids.device)
    states = _forward(model, input_ids, attention, full=False)
    hidden = states[rows.to(states.device), cols.to(states.device)]
    head = model.model.get_output_embeddings()
    out = torch.empty(len(targets), dtype=torch.float32, device=input_ids.device)
    step = _head_chunk_rows(model)
    for start in range(0, len(targets), step):
        chunk = slice(start, start + step)
        # the head in its weights' dtype (hidden states cast to it, never the weights);
        # the log-normaliser in float32 from those logits, whatever the weights' dtype
        logits = head(hidden[chunk].to(head.weight.dtype)).float()
        wanted = targets[chunk].to(logits.device).unsqueeze(-1)
        target_logit = logits.gather(-1, wanted).squeeze(-1)
        out[chunk] = (target_logit - _logsumexp_in_place(logits)).to(out.device)
    return out


def _logsumexp_in_place(logits: torch.Tensor) -> torch.Tensor:
    """`torch.logsumexp(logits, -1)`, the same operations in the same order (so the same
    bits), computed in `logits`' own memory, which it overwrites: no [rows, vocab]
    temporaries (on the CPU it took a third of the time of `torch.logsumexp`, see
    docs/scoring.md)."""
    import torch

    peak = logits.amax(dim=-1, keepdim=True)
    peak.masked_fill_(torch.isinf(peak), 0.0)  # as logsumexp: an all -inf row gives -inf
    return logits.sub_(peak).exp_().sum(dim=-1).log_().add_(peak.squeeze(-1))


def _debiased_target_log_probs(model: LoadedModel, batch: CausalTensors) -> torch.Tensor:
    """log p~(target) of Self-Debias (`audit.scoring.self_debias`): one forward pass over
    the batch and its prefixed copies; the head runs on the read rows of every group, a
    chunk of rows at a time, and the rescaled distribution is read at the targets."""
    import torch

    from audit.models.sequence_limit import sequence_limit
    from audit.scoring.self_debias import check_expanded_length, debiased_log_probs, expand_batch

    debias = model.self_debias
    assert debias is not None
    input_ids, attention, targets = batch.input_ids, batch.attention, batch.targets
    check_expanded_length(model, attention, sequence_limit(model.model, model.tokenizer))
    pad = model.tokenizer.pad_token_id
    wide = expand_batch(
        debias, input_ids, attention, batch.rows, batch.cols, pad_id=0 if pad is None else int(pad)
    )
    n = len(targets)
    plain = _head_is_plain(model)
    states = _forward(model, wide.ids, wide.attention, full=not plain)
    picked = states[wide.rows.to(states.device), wide.cols.to(states.device)]
    grouped = picked.reshape(debias.groups, n, picked.shape[-1])
    head = model.model.get_output_embeddings() if plain else None
    out = torch.empty(n, dtype=torch.float32, device=input_ids.device)
    step = max(1, _head_chunk_rows(model) // debias.groups)  # rows of every group at once
    for start in range(0, n, step):
        chunk = grouped[:, start : start + step]
        logits = head(chunk.to(head.weight.dtype)) if head is not None else chunk
        log_p = debiased_log_probs(
            logits[0], logits[1:], decay=debias.decay, epsilon=debias.epsilon
        )
        wanted = targets[start : start + step].to(log_p.device).unsqueeze(-1)
        out[start : start + step] = log_p.gather(-1, wanted).squeeze(-1).to(out.device)
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
        self, model: LoadedModel, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]:
        if model.model_type != "causal":
            raise ScoringInputError(
                f"scorer '{self.name}' needs a causal LM; "
                f"'{model.model_id}' is a {model.model_type} LM"
            )
        scores = causal_log_likelihoods(
            model, texts, reference=call.options.compat == "reference", progress=call.progress
        )
        if not self.perplexity:
            return scores
        return [perplexity_of(s) for s in scores]


LL_SCORER = CausalScorer("ll")
PPL_SCORER = CausalScorer("ppl", perplexity=True)
