"""LoRA adapters (peft, an optional dependency: `pip install peft`, or the `train` extra)
for the length of a training, merged into the weights when it ends.

peft injects its adapter layers into the model object itself, so the trainer keeps
calling the model it was given; only the adapters are trainable. On success the adapters
are merged (`merge_and_unload`); if the training stops early (an error, or the test
hook's interruption) they are removed unmerged (`unload`), so the model is its base
again. Either way every parameter's `requires_grad` is put back as it was.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

import torch

from audit.errors import AuditUserError
from audit.training.schedule import Stream, derive_seed

if TYPE_CHECKING:
    from transformers import PreTrainedModel


class LoraSettings(Protocol):
    """What the adapters are made of (`audit.variants.settings.LoraSpec`)."""

    @property
    def r(self) -> int: ...

    @property
    def alpha(self) -> int: ...

    @property
    def dropout(self) -> float: ...

    @property
    def target_modules(self) -> list[str] | None: ...


INSTALL_HINT = "pip install peft  (or: pip install 'bias-audit[train]')"


def peft_available() -> bool:
    try:
        import peft  # noqa: F401
    except ImportError:
        return False
    return True


def require_peft() -> None:
    """A user error naming the install command when peft is missing."""
    if not peft_available():
        raise AuditUserError(
            f"training.lora: LoRA training needs the optional package peft, which is not "
            f"installed; install it with `{INSTALL_HINT}`, or remove `lora` from the "
            "training settings to train every weight"
        )


@contextmanager
def lora_adapters(model: PreTrainedModel, spec: LoraSettings | None, seed: int) -> Iterator[None]:
    """Wrap `model` with LoRA adapters for the block (nothing when `spec` is None). The
    adapters' initial weights come from the training seed."""
    if spec is None:
        yield
        return
    require_peft()
    from peft import LoraConfig, get_peft_model

    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    config = LoraConfig(
        r=spec.r,
        lora_alpha=spec.alpha,
        lora_dropout=spec.dropout,
        target_modules=spec.target_modules,
    )
    torch.manual_seed(derive_seed(seed, Stream.LORA_INIT, 0))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            wrapped: Any = get_peft_model(model, config)
    except ValueError as error:
        raise AuditUserError(
            f"training.lora.target_modules: peft cannot place adapters in "
            f"{type(model).__name__} ({error}); name the modules to adapt, e.g. "
            "target_modules: [query, value] for BERT or [q_proj, v_proj] for Llama"
        ) from None
    merged = False
    try:
        yield
        with torch.no_grad():
            wrapped.merge_and_unload()
        merged = True
    finally:
        if not merged:
            wrapped.unload()
        for name, param in model.named_parameters():
            param.requires_grad_(flags.get(name, True))
