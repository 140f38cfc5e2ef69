"""Load a model spec into a LoadedModel: resolve, fingerprint, tokenizer, weights."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any

from audit.errors import ModelSourceError
from audit.models.device import (
    choose_autocast_dtype,
    choose_device,
    exact_float32,
    use_all_cores,
)
from audit.models.fingerprint import fingerprint
from audit.models.kind import ModelKind, detect_model_kind
from audit.models.loaded import LoadedModel
from audit.models.resolve import resolve_model
from audit.models.resolved import ResolvedModel
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

LOAD_ERRORS = (OSError, ValueError, KeyError, RuntimeError)


def model_kind(resolved: ResolvedModel, spec: ModelSpec) -> ModelKind:
    """Masked or causal for a resolved model (GGUF models are causal LMs)."""
    if resolved.is_gguf:
        if spec.type == "masked":
            raise ModelSourceError(
                f"model '{spec.id}': `type: masked` was set, but GGUF files hold causal LMs "
                "only; remove `type:` or use type: causal"
            )
        return "causal"
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(resolved.directory, **_remote_code(spec))
    except LOAD_ERRORS as error:
        raise _load_error(spec, resolved, "config", error) from error
    return detect_model_kind(config, override=spec.type, model_id=spec.id)


def _remote_code(spec: ModelSpec) -> dict[str, Any]:
    return {"trust_remote_code": True} if spec.trust_remote_code else {}


def _load_error(
    spec: ModelSpec, resolved: ResolvedModel, what: str, error: Exception
) -> ModelSourceError:
    where = resolved.directory / (resolved.gguf_file or "")
    hint = ""
    if "trust_remote_code" in str(error) and not spec.trust_remote_code:
        hint = "\nThis model needs its own code: set `trust_remote_code: true` if you trust it."
    return ModelSourceError(
        f"model '{spec.id}': cannot load the {what} from {where}: "
        f"{type(error).__name__}: {error}{hint}"
    )


def load_tokenizer(resolved: ResolvedModel, spec: ModelSpec) -> PreTrainedTokenizerBase:
    """The model's tokenizer; a missing pad token is set to the EOS token (padding only)."""
    from transformers import AutoTokenizer

    kwargs: dict[str, Any] = _remote_code(spec)
    if resolved.gguf_file:
        kwargs["gguf_file"] = resolved.gguf_file
    try:
        tokenizer = AutoTokenizer.from_pretrained(resolved.directory, **kwargs)
    except LOAD_ERRORS as error:
        raise _load_error(spec, resolved, "tokenizer", error) from error
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def auto_model_class(kind: ModelKind) -> Any:
    """AutoModelForMaskedLM or AutoModelForCausalLM."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    return AutoModelForMaskedLM if kind == "masked" else AutoModelForCausalLM


def load_weights(resolved: ResolvedModel, spec: ModelSpec, kind: ModelKind) -> PreTrainedModel:
    """The float32 model with SDPA attention, or eager where the class has no SDPA."""
    import torch

    auto_class = auto_model_class(kind)
    kwargs: dict[str, Any] = {"dtype": torch.float32, **_remote_code(spec)}
    if resolved.gguf_file:
        kwargs["gguf_file"] = resolved.gguf_file
    elif resolved.has_safetensors:
        kwargs["use_safetensors"] = True
    try:
        model = auto_class.from_pretrained(resolved.directory, attn_implementation="sdpa", **kwargs)
    except (ValueError, ImportError) as sdpa_error:
        if "sdpa" not in str(sdpa_error).lower() and "attn" not in str(sdpa_error).lower():
            raise _load_error(spec, resolved, "model", sdpa_error) from sdpa_error
        try:
            model = auto_class.from_pretrained(
                resolved.directory, attn_implementation="eager", **kwargs
            )
        except LOAD_ERRORS as error:
            raise _load_error(spec, resolved, "model", error) from error
    except LOAD_ERRORS as error:
        raise _load_error(spec, resolved, "model", error) from error
    return model


def load_model(
    spec: ModelSpec,
    *,
    cache_dir: Path,
    device: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> LoadedModel:
    """Resolve `spec.source`, fingerprint its files and load tokenizer and model.

    device 'auto' = cuda when available, else cpu (then torch uses every core). The
    model is float32 in eval mode; `autocast_dtype` follows `spec.dtype` (see
    `choose_autocast_dtype`). Raises ModelSourceError for anything the user can fix.
    """
    resolved = resolve_model(spec, cache_dir=cache_dir, progress=progress)
    if progress:
        progress(f"{spec.id}: fingerprinting {resolved.source}")
    model_fingerprint = fingerprint(resolved)
    torch_device = choose_device(device)
    if torch_device.type == "cpu":
        use_all_cores()
    exact_float32(torch_device)
    autocast_dtype = choose_autocast_dtype(spec.dtype, torch_device)
    started = perf_counter()
    kind = model_kind(resolved, spec)
    if progress:
        progress(f"{spec.id}: loading {kind} LM on {torch_device}")
    tokenizer = load_tokenizer(resolved, spec)
    model = load_weights(resolved, spec, kind)
    model.to(torch_device)  # type: ignore[arg-type]  # transformers wraps .to
    model.eval()
    return LoadedModel(
        model_id=spec.id,
        model_type=kind,
        model=model,
        tokenizer=tokenizer,
        device=torch_device,
        autocast_dtype=autocast_dtype,
        fingerprint=model_fingerprint,
        n_parameters=sum(p.numel() for p in model.parameters()),
        load_seconds=perf_counter() - started,
        source=resolved.source,
    )
