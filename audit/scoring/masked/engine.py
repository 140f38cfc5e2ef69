"""The batched masked-LM engine: every masked copy of every sentence, packed and run once.

`run_masked_copies` takes masked copies (a sentence's ids with some positions replaced
by the mask token, and the positions and target tokens to read), sorts them by length,
packs them under a token budget, runs the encoder once per batch, projects to the
vocabulary only at the read positions, and returns float64 log-probabilities per copy.
`run_unmasked` does the same for the unmasked sentences (AUL, AULA), optionally with the
attention each token receives. Results are independent of batch size and order up to
float32 rounding (tests/scoring/test_masked_exactness.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial

import numpy as np
import torch

from audit.models.device import use_all_cores
from audit.models.loaded import LoadedModel
from audit.scoring.batch_journal import journaled
from audit.scoring.batching import (
    default_token_budget,
    model_dims,
    pack_by_length,
    padding_share,
)
from audit.scoring.layer_ticks import LayerTicks
from audit.scoring.masked.forward import (
    eager_attention,
    gathered_logits,
    log_probs_of_targets,
    scoring_mode,
)
from audit.scoring.masked.inputs import Encoded
from audit.scoring.masked.last_layer import supports_last_layer_pruning
from audit.scoring.self_debias import debiased_logits_at
from audit.scoring.transfer import to_device, to_host


@dataclass(frozen=True)
class MaskedCopy:
    """One forward pass worth of input: a sentence with `masked` positions masked.

    At each position in `reads`, the log-probabilities of the token ids in the matching
    entry of `targets` are returned (every entry of `targets` has the same length).
    """

    sentence: int  # index of the sentence the copy belongs to (progress reporting)
    ids: tuple[int, ...]
    masked: tuple[int, ...]
    reads: tuple[int, ...]
    targets: tuple[tuple[int, ...], ...]


@dataclass
class EngineStats:
    """Work counters, filled in by the engine when passed one (the benchmark reads them)."""

    forwards: int = 0
    sequences: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    head_rows: int = 0  # positions projected to the vocabulary
    pruned_forwards: int = 0  # forwards whose last layer ran at the read rows only
    pruned_tokens: int = 0  # padded tokens of those forwards
    pruned_rows: int = 0  # read rows of those forwards
    pruned_attention_tokens_sq: int = 0  # batch * longest^2 of those forwards
    pruned_row_tokens: int = 0  # read rows * longest of those forwards
    attention_tokens_sq: int = 0  # sum over batches of batch * longest^2


_STATS: ContextVar[EngineStats | None] = ContextVar("masked_engine_stats", default=None)


@contextmanager
def collect_stats() -> Iterator[EngineStats]:
    """Count the engine's work (forwards, tokens, head rows) inside the `with` block."""
    stats = EngineStats()
    token = _STATS.set(stats)
    try:
        yield stats
    finally:
        _STATS.reset(token)


@dataclass(frozen=True)
class UnmaskedResult:
    """Per scored (non-special) position of a sentence: log P(w_i | S) and attention a_i."""

    log_probs: np.ndarray  # float64 [n]
    attention: np.ndarray | None  # float64 [n] when asked for


