"""A task head on a language model's encoder: the model the extrinsic tasks fine-tune.

The encoder is the LM's base model (`model.base_model`: BertModel inside
BertForMaskedLM, LlamaModel inside LlamaForCausalLM, GPT2Model inside GPT2LMHeadModel);
the LM head is not used. The encoder is a copy, so the `LoadedModel` it came from is left
as it was. A post-hoc debiased variant's projection of the last hidden states (INLP,
SentenceDebias: a forward hook on the body, `audit.models.projection`) is copied with it,
so the head reads the projected states, and stays fixed: it is no parameter
(tests/extrinsic/test_posthoc_finetune.py). The last hidden states are pooled (`pool`)
into one vector per input, and the head maps it to the task's outputs:

    dropout -> dense (d x d) -> tanh -> dropout -> linear (d x n)

(RoBERTa's classification head; BERT's sequence classifiers use the same dense + tanh,
as their "pooler", on the CLS state). The head is new: its weights are drawn from
N(0, initializer_range) (0.02 where the config says nothing) with the fine-tuning's seed,
its biases start at 0. A masked LM's checkpoint, as loaded for the audit, has no trained
pooler to start from. Regression has one output (the predicted score, unbounded);
classification one logit per class.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Literal, Protocol

import torch
from torch import nn

from audit.errors import AuditUserError
from audit.extrinsic.finetune.inputs import InputBatch, InputEncoder

if TYPE_CHECKING:
    from transformers import PreTrainedModel

    from audit.models.loaded import LoadedModel

Pooling = Literal["cls", "mean", "last"]
DEFAULT_INIT_STD = 0.02
#: The random stream of the head's initial weights, apart from the variant trainer's
#: streams (`audit.training.schedule.Stream`: 0 to 4).
HEAD_INIT_STREAM = 100


def head_seed(seed: int) -> int:
    """The seed of the head's initial weights, derived from the fine-tuning's seed as the
    trainer derives its streams' seeds (numpy's SeedSequence: the same on every machine)."""
    import numpy as np

    state = np.random.SeedSequence([seed % 2**64, HEAD_INIT_STREAM, 0]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: Pooling) -> torch.Tensor:
    """One vector per row of `hidden` [B, T, d]: the first token's state (`cls`), the mean
    over the real tokens (`mean`, special tokens included), or the last real token's state
    (`last`; the batch is right-padded)."""
    if pooling == "cls":
        return hidden[:, 0]
    mask = attention_mask.to(hidden.dtype)
    if pooling == "mean":
        return (hidden * mask[..., None]).sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1)
    last = attention_mask.long().sum(dim=1) - 1
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), last.clamp(min=0)]


class HeadShape(Protocol):
    """What a task model needs of its task head (`task_head.TaskHead` is one): its kind,
    its classes and how many outputs its layers have. A protocol here, so that this module
    and `task_head` (which imports it for `TaskModel`) need no import of each other."""

    @property
    def kind(self) -> str: ...

    @property
    def classes(self) -> tuple[str, ...]: ...

    @property
    def n_outputs(self) -> int: ...


class HeadLayers(nn.Module):
    """dropout -> dense -> tanh -> dropout -> linear (the layers of every task head)."""

    def __init__(self, hidden: int, n_outputs: int, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.dense = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_outputs)

    def reset(self, seed: int, std: float) -> None:
        """Draw the weights from N(0, std) with a generator seeded by `seed`; zero biases."""
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for layer in (self.dense, self.out):
                weight = torch.randn(layer.weight.shape, generator=generator) * std
                layer.weight.copy_(weight)
                layer.bias.zero_()

    def forward(self, pooled: torch.Tensor) -> torch.Tensor:
        x = torch.tanh(self.dense(self.dropout(pooled)))
        return self.out(self.dropout(x))


class TaskModel(nn.Module):
    """An encoder with a task head's layers (`head`) for the task head `task_head`.
    `forward(batch)` gives float32 outputs [B, n]."""

    def __init__(
        self,
        encoder: PreTrainedModel,
        head: HeadLayers,
        *,
        task_head: HeadShape,
        model_type: Literal["masked", "causal"],
        pooling: Pooling,
        inputs: InputEncoder,
    ) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = head
        self.task_head = task_head
        self.model_type = model_type
        self.pooling = pooling
        self.inputs = inputs

    @property
    def kind(self) -> str:
        return self.task_head.kind

    @property
    def labels(self) -> tuple[str, ...]:
        return self.task_head.classes

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def forward(self, batch: InputBatch) -> torch.Tensor:
        extra: dict[str, Any] = {"use_cache": False} if self.model_type == "causal" else {}
        if batch.token_type_ids is not None:
            extra["token_type_ids"] = batch.token_type_ids
        out = self.encoder(
            input_ids=batch.input_ids,
            attention_mask=batch.attention_mask,
            return_dict=True,
            **extra,
        )
        hidden = out.last_hidden_state.float()
        return self.head(pool(hidden, batch.attention_mask, self.pooling)).float()


def encoder_of(loaded: LoadedModel) -> PreTrainedModel:
    """The LM's base model (without its LM head); a user error when it has none."""
    model = loaded.model
    encoder = getattr(model, "base_model", None)
    if encoder is None or encoder is model:
        raise AuditUserError(
            f"fine-tuning: {loaded.model_id} ({type(model).__name__}) has no separate base "
            "model to put a task head on; extrinsic tasks need a masked or causal LM with a "
            "Hugging Face base model (`base_model_prefix`)"
        )
    return encoder


def build_task_model(
    loaded: LoadedModel,
    *,
    task_head: HeadShape,
    pooling: Pooling,
    max_length: int,
    head_dropout: float,
    seed: int,
    device: torch.device,
) -> TaskModel:
    """A new task model for `task_head` (its classes fixed) on a copy of `loaded`'s
    encoder (float32, on `device`, every weight trainable), its head layers drawn from
    `seed` (`head_seed`)."""
    source = encoder_of(loaded)
    encoder = copy.deepcopy(source).float()  # forward hooks (a projection) copied too
    encoder.requires_grad_(True)
    config = loaded.model.config
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    if hidden <= 0:
        raise AuditUserError(
            f"fine-tuning: the config of {loaded.model_id} gives no hidden_size for the head"
        )
    with torch.random.fork_rng():  # nn.Linear's own initialisation draws from it
        head = HeadLayers(hidden, task_head.n_outputs, head_dropout)
    std = float(getattr(config, "initializer_range", DEFAULT_INIT_STD) or DEFAULT_INIT_STD)
    head.reset(head_seed(seed), std)
    inputs = InputEncoder(
        loaded.tokenizer,
        loaded.model,
        model_type=loaded.model_type,
        max_length=max_length,
        pooling=pooling,
    )
    model = TaskModel(
        encoder,
        head,
        task_head=task_head,
        model_type=loaded.model_type,
        pooling=pooling,
        inputs=inputs,
    )
    return model.to(device).eval()
