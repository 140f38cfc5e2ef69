"""The models' own objectives: masked LM (BERT's 15% masking, 80/10/10) and next-token LM.

Only the positions that have a target go through the LM head: a forward hook on the
encoder/decoder (`model.base_model`) replaces its last hidden state [B, T, d] by the rows
at the target positions [1, R, d], and the model's own head runs on those rows. The loss
is the mean cross-entropy over the targets of the batch, in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import torch

from audit.errors import AuditUserError
from audit.models.hidden_rows import forward_at_rows
from audit.training.encode import collate, encode_sentences, pad_token_id
from audit.training.objective import StatelessObjective, StepLoss
from audit.training.schedule import Stream, batch_indices, derive_seed

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Share of eligible tokens masked (Devlin et al. 2019).
MLM_PROBABILITY = 0.15
#: Of the masked tokens: share replaced by the mask token; half the rest become a random
#: token, the other half stay as they are.
MASK_TOKEN_SHARE = 0.8


@dataclass(frozen=True)
class Masking:
    """A masked batch: the model's input, and the (row, col) positions with their targets."""

    input_ids: torch.Tensor  # [B, T]
    rows: torch.Tensor  # [R]
    cols: torch.Tensor  # [R]
    targets: torch.Tensor  # [R]: the original ids at the masked positions

    def to(self, device: torch.device) -> Masking:
        return Masking(
            self.input_ids.to(device, non_blocking=True),
            self.rows.to(device, non_blocking=True),
            self.cols.to(device, non_blocking=True),
            self.targets.to(device, non_blocking=True),
        )


def mask_tokens(
    input_ids: torch.Tensor,
    special: torch.Tensor,
    *,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
) -> Masking:
    """BERT's masking on CPU tensors: each token that is not special or padding is chosen
    with probability 0.15 (at least one per batch); a chosen token becomes the mask token
    (80%), a uniformly random token (10%) or stays (10%). All draws come from `generator`."""
    eligible = ~special
    chosen = (torch.rand(input_ids.shape, generator=generator) < MLM_PROBABILITY) & eligible
    if not bool(chosen.any()):
        candidates = eligible.nonzero()
        if len(candidates) == 0:
            raise ValueError("a batch with no token that could be masked")
        pick = int(torch.randint(len(candidates), (1,), generator=generator))
        chosen[candidates[pick, 0], candidates[pick, 1]] = True
    draw = torch.rand(input_ids.shape, generator=generator)
    to_mask = chosen & (draw < MASK_TOKEN_SHARE)
    to_random = chosen & (draw >= MASK_TOKEN_SHARE) & (draw < (1 + MASK_TOKEN_SHARE) / 2)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator)
    masked = input_ids.clone()
    masked[to_mask] = mask_id
    masked[to_random] = random_ids[to_random]
    rows, cols = chosen.nonzero(as_tuple=True)
    return Masking(masked, rows, cols, input_ids[rows, cols])


def masked_lm_loss(
    model: PreTrainedModel, masking: Masking, attention_mask: torch.Tensor
) -> torch.Tensor:
    """Mean cross-entropy of the masked positions' original tokens."""
    out = forward_at_rows(
        model, masking.input_ids, attention_mask, lambda hidden: hidden[masking.rows, masking.cols]
    )
    return torch.nn.functional.cross_entropy(out.logits[0].float(), masking.targets)


def next_token_targets(
    input_ids: torch.Tensor, attention_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(rows, cols, targets): position t of a row predicts its real token t + 1."""
    rows, cols = (attention_mask[:, 1:] == 1).nonzero(as_tuple=True)
    return rows, cols, input_ids[rows, cols + 1]


def causal_lm_loss(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    targets: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> torch.Tensor:
    """Mean cross-entropy of every real token given the tokens before it (padding is
    neither input nor target)."""
    rows, cols, ids = targets
    out = forward_at_rows(
        model, input_ids, attention_mask, lambda hidden: hidden[rows, cols], use_cache=False
    )
    return torch.nn.functional.cross_entropy(out.logits[0].float(), ids)


class LanguageModelTask(StatelessObjective):
    """The model's own objective on `sentences`: masked LM or next-token LM. Step s reads
    the sentences `schedule.batch_indices` gives, masked with a generator seeded from
    (seed, s)."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        sentences: Sequence[str],
        *,
        model_type: Literal["masked", "causal"],
        batch_size: int,
        max_length: int,
        seed: int,
        device: torch.device,
    ) -> None:
        self.name = "masked_lm" if model_type == "masked" else "causal_lm"
        self.term_names: tuple[str, ...] = ()
        self.model_type = model_type
        self.encoded = encode_sentences(
            tokenizer, model, sentences, model_type=model_type, max_length=max_length
        )
        if not self.encoded:
            raise AuditUserError(
                f"training: none of the {len(sentences)} training sentences has a token to "
                "learn from (all empty after tokenising)"
            )
        self.batch_size = batch_size
        self.seed = seed
        self.device = device
        self.pad_id = pad_token_id(tokenizer)
        self.mask_id = -1
        self.vocab_size = 0
        if model_type == "masked":
            if tokenizer.mask_token_id is None:
                raise AuditUserError(
                    f"training: the tokenizer {type(tokenizer).__name__} has no mask token, "
                    "so masked-LM training cannot run; is the model a masked LM?"
                )
            self.mask_id = int(tokenizer.mask_token_id)
            embeddings: Any = model.get_input_embeddings()
            self.vocab_size = min(len(tokenizer), int(embeddings.weight.shape[0]))

    def step_loss(self, model: PreTrainedModel, step: int) -> StepLoss:
        picked = batch_indices(len(self.encoded), self.batch_size, step, self.seed, Stream.ORDER)
        batch = collate([self.encoded[i] for i in picked], self.pad_id)
        if self.model_type == "masked":
            generator = torch.Generator().manual_seed(derive_seed(self.seed, Stream.MASKING, step))
            masking = mask_tokens(
                batch.input_ids,
                batch.special,
                mask_id=self.mask_id,
                vocab_size=self.vocab_size,
                generator=generator,
            )
            masking = masking.to(self.device)
            loss = masked_lm_loss(model, masking, batch.attention_mask.to(self.device))
        else:
            rows, cols, ids = next_token_targets(batch.input_ids, batch.attention_mask)  # CPU
            targets = (rows.to(self.device), cols.to(self.device), ids.to(self.device))
            on_device = batch.to(self.device)
            loss = causal_lm_loss(model, on_device.input_ids, on_device.attention_mask, targets)
        return StepLoss(loss, {}, batch.tokens)