def resolve_token_budget(loaded: LoadedModel, batch_tokens: int | None) -> int:
    """The given budget, or the device default computed from the model's shape."""
    if batch_tokens is not None:
        return batch_tokens
    hidden, layers, ffn = model_dims(loaded.model.config)
    budget = default_token_budget(
        loaded.device, hidden_size=hidden, num_layers=layers, intermediate_size=ffn
    )
    # a Self-Debias model runs each copy once more per prefix (`audit.scoring.self_debias`)
    return budget if loaded.self_debias is None else max(1, budget // loaded.self_debias.groups)


class _Progress:
    """Counts the sentences each batch finishes (all copies of a sentence have run)."""

    def __init__(self, copies_per_sentence: np.ndarray) -> None:
        self.remaining = copies_per_sentence.copy()
        self.pending = int((self.remaining == 0).sum())  # sentences with nothing to run

    def finishing(self, sentences: np.ndarray) -> int:
        """The sentences a batch of copies of `sentences` finishes (with, the first time,
        those that needed no forward pass): what the batch is worth in progress."""
        ids, counts = np.unique(sentences, return_counts=True)
        done = int((self.remaining[ids] == counts).sum()) + self.pending
        np.subtract.at(self.remaining, sentences, 1)
        self.pending = 0
        return done


def _pad_batch(
    sequences: Sequence[tuple[int, ...]], pad_id: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Right-padded ids and attention mask (host arrays) and the longest length."""
    longest = max(len(s) for s in sequences)
    ids = np.full((len(sequences), longest), pad_id, dtype=np.int64)
    attention = np.zeros((len(sequences), longest), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        attention[row, : len(seq)] = 1
    return ids, attention, longest


def _count(stats: EngineStats | None, batch: Sequence[tuple[int, ...]], longest: int) -> None:
    if stats is None:
        return
    stats.forwards += 1
    stats.sequences += len(batch)
    stats.real_tokens += sum(len(s) for s in batch)
    stats.padded_tokens += len(batch) * longest
    stats.attention_tokens_sq += len(batch) * longest * longest


def run_masked_copies(
    loaded: LoadedModel,
    copies: Sequence[MaskedCopy],
    *,
    n_sentences: int,
    mask_id: int,
    batch_tokens: int | None,
    autocast: bool,
    progress: Callable[[int], None],
) -> list[np.ndarray]:
    """float64 log-probabilities [len(reads), len(targets[0])] for every copy, in order."""
    use_all_cores()
    stats = _STATS.get()
    device = loaded.device
    pad_id = loaded.tokenizer.pad_token_id
    pad_id = mask_id if pad_id is None else int(pad_id)
    per_sentence = np.bincount(
        np.array([c.sentence for c in copies], dtype=np.int64), minlength=n_sentences
    )
    tracker = _Progress(per_sentence)
    results: list[np.ndarray] = [np.empty((0, 0))] * len(copies)
    budget = resolve_token_budget(loaded, batch_tokens)
    can_prune = supports_last_layer_pruning(loaded.model)
    # Each batch's scores stay on the device until every batch has run: one transfer back.
    pending: list[tuple[list[int], list[int], torch.Tensor]] = []
    with scoring_mode(loaded, autocast=autocast), LayerTicks(loaded.model, progress) as ticks:
        lengths = [len(c.ids) for c in copies]
        for batch in pack_by_length(lengths, budget, max_padding=padding_share(device)):
            members = [copies[i] for i in batch]
            worth = tracker.finishing(np.array([c.sentence for c in members], dtype=np.int64))
            host_ids, host_attention, longest = _pad_batch([c.ids for c in members], pad_id)
            _count(stats, [c.ids for c in members], longest)
            mask_rows = [r for r, c in enumerate(members) for _ in c.masked]
            mask_cols = [p for c in members for p in c.masked]
            host_ids[mask_rows, mask_cols] = mask_id
            ids, attention = to_device(host_ids, device), to_device(host_attention, device)
            n_reads = [len(c.reads) for c in members]
            width = max((len(t) for c in members for t in c.targets), default=1)
            targets = np.zeros((sum(n_reads), width), dtype=np.int64)
            read_rows: list[int] = []
            read_cols: list[int] = []
            r = 0
            for row, copy in enumerate(members):
                for pos, wanted in zip(copy.reads, copy.targets, strict=True):
                    read_rows.append(row)
                    read_cols.append(pos)
                    targets[r, : len(wanted)] = wanted
                    r += 1
            # Pruning copies keys and values per read row: worth it for few reads.
            prune = can_prune and r <= 2 * len(members)
            if stats is not None:
                stats.head_rows += r
                stats.pruned_forwards += int(prune)
                if prune:
                    stats.pruned_tokens += len(members) * longest
                    stats.pruned_rows += r
                    stats.pruned_attention_tokens_sq += len(members) * longest * longest
                    stats.pruned_row_tokens += r * longest
            host_rows = np.array(read_rows, dtype=np.int64)
            host_cols = np.array(read_cols, dtype=np.int64)
            run = partial(
                _copies_batch, loaded, ids, attention, (host_rows, host_cols), targets, prune
            )
            with ticks.batch(worth):
                inputs = [host_ids, host_attention, host_rows, host_cols, targets]
                (log_probs,) = journaled(f"masked-copies/{prune}", inputs, run)
            pending.append((batch, n_reads, log_probs))
    for (batch, n_reads, _), host in zip(pending, to_host([p[2] for p in pending]), strict=True):
        start = 0
        for index, count in zip(batch, n_reads, strict=True):
            copy = copies[index]
            k = len(copy.targets[0]) if copy.targets else 0
            results[index] = host[start : start + count, :k]
            start += count
    if tracker.pending:  # no batch ran to report the sentences that needed none
        progress(tracker.pending)
    return results


def _copies_batch(
    loaded: LoadedModel,
    ids: torch.Tensor,
    attention: torch.Tensor,
    reads: tuple[np.ndarray, np.ndarray],
    targets: np.ndarray,
    prune: bool,
) -> list[torch.Tensor]:
    """One forward batch of masked copies: the log-probabilities of the targets read (a
    Self-Debias model's rescaled distribution, `audit.scoring.self_debias`)."""
    device = ids.device
    rows, cols = to_device(reads[0], device), to_device(reads[1], device)

    def logits_at(
        at_ids: torch.Tensor, at_mask: torch.Tensor, at_rows: torch.Tensor, at_cols: torch.Tensor
    ) -> torch.Tensor:
        logits, _ = gathered_logits(
            loaded.model, at_ids, at_mask, at_rows, at_cols, prune_last_layer=prune
        )
        return logits

    if loaded.self_debias is not None:
        logits = debiased_logits_at(loaded, logits_at, ids, attention, rows, cols)
    else:
        logits = logits_at(ids, attention, rows, cols)
    return [log_probs_of_targets(logits, to_device(targets, device))]


def _unmasked_batch(
    loaded: LoadedModel,
    ids: torch.Tensor,
    attention: torch.Tensor,
    reads: tuple[np.ndarray, np.ndarray],
    with_attention: bool,
) -> list[torch.Tensor]:
    """One forward batch of unmasked sentences: log P(w_i | S) at the read positions, and
    with `with_attention` the attention each of them receives."""
    row_t, col_t = to_device(reads[0], ids.device), to_device(reads[1], ids.device)
    if loaded.self_debias is not None:
        logits, attentions = _debiased_unmasked(
            loaded, ids, attention, row_t, col_t, with_attention
        )
    else:
        logits, attentions = gathered_logits(
            loaded.model, ids, attention, row_t, col_t, output_attentions=with_attention
        )
    scores = log_probs_of_targets(logits, ids[row_t, col_t].unsqueeze(1))[:, 0]
    if attentions is None:
        return [scores]
    return [scores, _attention_received(attentions, attention)[row_t, col_t]]


def _debiased_unmasked(
    loaded: LoadedModel,
    ids: torch.Tensor,
    attention: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
    with_attention: bool,
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None]:
    """Self-Debias's log p~ at the read positions, and the attention of the plain rows
    (their first B rows and W columns: Self-Debias changes no attention)."""
    batch, width = ids.shape
    kept: list[tuple[torch.Tensor, ...]] = []

    def logits_at(
        at_ids: torch.Tensor, at_mask: torch.Tensor, at_rows: torch.Tensor, at_cols: torch.Tensor
    ) -> torch.Tensor:
        logits, attentions = gathered_logits(
            loaded.model, at_ids, at_mask, at_rows, at_cols, output_attentions=with_attention
        )
        if attentions is not None:
            kept.append(tuple(a[:batch, :, :width, :width] for a in attentions))
        return logits

    log_p = debiased_logits_at(loaded, logits_at, ids, attention, rows, cols)
    return log_p, kept[0] if kept else None


def run_unmasked(
    loaded: LoadedModel,
    sentences: Sequence[Encoded],
    *,
    with_attention: bool,
    batch_tokens: int | None,
    autocast: bool,
    progress: Callable[[int], None],
) -> list[UnmaskedResult]:
    """log P(w_i | S) at every scored position, one batched forward per group of sentences.

    With `with_attention`, also a_i: the attention position i receives, averaged over
    layers, heads and the sentence's own query positions (specials included, padding
    excluded), as AULA defines it.
    """
    use_all_cores()
    stats = _STATS.get()
    device = loaded.device
    pad_id = loaded.tokenizer.pad_token_id
    pad_id = 0 if pad_id is None else int(pad_id)
    results: list[UnmaskedResult] = [UnmaskedResult(np.empty(0), None)] * len(sentences)
    budget = resolve_token_budget(loaded, batch_tokens)
    model = loaded.model
    attention_kernel = eager_attention(model) if with_attention else nullcontext()
    ticks = LayerTicks(model, progress)
    # Per batch: its sentences, its log-probabilities and attention received, on the
    # device until every batch has run (one transfer back).
    batches: list[list[int]] = []
    outputs: list[torch.Tensor] = []
    with scoring_mode(loaded, autocast=autocast), attention_kernel, ticks:
        lengths = [len(s.ids) for s in sentences]
        for batch in pack_by_length(lengths, budget, max_padding=padding_share(device)):
            members = [sentences[i] for i in batch]
            host_ids, host_attention, longest = _pad_batch([s.ids for s in members], pad_id)
            ids, attention = to_device(host_ids, device), to_device(host_attention, device)
            _count(stats, [s.ids for s in members], longest)
            rows = [r for r, s in enumerate(members) for _ in s.scored_positions]
            cols = [p for s in members for p in s.scored_positions]
            if stats is not None:
                stats.head_rows += len(rows)
            host_rows = np.array(rows, dtype=np.int64)
            host_cols = np.array(cols, dtype=np.int64)
            run = partial(
                _unmasked_batch, loaded, ids, attention, (host_rows, host_cols), with_attention
            )
            with ticks.batch(len(batch)):
                inputs = [host_ids, host_attention, host_rows, host_cols]
                outputs.extend(journaled(f"unmasked/{with_attention}", inputs, run))
            batches.append(batch)
    per_batch = 2 if with_attention else 1
    host = to_host(outputs)
    for number, batch in enumerate(batches):
        log_probs = host[per_batch * number]
        received = host[per_batch * number + 1] if with_attention else None
        start = 0
        for index in batch:
            n = len(sentences[index].scored_positions)
            att = None if received is None else received[start : start + n]
            results[index] = UnmaskedResult(log_probs[start : start + n], att)
            start += n
    return results


def _attention_received(
    attentions: tuple[torch.Tensor, ...], attention_mask: torch.Tensor
) -> torch.Tensor:
    """[B, T]: attention each key position receives, mean over layers, heads, real queries."""
    at = attention_mask.device  # layers of a model spread over devices live on several
    total = torch.stack([layer.float().sum(dim=1).to(at) for layer in attentions]).sum(dim=0)
    query_mask = attention_mask.to(total.dtype).unsqueeze(-1)  # [B, T, 1]
    per_key = (total * query_mask).sum(dim=1)  # [B, T]
    heads = attentions[0].shape[1]
    n_queries = attention_mask.sum(dim=1, keepdim=True).to(total.dtype)
    return per_key / (len(attentions) * heads * n_queries)
