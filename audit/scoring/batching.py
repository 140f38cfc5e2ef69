"""Packing sequences into batches under a token budget, and the budget itself.

Sequences are sorted by length (stable: ties keep their input order, so all masked
copies of one sentence, which share its length, stay together) and cut greedily into
batches whose padded size `len(batch) * longest` stays within the budget. On an
accelerator, whose budget from free memory can hold a whole chunk of sentences, a batch
is also cut where its padding would pass `ACCELERATOR_MAX_PADDING` of its real tokens
(`padding_share`): one batch of 1,024 ToxiGen sentences padded to the longest ran 4.9
times the real tokens through the model (docs/scoring.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: Padded tokens per forward pass on CPU. Measured on a 2-core CPU with a 6-layer,
#: 384-wide BERT (benchmarks/scoring.py): CPS throughput peaks near 2k tokens and falls
#: about 25% by 16k; larger batches also pad more and hold bigger [rows, vocab] logits.
CPU_TOKEN_BUDGET = 2048
#: Bounds for the budget derived from free accelerator memory.
MIN_TOKEN_BUDGET = 256
MAX_TOKEN_BUDGET = 262_144
#: On an accelerator, the padded tokens a batch may add over its real ones, as a share of
#: them, once it holds `PADDING_CUT_MIN_TOKENS` real tokens (a smaller batch is not cut for
#: its padding: each batch costs kernel launches and a journal commit).
ACCELERATOR_MAX_PADDING = 0.10
PADDING_CUT_MIN_TOKENS = 2048


def pack_by_length(
    lengths: Sequence[int], token_budget: int, *, max_padding: float | None = None
) -> list[list[int]]:
    """Indices of `lengths` grouped into batches, shortest sequences first.

    A sequence longer than the budget gets a batch of its own. With `max_padding`, a
    batch holding at least `PADDING_CUT_MIN_TOKENS` real tokens is also cut before a
    (longer) sequence that would make its padded tokens exceed its real ones by more
    than that share; sequences of one length are never parted by it.
    """
    if token_budget < 1:
        raise ValueError(f"token budget must be positive, got {token_budget}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    real = 0  # tokens of the sequences in `current`
    for index in order:
        longest = lengths[index]  # ascending order: the newest is the longest
        padded = (len(current) + 1) * longest
        cut = padded > token_budget or (
            max_padding is not None
            and real >= PADDING_CUT_MIN_TOKENS
            and padded > (1 + max_padding) * (real + longest)
        )
        if current and cut:
            batches.append(current)
            current, real = [], 0
        current.append(index)
        real += longest
    if current:
        batches.append(current)
    return batches


def padding_share(device: torch.device) -> float | None:
    """The padding cut `pack_by_length` applies on `device`: `ACCELERATOR_MAX_PADDING` on
    an accelerator, none on the CPU (whose fixed budget already makes small batches)."""
    return None if device.type == "cpu" else ACCELERATOR_MAX_PADDING


def default_token_budget(
    device: torch.device, *, hidden_size: int, num_layers: int, intermediate_size: int
) -> int:
    """Padded tokens per batch: a fixed budget on CPU, a share of free memory on CUDA
    (`memory_token_budget`)."""
    if device.type != "cuda":
        return CPU_TOKEN_BUDGET
    return memory_token_budget(
        free_memory(device),
        hidden_size=hidden_size,
        num_layers=num_layers,
        intermediate_size=intermediate_size,
    )


def free_memory(device: torch.device) -> int:
    """Bytes a CUDA device can still give: free memory (torch.cuda.mem_get_info) plus what
    torch's caching allocator holds without using it. Neither call waits for the GPU."""
    import torch

    free_bytes, _total = torch.cuda.mem_get_info(device)
    cached = torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    return int(free_bytes) + max(0, int(cached))


def memory_token_budget(
    free_bytes: int, *, hidden_size: int, num_layers: int, intermediate_size: int
) -> int:
    """Half the free memory divided by a per-token estimate of the live activations
    (hidden states, feed-forward block, attention probabilities for a 128-token
    sequence, all in float32), so a batch fits with room for the allocator."""
    per_token = 4 * (8 * hidden_size + 2 * intermediate_size + 2 * 128 * max(1, num_layers // 4))
    budget = int(0.5 * free_bytes / per_token)
    return max(MIN_TOKEN_BUDGET, min(MAX_TOKEN_BUDGET, budget))


def logits_token_budget(free_bytes: int, *, vocab_size: int) -> int:
    """Tokens whose full [tokens, vocab] float32 logits (with the log-softmax's two
    temporaries) fit in a quarter of the free memory: the cap of a model whose LM head
    cannot run on chosen rows."""
    return max(MIN_TOKEN_BUDGET, int(free_bytes // 4 // (vocab_size * 4 * 3)))


#: Share of free accelerator memory that the LM head's [rows, vocab] temporaries may use.
HEAD_MEMORY_SHARE = 0.125
#: Bytes per logit held while a chunk is normalised: the logits, their float32 copy and
#: logsumexp's temporaries.
HEAD_BYTES_PER_LOGIT = 16
#: Bounds of the LM head chunk sized from free memory.
MIN_HEAD_CHUNK_ROWS = 128
MAX_HEAD_CHUNK_ROWS = 65_536


def head_chunk_rows_for_memory(free_bytes: int, *, vocab_size: int) -> int:
    """Rows of final hidden states projected to the vocabulary at once on an accelerator:
    as many as fit in `HEAD_MEMORY_SHARE` of the free memory, so that a batch needs a few
    large matrix products instead of a thousand small ones (each a kernel launch)."""
    rows = int(HEAD_MEMORY_SHARE * free_bytes / (HEAD_BYTES_PER_LOGIT * max(1, vocab_size)))
    return max(MIN_HEAD_CHUNK_ROWS, min(MAX_HEAD_CHUNK_ROWS, rows))


def model_dims(config: object) -> tuple[int, int, int]:
    """(hidden size, layers, feed-forward size) of a transformers config, whatever its
    family calls them (BERT, GPT-2, Llama, DistilBERT, a multimodal text_config)."""
    text = getattr(config, "text_config", None) or config

    def first(*names: str) -> int:
        for name in names:
            value = getattr(text, name, None)
            if isinstance(value, int) and value > 0:
                return value
        return 0

    hidden = first("hidden_size", "n_embd", "dim", "d_model") or 768
    layers = first("num_hidden_layers", "n_layer", "n_layers", "num_layers") or 12
    ffn = first("intermediate_size", "n_inner", "hidden_dim", "ffn_dim") or 4 * hidden
    return hidden, layers, ffn
