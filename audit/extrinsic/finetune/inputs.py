"""Texts and text pairs to token ids for a task head, and padded batches of them.

**Masked LMs**: the tokenizer's own encoding, with its special tokens: `[CLS] a [SEP]` for
one text, `[CLS] a [SEP] b [SEP]` for a pair (`<s> a </s></s> b </s>` for RoBERTa), with
its token type ids when the tokenizer makes them (BERT). Pairs are cut longest first.

**Causal LMs**: `BOS a EOS` for one text and `BOS a EOS b EOS` for a pair: the EOS token
separates the two texts and ends the input, so the last token (what `last` pooling reads)
is always EOS, after the model has read both texts. BOS is the tokenizer's (else the
config's) and is left out when the model has none; the texts are tokenized without
special tokens. A causal LM without an EOS token cannot be used.

The length is cut to `max_length` tokens, lowered to the model's own limit (position
embeddings or the tokenizer's `model_max_length`) when that is shorter; pairs lose tokens
from the end of the longer text first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from audit.errors import AuditUserError
from audit.extrinsic.finetune.examples import TextInput
from audit.models.sequence_limit import sequence_limit
from audit.training.encode import bos_token_id, pad_token_id

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@dataclass(frozen=True)
class EncodedInput:
    """One example's token ids (and token type ids, for tokenizers that make them)."""

    ids: tuple[int, ...]
    type_ids: tuple[int, ...] | None = None


@dataclass(frozen=True)
class InputBatch:
    """Right-padded tensors of a few encoded examples."""

    input_ids: torch.Tensor  # [B, T] long
    attention_mask: torch.Tensor  # [B, T] long, 1 at real tokens
    token_type_ids: torch.Tensor | None  # [B, T] long, or None
    tokens: int  # real (non-padding) tokens

    def to(self, device: torch.device) -> InputBatch:
        return InputBatch(
            self.input_ids.to(device, non_blocking=True),
            self.attention_mask.to(device, non_blocking=True),
            None
            if self.token_type_ids is None
            else self.token_type_ids.to(device, non_blocking=True),
            self.tokens,
        )


def _cut_pair(a: list[int], b: list[int], budget: int) -> tuple[list[int], list[int]]:
    """Drop tokens from the end of the longer list until both fit in `budget`."""
    a, b = list(a), list(b)
    while len(a) + len(b) > budget:
        if len(a) >= len(b):
            a.pop()
        else:
            b.pop()
    return a, b


class InputEncoder:
    """Encodes a task's inputs for one model (see the module docstring)."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        model: PreTrainedModel,
        *,
        model_type: Literal["masked", "causal"],
        max_length: int,
        pooling: Literal["cls", "mean", "last"],
    ) -> None:
        self.tokenizer = tokenizer
        self.model_type = model_type
        self.pooling = pooling
        limit = sequence_limit(model, tokenizer)
        self.max_length = min(max_length, limit) if limit else max_length
        self.pad_id = pad_token_id(tokenizer)
        self.type_ids = "token_type_ids" in getattr(tokenizer, "model_input_names", ())
        self.bos: int | None = None
        self.eos: int | None = None
        if model_type == "causal":
            self.bos = bos_token_id(tokenizer, model)
            eos = tokenizer.eos_token_id
            if eos is None:
                eos = getattr(model.config, "eos_token_id", None)
            if isinstance(eos, list):
                eos = eos[0] if eos else None
            if not isinstance(eos, int):
                raise AuditUserError(
                    f"fine-tuning: the causal LM's tokenizer ({type(tokenizer).__name__}) and "
                    "config have no EOS token, which separates and ends the inputs of a task "
                    "head; set `eos_token` in the tokenizer's files"
                )
            self.eos = eos

    def encode(self, inputs: Sequence[TextInput]) -> list[EncodedInput]:
        """Encode each input (a text or a pair), in order."""
        singles = [i for i, x in enumerate(inputs) if isinstance(x, str)]
        pairs = [i for i, x in enumerate(inputs) if not isinstance(x, str)]
        out: list[EncodedInput | None] = [None] * len(inputs)
        if singles:
            texts = [inputs[i] for i in singles]
            for i, enc in zip(singles, self._encode([str(t) for t in texts], None), strict=True):
                out[i] = enc
        if pairs:
            firsts = [inputs[i][0] for i in pairs]
            seconds = [inputs[i][1] for i in pairs]
            for i, enc in zip(pairs, self._encode(firsts, seconds), strict=True):
                out[i] = enc
        return [e for e in out if e is not None]

    def _encode(self, first: list[str], second: list[str] | None) -> list[EncodedInput]:
        for texts in (first, second or []):
            for text in texts:
                if not isinstance(text, str):
                    raise TypeError(f"inputs must be strings or pairs of strings, got {text!r}")
        if self.model_type == "masked":
            return self._masked(first, second)
        return self._causal(first, second)

    def _masked(self, first: list[str], second: list[str] | None) -> list[EncodedInput]:
        args: tuple[Any, ...] = (first,) if second is None else (first, second)
        encoded = self.tokenizer(
            *args,
            add_special_tokens=True,
            truncation=True,
            max_length=self.max_length,
            return_special_tokens_mask=True,
            return_token_type_ids=self.type_ids,
        )
        out: list[EncodedInput] = []
        for row, ids in enumerate(encoded["input_ids"]):
            special = encoded["special_tokens_mask"][row]
            if self.pooling == "cls" and not (ids and special[0]):
                raise AuditUserError(
                    f"fine-tuning pooling 'cls': the tokenizer {type(self.tokenizer).__name__} "
                    "puts no special (CLS) token first; use `pooling: mean`"
                )
            types = tuple(encoded["token_type_ids"][row]) if self.type_ids else None
            out.append(EncodedInput(ids=tuple(ids), type_ids=types))
        return out

    def _causal(self, first: list[str], second: list[str] | None) -> list[EncodedInput]:
        assert self.eos is not None
        head = [] if self.bos is None else [self.bos]
        plain = self.tokenizer(first, add_special_tokens=False)["input_ids"]
        if second is None:
            budget = self.max_length - len(head) - 1
            return [EncodedInput(tuple([*head, *ids[:budget], self.eos])) for ids in plain]
        other = self.tokenizer(second, add_special_tokens=False)["input_ids"]
        budget = self.max_length - len(head) - 2
        out: list[EncodedInput] = []
        for a, b in zip(plain, other, strict=True):
            a, b = _cut_pair(a, b, budget)
            out.append(EncodedInput(tuple([*head, *a, self.eos, *b, self.eos])))
        return out

    def collate(self, rows: Sequence[EncodedInput]) -> InputBatch:
        """Right-pad `rows` into one batch (CPU tensors)."""
        import torch

        width = max(len(r.ids) for r in rows)
        input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(rows), width), dtype=torch.long)
        types = torch.zeros((len(rows), width), dtype=torch.long) if self.type_ids else None
        for row, enc in enumerate(rows):
            n = len(enc.ids)
            input_ids[row, :n] = torch.tensor(enc.ids, dtype=torch.long)
            attention[row, :n] = 1
            if types is not None and enc.type_ids is not None:
                types[row, :n] = torch.tensor(enc.type_ids, dtype=torch.long)
        return InputBatch(input_ids, attention, types, sum(len(r.ids) for r in rows))
