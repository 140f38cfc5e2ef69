"""Load a model spec into a LoadedModel: resolve, fingerprint, tokenizer, weights."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any

from audit.errors import ModelSourceError
from audit.models.device import (
    choose_device,
    choose_weight_dtype,
    dtype_name,
    exact_float32,
    use_all_cores,
)
from audit.models.fingerprint import fingerprint
from audit.models.gguf_cache import entry_folder, read_entry, write_entry
from audit.models.kind import ModelKind, detect_model_kind
from audit.models.loaded import LoadedModel
from audit.models.placement import input_device, is_spread, placement_kwargs
from audit.models.quantization import check_quantization, quantization_config
from audit.models.resolve import resolve_model
from audit.models.resolved import ResolvedModel, resolved_directory
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    import torch
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


def load_weights(
    resolved: ResolvedModel,
    spec: ModelSpec,
    kind: ModelKind,
    *,
    device: torch.device | None = None,
    dtype: torch.dtype | None = None,
) -> PreTrainedModel:
    """The model in `dtype` (default: the spec's dtype) on `device` (default: the CPU),
    with SDPA attention, or eager where the class has no SDPA.

    The weights are read straight onto the device (`audit.models.placement`), or spread
    over the GPUs for `device_map: auto`, and quantised on loading when the spec asks
    for it (`audit.models.quantization`)."""
    import torch

    device = torch.device("cpu") if device is None else device
    dtype = choose_weight_dtype(spec.dtype, device) if dtype is None else dtype
    auto_class = auto_model_class(kind)
    kwargs: dict[str, Any] = {
        "dtype": dtype,
        **placement_kwargs(spec, device),
        **_remote_code(spec),
    }
    quantization = quantization_config(spec, dtype)
    if quantization is not None:
        kwargs["quantization_config"] = quantization
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
    if quantization is None and not is_spread(model):
        model.to(device)  # a no-op when accelerate placed it already
    return model


def dequantised_gguf(
    resolved: ResolvedModel,
    spec: ModelSpec,
    *,
    fingerprint: str,
    dtype: torch.dtype,
    cache_dir: Path,
    progress: Callable[[str], None] | None = None,
) -> ResolvedModel:
    """The GGUF model as a safetensors folder in the cache (`audit.models.gguf_cache`):
    dequantised on the CPU and stored the first time, read from the cache after that."""
    import gc

    import torch

    name = dtype_name(dtype)
    folder = read_entry(cache_dir, fingerprint, name)
    if folder is None:
        if progress:
            progress(f"{spec.id}: dequantising {resolved.gguf_file} to {name} (once; cached)")
        tokenizer = load_tokenizer(resolved, spec)
        model = load_weights(resolved, spec, "causal", device=torch.device("cpu"), dtype=dtype)
        try:
            folder = write_entry(cache_dir, fingerprint, name, model, tokenizer)
        except OSError as error:
            where = entry_folder(cache_dir, fingerprint, name)
            raise ModelSourceError(
                f"model '{spec.id}': cannot keep the dequantised weights of "
                f"{resolved.gguf_file} in {where}: {error}"
            ) from error
        finally:
            del model
            gc.collect()
    return resolved_directory(spec.id, resolved.source, folder, resolved.cache_dir)


def parameter_count(model: PreTrainedModel) -> int:
    """Parameters of the model as trained (transformers counts 4-bit packed weights in
    full), each shared tensor once."""
    count = getattr(model, "num_parameters", None)
    if callable(count):
        return int(count())
    return sum(p.numel() for p in model.parameters())


def load_model(
    spec: ModelSpec,
    *,
    cache_dir: Path,
    device: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> LoadedModel:
    """Resolve `spec.source`, fingerprint its files and load tokenizer and model.

    device 'auto' = cuda when available, else cpu (then torch uses every core). The
    weights are in the spec's dtype (`choose_weight_dtype`: float32 unless the spec asks
    for bfloat16 / float16), in eval mode, placed by `audit.models.placement`; a GGUF
    file is read through its dequantised copy in the cache. `device` of the result is
    where inputs go (the first device of a model spread over several). Raises
    ModelSourceError for anything the user can fix.
    """
    resolved = resolve_model(spec, cache_dir=cache_dir, progress=progress)
    if progress:
        progress(f"{spec.id}: fingerprinting {resolved.source}")
    model_fingerprint = fingerprint(resolved)
    torch_device = choose_device(device)
    if torch_device.type == "cpu":
        use_all_cores()
    exact_float32(torch_device)
    dtype = choose_weight_dtype(spec.dtype, torch_device)
    check_quantization(spec, torch_device)
    started = perf_counter()
    kind = model_kind(resolved, spec)
    files = resolved
    if resolved.is_gguf:
        files = dequantised_gguf(
            resolved,
            spec,
            fingerprint=model_fingerprint,
            dtype=dtype,
            cache_dir=cache_dir,
            progress=progress,
        )
    if progress:
        progress(f"{spec.id}: loading {kind} LM ({dtype_name(dtype)}) on {torch_device}")
    tokenizer = load_tokenizer(files, spec)
    model = load_weights(files, spec, kind, device=torch_device, dtype=dtype)
    model.eval()
    for path in resolved.files.get("projection", ()):
        from audit.models.projection import attach_projection, read_projection

        attach_projection(model, read_projection(path, spec.id))
    debias = None
    for path in resolved.files.get("self_debias", ()):
        from audit.models.self_debias import prepare_self_debias, read_self_debias

        debias = prepare_self_debias(read_self_debias(path, spec.id), tokenizer, model, spec.id)
    return LoadedModel(
        model_id=spec.id,
        model_type=kind,
        model=model,
        tokenizer=tokenizer,
        device=input_device(model, torch_device),
        autocast_dtype=None,
        fingerprint=model_fingerprint,
        n_parameters=parameter_count(model),
        load_seconds=perf_counter() - started,
        source=resolved.source,
        self_debias=debias,
    )
