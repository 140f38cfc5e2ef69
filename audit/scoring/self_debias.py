"""Self-Debias at scoring time (Schick, Udupa and Schütze 2021, TACL), as bias-bench
applies it to likelihood scoring (McGill-NLP/bias-bench, `debias/self_debias/`).

At every position a scorer reads, the model's distribution p(w | x) is compared with
p(w | prefix_i + x) for each debiasing prefix i:

    delta(w)   = p(w | x) - max_i p(w | prefix_i + x)
    alpha(d)   = 1 if d >= 0 else exp(lambda * d)      (compat reference: max(alpha, eps))
    p~(w)      = alpha(delta(w)) p(w | x) / sum_v alpha(delta(v)) p(v | x)

The prefixed inputs run in the same forward batch as the plain one: each row of a
right-padded batch gets one copy per prefix, the prefix's tokens put after the row's
leading BOS / [CLS] token (or first, when the row has none), as bias-bench builds its
inputs. A position c of the plain row is position c + len(prefix) of its copy, for the
prediction made there (causal: of token c + 1, so the BOS's prediction of the first
word becomes the last prefix token's) or the masked token read there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from audit.scoring.base import ScoringInputError

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel
    from audit.models.self_debias import SelfDebias


def debiased_log_probs(
    plain: torch.Tensor, prefixed: torch.Tensor, *, decay: float, epsilon: float
) -> torch.Tensor:
    """log p~ [R, V] (float32) from the plain logits [R, V] and each prefix's [K, R, V]."""
    log_p = torch.log_softmax(plain.float(), dim=-1)
    biased = torch.softmax(prefixed.float(), dim=-1).amax(dim=0)
    delta = log_p.exp() - biased
    log_alpha = decay * delta.clamp(max=0.0)
    if epsilon > 0:
        log_alpha = log_alpha.clamp(min=math.log(epsilon))
    scaled = log_p + log_alpha
    return scaled - torch.logsumexp(scaled, dim=-1, keepdim=True)


@dataclass(frozen=True)
class ExpandedBatch:
    """The plain rows (group 0) and one copy per prefix (group k: rows k*B .. k*B+B-1),
    right-padded to the width of the longest prefix more; `rows` / `cols` are the read
    positions of every group, group after group."""

    ids: torch.Tensor
    attention: torch.Tensor
    rows: torch.Tensor
    cols: torch.Tensor


def expand_batch(
    debias: SelfDebias,
    ids: torch.Tensor,
    attention: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
    *,
    pad_id: int,
) -> ExpandedBatch:
    """The batch with each row's prefixed copies (see the module docstring)."""
    batch, width = ids.shape
    wide = width + debias.longest_prefix
    device = ids.device
    leading = torch.tensor(sorted(debias.leading_ids), dtype=ids.dtype, device=device)
    keep = torch.isin(ids[:, :1], leading)  # [B, 1]: the row starts with BOS / [CLS]
    out_ids = [torch.full((batch, wide), pad_id, dtype=ids.dtype, device=device)]
    out_att = [torch.zeros((batch, wide), dtype=attention.dtype, device=device)]
    out_ids[0][:, :width] = ids
    out_att[0][:, :width] = attention
    all_rows, all_cols = [rows], [cols]
    for group, prefix_ids in enumerate(debias.prefix_ids, start=1):
        size = len(prefix_ids)
        prefix = torch.tensor(prefix_ids, dtype=ids.dtype, device=device).expand(batch, size)
        new_ids = torch.full((batch, wide), pad_id, dtype=ids.dtype, device=device)
        new_att = torch.zeros((batch, wide), dtype=attention.dtype, device=device)
        new_ids[:, size : size + width] = ids
        new_att[:, size : size + width] = attention
        ones = torch.ones((batch, size), dtype=attention.dtype, device=device)
        first_ids, first_att = ids[:, :1], attention[:, :1]
        new_ids[:, : size + 1] = torch.where(
            keep, torch.cat([first_ids, prefix], 1), torch.cat([prefix, first_ids], 1)
        )
        new_att[:, : size + 1] = torch.where(
            keep, torch.cat([first_att, ones], 1), torch.cat([ones, first_att], 1)
        )
        out_ids.append(new_ids)
        out_att.append(new_att)
        all_rows.append(rows + group * batch)
        all_cols.append(cols + size)
    return ExpandedBatch(
        ids=torch.cat(out_ids),
        attention=torch.cat(out_att),
        rows=torch.cat(all_rows),
        cols=torch.cat(all_cols),
    )


def check_expanded_length(loaded: LoadedModel, attention: torch.Tensor, limit: int | None) -> None:
    """A prefixed copy longer than the model's positions is a clear error."""
    debias = loaded.self_debias
    if limit is None or debias is None:
        return
    longest = int(attention.sum(dim=1).max()) + debias.longest_prefix
    if longest > limit:
        raise ScoringInputError(
            f"model '{loaded.model_id}': with its Self-Debias prefix ({debias.longest_prefix} "
            f"tokens) an input is {longest} tokens long, more than the {limit} the model "
            "accepts; use shorter sentences or prefixes"
        )


def debiased_logits_at(
    loaded: LoadedModel,
    logits_at: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    ids: torch.Tensor,
    attention: torch.Tensor,
    rows: torch.Tensor,
    cols: torch.Tensor,
) -> torch.Tensor:
    """log p~ [R, V] at (rows, cols): `logits_at(ids, attention, rows, cols)` (the
    scorer's own way to get logits at chosen positions) runs once on the batch with its
    prefixed copies."""
    from audit.models.sequence_limit import sequence_limit

    debias = loaded.self_debias
    assert debias is not None
    check_expanded_length(loaded, attention, sequence_limit(loaded.model, loaded.tokenizer))
    pad = loaded.tokenizer.pad_token_id
    wide = expand_batch(debias, ids, attention, rows, cols, pad_id=0 if pad is None else int(pad))
    logits = logits_at(wide.ids, wide.attention, wide.rows, wide.cols)
    grouped = logits.reshape(debias.groups, len(rows), logits.shape[-1])
    return debiased_log_probs(grouped[0], grouped[1:], decay=debias.decay, epsilon=debias.epsilon)
