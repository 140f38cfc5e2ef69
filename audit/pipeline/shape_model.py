"""A model's architecture with random weights, for `audit plan`'s estimates without
loading the model (`audit plan` without `--calibrate`).

Speed does not depend on what the weights learned: the same config (layers, widths,
vocabulary), tokenizer, dtype and device run the same kernels on the same shapes. So the
plan builds the architecture from the model's config (config.json, or a GGUF file's
metadata) with seeded random weights and times the run's own code on it: no weights file
is read, a GGUF file is not dequantised. The tokenizer is the model's own (its token
counts are the run's). A trained variant's projection or Self-Debias prefixes are not
attached: a variant is timed as its base.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel
    from audit.models.prepared import PreparedModel
    from audit.pipeline.settings import RunSettings

#: Seed of the random weights (their values change no timing; seeded for repeatability).
SEED = 0


def shape_model(model: PreparedModel, settings: RunSettings, *, float32: bool) -> LoadedModel:
    """`model`'s architecture and tokenizer on the run's device, in the run's dtype (or
    float32, as training loads it), with random weights; in eval mode."""
    import torch
    from transformers import AutoConfig

    from audit.models.device import (
        choose_device,
        choose_weight_dtype,
        exact_float32,
        use_all_cores,
    )
    from audit.models.load import auto_model_class, load_tokenizer
    from audit.models.loaded import LoadedModel

    resolved, spec = model.resolved, model.spec
    kwargs: dict[str, Any] = {"trust_remote_code": True} if spec.trust_remote_code else {}
    if resolved.gguf_file:
        kwargs["gguf_file"] = resolved.gguf_file
    config = AutoConfig.from_pretrained(resolved.directory, **kwargs)
    tokenizer = load_tokenizer(resolved, spec)
    device = choose_device(settings.device)
    if device.type == "cpu":
        use_all_cores()
    exact_float32(device)
    dtype = torch.float32 if float32 else choose_weight_dtype(spec.dtype, device)
    kind: Literal["masked", "causal"] = "masked" if model.model_type == "masked" else "causal"
    torch.manual_seed(SEED)
    auto_class = auto_model_class(kind)
    remote = {"trust_remote_code": True} if spec.trust_remote_code else {}
    try:
        net = auto_class.from_config(config, attn_implementation="sdpa", dtype=dtype, **remote)
    except (ValueError, ImportError):
        net = auto_class.from_config(config, attn_implementation="eager", dtype=dtype, **remote)
    net.to(device)
    net.eval()
    return LoadedModel(
        model_id=spec.id,
        model_type=kind,
        model=net,
        tokenizer=tokenizer,
        device=device,
        autocast_dtype=None,
        fingerprint=model.fingerprint,
        n_parameters=sum(p.numel() for p in net.parameters()),
        source=resolved.source,
    )
