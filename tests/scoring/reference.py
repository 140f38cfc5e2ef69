"""A naive, obviously-correct masked-LM scorer: the textbook formulas, one forward each.

Written the way the published reference code is (nyu-mll/crows-pairs `metric.py`,
kanekomasahiro/evaluate_bias_in_mlm `evaluate.py`): `tokenizer.encode` with special
tokens, the first and last token skipped as specials, one forward pass per masked copy
on the full sequence (batch of one, no padding), the full logits, log-softmax over the
vocabulary, sums in Python floats. The fast engine must agree with it to 1e-4.
"""

from __future__ import annotations

import difflib
import math

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase


def encode(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    return list(tokenizer.encode(text))


def spans(ids_a: list[int], ids_b: list[int], operation: str) -> tuple[list[int], list[int]]:
    """The reference code's `get_span`: positions in 'equal' or in non-equal blocks."""
    matcher = difflib.SequenceMatcher(None, [str(x) for x in ids_a], [str(x) for x in ids_b])
    one: list[int] = []
    two: list[int] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if (operation == "equal") == (tag == "equal"):
            one += list(range(a0, a1))
            two += list(range(b0, b1))
    return one, two


def _log_softmax_at(model: PreTrainedModel, ids: list[int], position: int) -> torch.Tensor:
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    return torch.log_softmax(logits, dim=-1)[position]


def masked_log_prob(model: PreTrainedModel, ids: list[int], position: int, mask_id: int) -> float:
    """log P(w_position | ids with that position masked), full logits, batch of one."""
    masked = list(ids)
    masked[position] = mask_id
    return float(_log_softmax_at(model, masked, position)[ids[position]])


def pll(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, text: str) -> float:
    ids = encode(tokenizer, text)
    mask = int(tokenizer.mask_token_id)
    return sum(masked_log_prob(model, ids, i, mask) for i in range(1, len(ids) - 1))


def pppl(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, text: str) -> float:
    n = len(encode(tokenizer, text)) - 2
    return math.exp(-pll(model, tokenizer, text) / n)


def cps_pair(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, st: str, at: str
) -> tuple[float, float]:
    """Sum of masked log-probs of the shared tokens; first and last shared ([CLS], [SEP])
    skipped, as `spans[1:-1]` does in the reference code."""
    ids_st, ids_at = encode(tokenizer, st), encode(tokenizer, at)
    mask = int(tokenizer.mask_token_id)
    eq_st, eq_at = spans(ids_st, ids_at, "equal")
    score_st = sum(masked_log_prob(model, ids_st, i, mask) for i in eq_st[1:-1])
    score_at = sum(masked_log_prob(model, ids_at, i, mask) for i in eq_at[1:-1])
    return score_st, score_at


def _sss_side(model: PreTrainedModel, ids: list[int], positions: list[int], mask_id: int,
              matrix: bool) -> float:  # fmt: skip
    if not positions:
        return math.nan
    masked = list(ids)
    for p in positions:
        masked[p] = mask_id
    with torch.no_grad():
        log_probs = torch.log_softmax(model(torch.tensor([masked])).logits[0], dim=-1)
    own = [ids[p] for p in positions]
    if matrix:
        values = [float(log_probs[p, t]) for p in positions for t in own]
    else:
        values = [float(log_probs[p, t]) for p, t in zip(positions, own, strict=True)]
    return sum(values) / len(values)


def sss_pair(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    st: str,
    at: str,
    *,
    matrix: bool = False,
) -> tuple[float, float]:
    ids_st, ids_at = encode(tokenizer, st), encode(tokenizer, at)
    mask = int(tokenizer.mask_token_id)
    diff_st, diff_at = spans(ids_st, ids_at, "diff")
    return (
        _sss_side(model, ids_st, diff_st, mask, matrix),
        _sss_side(model, ids_at, diff_at, mask, matrix),
    )


def aul(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, text: str, *, attention: bool
) -> float:
    """AUL, or AULA with `attention`: Kaneko's `calculate_aul` on one sentence."""
    ids = encode(tokenizer, text)
    before = model.config._attn_implementation
    if attention:
        model.set_attn_implementation("eager")
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=attention)
    finally:
        model.set_attn_implementation(before)
    log_probs = torch.log_softmax(out.logits[0], dim=-1)
    token_log_probs = log_probs.gather(1, torch.tensor(ids).view(-1, 1))[1:-1, 0]
    if attention:
        stacked = torch.cat(out.attentions, 0)  # [layers, heads, T, T]
        received = stacked.mean(0).mean(0).mean(0)  # layers, heads, then query positions
        token_log_probs = token_log_probs * received[1:-1]
    values = [float(v) for v in token_log_probs]
    return sum(values) / len(values)


def tbs_log_probs(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, masked_text: str, target: str
) -> float:
    """log P(target at the first mask | text), the other masks left masked."""
    ids = encode(tokenizer, masked_text)
    first = ids.index(int(tokenizer.mask_token_id))
    target_ids = tokenizer.encode(target, add_special_tokens=False)
    assert len(target_ids) == 1, target_ids
    return float(_log_softmax_at(model, ids, first)[target_ids[0]])
