"""Dropout debiasing (Webster et al. 2020): attention dropout 0.15 and hidden dropout 0.2
while training, the model's own values afterwards.

What is changed, per architecture (docs/training.md has the table):

- attention-probability dropout: the `p` of the `nn.Dropout` the attention reads
  (BERT/RoBERTa/ELECTRA `*.attention.self.dropout`, ALBERT `*.attention.attention_dropout`,
  DistilBERT `*.attention.dropout`, GPT-2 `*.attn.attn_dropout`; with SDPA these models
  pass that `p` to the kernel), or the float `attention_dropout` attribute each attention
  module reads at forward time (Llama, Mistral, Qwen2, Gemma: SmolLM2);
- hidden dropout: the `p` of every other `nn.Dropout` of the encoder/decoder (embeddings
  and each sub-layer's output before the residual sum), or, for architectures with no
  such module (Llama-style decoders), forward hooks that apply dropout to the embedding
  output and to the output of each layer's attention and MLP blocks before their
  residual sums, where BERT and GPT-2 have their hidden dropout.

The config is never changed; every `p`, attribute and hook is restored or removed when the
context ends, even on an error, so the saved model is the base architecture.

`DropoutChanges.from_zero` says whether the model's own dropout was 0 wherever it was set
(a model never trained with dropout, such as SmolLM2), and `set_share` runs the set
dropout at a share of its value (`audit.training.dropout_ramp` ramps it in for such
models).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from audit.errors import AuditUserError

if TYPE_CHECKING:
    from transformers import PreTrainedModel

#: Module-name endings of attention-probability dropout modules.
ATTENTION_DROPOUT_NAMES = (
    "attention.self.dropout",  # BERT, RoBERTa, ELECTRA, XLM-R, CamemBERT
    "attention.attention_dropout",  # ALBERT
    "attention.dropout",  # DistilBERT
    "attn.attn_dropout",  # GPT-2
)
#: The float attribute Llama-style attention modules read their dropout from.
ATTENTION_ATTRIBUTE = "attention_dropout"


@dataclass
class DropoutChanges:
    """What `dropout_applied` changed (for tests and docs), whether the model's own
    dropout was 0 at every place changed (`from_zero`), and the setters `set_share` runs."""

    attention_modules: list[str] = field(default_factory=list)
    attention_attributes: list[str] = field(default_factory=list)
    hidden_modules: list[str] = field(default_factory=list)
    hidden_hooks: list[str] = field(default_factory=list)
    from_zero: bool = False
    setters: list[Callable[[float], None]] = field(default_factory=list, repr=False)

    def set_share(self, share: float) -> None:
        """Run every changed dropout at `share` (0 to 1) of the value it was set to."""
        for setter in self.setters:
            setter(share)


@dataclass
class _Rate:
    """The dropout probability a hook reads at each forward pass."""

    p: float


def _module_setter(module: nn.Dropout, p: float) -> Callable[[float], None]:
    def setter(share: float) -> None:
        module.p = p * share

    return setter


def _attribute_setter(module: nn.Module, p: float) -> Callable[[float], None]:
    def setter(share: float) -> None:
        setattr(module, ATTENTION_ATTRIBUTE, p * share)

    return setter


def _rate_setter(rate: _Rate, p: float) -> Callable[[float], None]:
    def setter(share: float) -> None:
        rate.p = p * share

    return setter


def _is_attention_dropout(name: str) -> bool:
    return any(name == s or name.endswith("." + s) for s in ATTENTION_DROPOUT_NAMES)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _output_dropout(rate: _Rate) -> Any:
    def hook(module: nn.Module, _args: Any, output: Any) -> Any:
        if isinstance(output, tuple):
            first = nn.functional.dropout(output[0], p=rate.p, training=module.training)
            return (first, *output[1:])
        if isinstance(output, torch.Tensor):
            return nn.functional.dropout(output, p=rate.p, training=module.training)
        raise TypeError(f"cannot apply hidden dropout to a {type(output).__name__} output")

    return hook


def _hook_targets(model: PreTrainedModel) -> list[tuple[str, nn.Module]]:
    """Embedding output and each layer's attention and MLP blocks (Llama-style)."""
    base = model.base_model
    targets: list[tuple[str, nn.Module]] = []
    embeddings = model.get_input_embeddings()
    if isinstance(embeddings, nn.Module):
        targets.append(("input embeddings", embeddings))
    for name, module in base.named_modules():
        attention, mlp = getattr(module, "self_attn", None), getattr(module, "mlp", None)
        if isinstance(attention, nn.Module) and isinstance(mlp, nn.Module):
            targets += [(f"{name}.self_attn", attention), (f"{name}.mlp", mlp)]
    return targets


@contextmanager
def dropout_applied(
    model: PreTrainedModel, *, attention: float | None, hidden: float | None
) -> Iterator[DropoutChanges]:
    """Set attention and hidden dropout (None: leave the model's own) for the block."""
    changes = DropoutChanges()
    if attention is None and hidden is None:
        yield changes
        return
    architecture = type(model).__name__
    saved_p: list[tuple[nn.Dropout, float]] = []
    saved_attr: list[tuple[nn.Module, float]] = []
    handles: list[Any] = []
    try:
        base_names = {id(m) for m in model.base_model.modules()}
        if attention is not None:
            for name, module in model.named_modules():
                if isinstance(module, nn.Dropout) and _is_attention_dropout(name):
                    saved_p.append((module, module.p))
                    module.p = attention
                    changes.attention_modules.append(name)
                    changes.setters.append(_module_setter(module, attention))
                elif _is_number(getattr(module, ATTENTION_ATTRIBUTE, None)):
                    saved_attr.append((module, getattr(module, ATTENTION_ATTRIBUTE)))
                    setattr(module, ATTENTION_ATTRIBUTE, attention)
                    changes.attention_attributes.append(f"{name}.attention_dropout")
                    changes.setters.append(_attribute_setter(module, attention))
            if not changes.attention_modules and not changes.attention_attributes:
                raise AuditUserError(
                    f"dropout: no attention dropout found in {architecture}; the dropout "
                    "method knows BERT-, ALBERT-, DistilBERT-, GPT-2- and Llama-style models"
                )
        if hidden is not None:
            for name, module in model.named_modules():
                if (
                    isinstance(module, nn.Dropout)
                    and id(module) in base_names
                    and not _is_attention_dropout(name)
                ):
                    saved_p.append((module, module.p))
                    module.p = hidden
                    changes.hidden_modules.append(name)
                    changes.setters.append(_module_setter(module, hidden))
            if not changes.hidden_modules:
                targets = _hook_targets(model)
                if len(targets) < 3:
                    raise AuditUserError(
                        f"dropout: no hidden dropout module and no attention/MLP blocks found "
                        f"in {architecture}; the dropout method knows BERT-, ALBERT-, "
                        "DistilBERT-, GPT-2- and Llama-style models"
                    )
                for name, module in targets:
                    rate = _Rate(hidden)
                    handles.append(module.register_forward_hook(_output_dropout(rate)))
                    changes.hidden_hooks.append(name)
                    changes.setters.append(_rate_setter(rate, hidden))
        own = [p for _, p in saved_p] + [float(v) for _, v in saved_attr]
        changes.from_zero = all(v == 0 for v in own)  # hooks: no dropout of its own
        yield changes
    finally:
        for handle in handles:
            handle.remove()
        for module, p in saved_p:
            module.p = p
        for module, value in saved_attr:
            setattr(module, ATTENTION_ATTRIBUTE, value)
