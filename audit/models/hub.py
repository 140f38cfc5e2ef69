"""Hugging Face hub ids: a snapshot in the user's HF cache (downloaded when online)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from audit.errors import ModelSourceError
from audit.models.resolved import ResolvedModel, resolved_directory
from audit.models.sources import HubSource

# Everything but weights: configs, tokenizers, remote code.
SUPPORT_PATTERNS = ["*.json", "*.txt", "*.model", "*.tiktoken", "*.py", "*.jinja"]
SAFETENSORS_PATTERNS = ["*.safetensors"]
BIN_PATTERNS = ["pytorch_model*.bin"]


def _snapshot_download(repo_id: str, revision: str, allow_patterns: list[str]) -> str:
    from huggingface_hub import snapshot_download

    return str(snapshot_download(repo_id, revision=revision, allow_patterns=allow_patterns))


def _hub_error(model_id: str, source: HubSource, error: Exception) -> ModelSourceError:
    return ModelSourceError(
        f"model '{model_id}': cannot get hub model '{source.hf}' at revision "
        f"'{source.revision}': {type(error).__name__}: {error}\n"
        "Without network access, either point the spec at a local copy "
        "(`source: {path: /dir/with/config.json}`) or set HF_HUB_OFFLINE=1 with the model "
        "already in the local Hugging Face cache (HF_HOME)."
    )


def resolve_hub(
    model_id: str,
    source: HubSource,
    *,
    cache_dir: Path,
    progress: Callable[[str], None] | None = None,
) -> ResolvedModel:
    """Download (or find in the HF cache) config, tokenizer and weights of a hub model.

    safetensors are fetched when the repository has them; otherwise the .bin weights.
    """
    if progress:
        progress(f"{model_id}: fetching {source.hf}@{source.revision} from the Hugging Face hub")
    try:
        snapshot = Path(
            _snapshot_download(source.hf, source.revision, SUPPORT_PATTERNS + SAFETENSORS_PATTERNS)
        )
        if not any(snapshot.glob("*.safetensors")):
            snapshot = Path(_snapshot_download(source.hf, source.revision, BIN_PATTERNS))
    except (OSError, ValueError) as error:  # hub errors derive from OSError / ValueError
        raise _hub_error(model_id, source, error) from error
    except Exception as error:  # httpx / connection errors have no common hub base class
        if type(error).__module__.split(".")[0] in {"httpx", "httpcore", "requests", "urllib3"}:
            raise _hub_error(model_id, source, error) from error
        raise
    return resolved_directory(
        model_id,
        f"hf:{source.hf}@{source.revision}",
        snapshot,
        cache_dir,
        revision=snapshot.name,
    )
