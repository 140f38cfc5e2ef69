"""A GGUF model's dequantised weights, kept in the cache as a safetensors model folder.

Reading a GGUF file means building its config and tokenizer from the file's metadata and
dequantising every tensor: tens of seconds on a CPU even for a 135M-parameter model. The
result is stored once, in `<cache>/dequantised/<key>/` (config.json, *.safetensors,
tokenizer files and manifest.json), and every later load reads that folder like any
local model. The key covers what the stored numbers depend on: the GGUF file's
fingerprint, the weights' dtype, and the transformers and gguf versions that did the
dequantising. An entry becomes visible only when complete (written beside its place,
then renamed); one that fails its size check is deleted and written again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

#: Bump when what an entry holds changes.
LAYOUT = "1"
MANIFEST = "manifest.json"


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "none"


def entry_identity(fingerprint: str, dtype: str) -> dict[str, str]:
    """What an entry's numbers depend on (its key is the sha256 of this, as JSON)."""
    return {
        "layout": LAYOUT,
        "gguf_fingerprint": fingerprint,
        "dtype": dtype,
        "transformers": _version("transformers"),
        "gguf": _version("gguf"),
    }


def entry_folder(cache_dir: Path, fingerprint: str, dtype: str) -> Path:
    """Where the entry of (GGUF fingerprint, dtype) lives, whether or not it exists."""
    identity = entry_identity(fingerprint, dtype)
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    return cache_dir / "dequantised" / key


def read_entry(cache_dir: Path, fingerprint: str, dtype: str) -> Path | None:
    """The complete entry's folder, or None. A damaged entry (a file missing or of the
    wrong size, an unreadable manifest) is deleted so that it is written again."""
    folder = entry_folder(cache_dir, fingerprint, dtype)
    if not folder.is_dir():
        return None
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        files: dict[str, int] = manifest["files"]
        intact = manifest["identity"] == entry_identity(fingerprint, dtype) and all(
            (folder / name).stat().st_size == size for name, size in files.items()
        )
    except (OSError, ValueError, KeyError, TypeError):
        intact = False
    if intact:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    return None


def write_entry(
    cache_dir: Path,
    fingerprint: str,
    dtype: str,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
) -> Path:
    """Store a model loaded from a GGUF file (and its tokenizer) as the entry of
    (fingerprint, dtype); returns its folder. Raises OSError when it cannot be written."""
    folder = entry_folder(cache_dir, fingerprint, dtype)
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = folder.with_name(f".{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        save_plain(model, partial)
        tokenizer.save_pretrained(partial)
        files = {p.name: p.stat().st_size for p in sorted(partial.iterdir()) if p.is_file()}
        manifest = {"identity": entry_identity(fingerprint, dtype), "files": files}
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        try:
            partial.rename(folder)
        except OSError:
            if read_entry(cache_dir, fingerprint, dtype) is None:
                raise  # not another process's complete entry in the way: a real failure
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def save_plain(model: PreTrainedModel, folder: Path) -> None:
    """`save_pretrained` for a model read from a GGUF file, as the plain model it is.

    transformers keeps a GGUF "quantizer" on such a model although its weights were
    dequantised on loading; it is left out of the saved config, so the folder loads as
    an ordinary safetensors model."""
    quantizer = getattr(model, "hf_quantizer", None)
    method = str(getattr(getattr(quantizer, "quantization_config", None), "quant_method", ""))
    if quantizer is None or "gguf" not in method.lower():
        model.save_pretrained(folder)
        return
    config: Any = model.config
    had_config = hasattr(config, "quantization_config")
    quantization_config = getattr(config, "quantization_config", None)
    setattr(model, "hf_quantizer", None)  # noqa: B010  (typed as a module attribute)
    if had_config:
        del config.quantization_config
    try:
        model.save_pretrained(folder)
    finally:
        setattr(model, "hf_quantizer", quantizer)  # noqa: B010
        if had_config:
            config.quantization_config = quantization_config
