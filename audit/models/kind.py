"""Masked or causal: read from a transformers config, or set by the spec's `type:`."""

from __future__ import annotations

from typing import Any, Literal

from audit.errors import ModelSourceError

ModelKind = Literal["masked", "causal"]

MASKED_SUFFIXES = ("ForMaskedLM",)
CAUSAL_SUFFIXES = ("ForCausalLM", "LMHeadModel")


def _from_architectures(architectures: list[str]) -> set[ModelKind]:
    kinds: set[ModelKind] = set()
    for name in architectures:
        if name.endswith(MASKED_SUFFIXES):
            kinds.add("masked")
        elif name.endswith(CAUSAL_SUFFIXES):
            kinds.add("causal")
    return kinds


def _from_model_type(model_type: str) -> set[ModelKind]:
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    kinds: set[ModelKind] = set()
    if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        kinds.add("masked")
    if model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        kinds.add("causal")
    return kinds


def detect_model_kind(config: Any, *, override: str, model_id: str) -> ModelKind:
    """'masked' or 'causal' for a transformers config.

    Order: the spec's `type:` (unless 'auto'); the config's `architectures`
    (…ForMaskedLM / …ForCausalLM / …LMHeadModel); `is_decoder: true` means causal;
    otherwise the model type's registered heads, where a bidirectional encoder that has
    both heads (bert, roberta, ...) counts as masked. Anything else is an error asking
    for `type:`.
    """
    if override in ("masked", "causal"):
        return "masked" if override == "masked" else "causal"
    model_type = str(getattr(config, "model_type", "") or "")
    if getattr(config, "is_encoder_decoder", False):
        raise ModelSourceError(
            f"model '{model_id}': '{model_type}' is an encoder-decoder model, which is neither "
            "a masked nor a causal LM; set `type: masked` or `type: causal` in the spec only "
            "if you know its head fits"
        )
    kinds = _from_architectures(list(getattr(config, "architectures", None) or []))
    if len(kinds) == 1:
        return kinds.pop()
    if not kinds:
        if getattr(config, "is_decoder", False):
            return "causal"
        kinds = _from_model_type(model_type)
        if kinds == {"masked", "causal"}:
            kinds = {"masked"}  # bidirectional encoder (is_decoder false) with both heads
        if len(kinds) == 1:
            return kinds.pop()
    archs = list(getattr(config, "architectures", None) or [])
    raise ModelSourceError(
        f"model '{model_id}': cannot tell whether it is a masked or a causal LM "
        f"(model_type={model_type!r}, architectures={archs}); set `type: masked` or "
        "`type: causal` in the spec's model entry"
    )
