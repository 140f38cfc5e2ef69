"""Tokenising sentences for the masked-LM scorers: ids plus which positions are special."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.models.sequence_limit import sequence_limit
from audit.scoring.base import ScoringInputError

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class Encoded:
    """One tokenised sentence, special tokens included."""

    ids: tuple[int, ...]
    special: tuple[bool, ...]  # True at [CLS]/[SEP], <s>/</s> positions: never scored

    @property
    def scored_positions(self) -> tuple[int, ...]:
        return tuple(i for i, special in enumerate(self.special) if not special)


def mask_token_id(tokenizer: PreTrainedTokenizerBase, model_id: str) -> int:
    """The tokenizer's mask token id, or a clear error for tokenizers without one."""
    mask_id = tokenizer.mask_token_id
    if mask_id is None:
        raise ScoringInputError(
            f"model '{model_id}': its tokenizer has no mask token, so masked-LM scorers "
            "(pll, cps, sss, tbs) cannot run on it; use a masked language model"
        )
    return int(mask_id)


def max_sequence_length(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> int:
    """The longest token sequence (special tokens included) the model accepts; 512 when
    neither its config nor its tokenizer says."""
    return sequence_limit(model, tokenizer) or 512


def encode_texts(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    *,
    max_length: int,
    model_id: str,
) -> list[Encoded]:
    """Tokenise every text with special tokens; errors name the sentence and its length."""
    if not texts:
        return []
    batch = tokenizer(list(texts), add_special_tokens=True, return_special_tokens_mask=True)
    encoded: list[Encoded] = []
    for index, (text, ids, special) in enumerate(
        zip(texts, batch["input_ids"], batch["special_tokens_mask"], strict=True)
    ):
        if len(ids) > max_length:
            raise ScoringInputError(
                f"model '{model_id}': sentence {index} is {len(ids)} tokens long, more than "
                f"the {max_length} the model accepts: {text[:80]!r}"
            )
        item = Encoded(tuple(int(i) for i in ids), tuple(bool(s) for s in special))
        if not item.scored_positions:
            raise ScoringInputError(
                f"model '{model_id}': sentence {index} has no tokens to score "
                f"(empty after tokenisation): {text!r}"
            )
        encoded.append(item)
    return encoded
