"""A model prepared for a run (resolved to files, fingerprinted and typed, no weights
loaded) and the loader that loads its weights when a stage needs them.

The loader is a plain object a stage is given (the scoring worker, the training and
fine-tuning stages, the precision check): none of them calls back into the run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from audit.models.chat_template import ChatFormat, DatasetChats
from audit.models.resolved import ResolvedModel
from audit.models.served import ServedFacts
from audit.models.sources import ModelSpec

if TYPE_CHECKING:
    from audit.display import Display
    from audit.models.loaded import LoadedModel


class ModelSettings(Protocol):
    """Where models are cached and which device they run on (a run's settings)."""

    @property
    def cache_dir(self) -> Path: ...

    @property
    def device(self) -> str: ...


@dataclass(frozen=True)
class PreparedModel:
    """A model resolved to files, fingerprinted and typed, with no weights loaded; or a
    served model, probed (`served`; it has no files, and `resolved.source` names the
    endpoint)."""

    spec: ModelSpec
    resolved: ResolvedModel
    model_type: str
    fingerprint: str
    device: str  # torch device string ("endpoint" for a served model)
    precision: str  # audit.models.precision: "cuda/bfloat16", ...; in the score cache key
    served: ServedFacts | None = None
    chat: ChatFormat | None = None  # the chat template its multiple-choice prompts get
    #: the datasets that give their own chat template (it wins over `chat` there)
    dataset_chats: DatasetChats = field(default_factory=DatasetChats)

    def chat_for(self, dataset: str) -> ChatFormat | None:
        """The chat template of its prompts of `dataset` (the dataset's own, else `chat`)."""
        return self.dataset_chats.pick(dataset, self.chat)

    def with_chats_of(self, base: PreparedModel) -> PreparedModel:
        """This model with `base`'s chat templates: a variant's prompts are wrapped as its
        base's are (model-level and per dataset), so the two are scored on the same text."""
        return replace(self, chat=base.chat, dataset_chats=base.dataset_chats)


def prepare_model(spec: ModelSpec, settings: ModelSettings) -> PreparedModel:
    """Resolve a model's files (downloading them if needed), fingerprint and type it."""
    from audit.models.device import choose_device
    from audit.models.fingerprint import fingerprint
    from audit.models.load import model_kind
    from audit.models.precision import model_precision
    from audit.models.resolve import resolve_model

    resolved = resolve_model(spec, cache_dir=settings.cache_dir)
    device = choose_device(settings.device)
    return PreparedModel(
        spec=spec,
        resolved=resolved,
        model_type=model_kind(resolved, spec),
        fingerprint=fingerprint(resolved),
        device=str(device),
        precision=model_precision(spec, device),
    )


def facts_path(cache_dir: Path, fingerprint: str) -> Path:
    """What loading a model found out (its parameter count), kept by fingerprint."""
    return cache_dir / "models" / f"{fingerprint}.json"


def known_parameters(cache_dir: Path, fingerprint: str) -> int | None:
    """The parameter count from the model's last load, None when it was never loaded."""
    value = read_facts(cache_dir, fingerprint).get("n_parameters")
    return value if isinstance(value, int) else None


def read_facts(cache_dir: Path, fingerprint: str) -> dict[str, object]:
    path = facts_path(cache_dir, fingerprint)
    return dict(json.loads(path.read_text())) if path.exists() else {}


def remember_parameters(cache_dir: Path, fingerprint: str, n_parameters: int) -> None:
    path = facts_path(cache_dir, fingerprint)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"n_parameters": n_parameters}))


def float32_spec(spec: ModelSpec) -> ModelSpec:
    """The spec as a model is loaded to be trained: float32 and unquantised."""
    return spec.model_copy(update={"dtype": "float32", "quantization": None})


@dataclass(frozen=True)
class ModelLoader:
    """Loads prepared models' weights (with a spinner), checking their fingerprint."""

    settings: ModelSettings
    display: Display

    def prepare(self, spec: ModelSpec) -> PreparedModel:
        return prepare_model(spec, self.settings)

    def load(self, model: PreparedModel, *, float32: bool = False) -> LoadedModel:
        """`float32`: in float32 and unquantised whatever the spec's dtype (to train)."""
        return load_prepared_model(model, self.settings, self.display, float32=float32)


def load_prepared_model(
    model: PreparedModel, settings: ModelSettings, display: Display, *, float32: bool = False
) -> LoadedModel:
    """Load a prepared model's weights (with a spinner), checking its fingerprint.
    `float32`: in float32 and unquantised whatever the spec's dtype (for training)."""
    from transformers.utils import logging as hf_logging

    from audit.models.load import load_model

    hf_logging.disable_progress_bar()
    key = f"load {model.spec.id}"
    started = time.monotonic()
    display.step(key, f"loading {model.spec.id} ({model.resolved.source})")
    spec = float32_spec(model.spec) if float32 else model.spec
    try:
        with _quiet_gguf_conversion(model.resolved.is_gguf):
            loaded = load_model(
                spec,
                cache_dir=settings.cache_dir,
                device=settings.device,
                progress=lambda message: display.step(key, message),
            )
    except BaseException:
        display.end_step(key, f"loading {model.spec.id} failed")
        raise
    if loaded.fingerprint != model.fingerprint:
        raise RuntimeError(
            f"model '{model.spec.id}' changed on disk during the run "
            f"({model.fingerprint[:12]} -> {loaded.fingerprint[:12]}); run again"
        )
    remember_parameters(settings.cache_dir, model.fingerprint, loaded.n_parameters)
    display.end_step(key, f"loaded {model.spec.id} in {time.monotonic() - started:.1f} s")
    return loaded


@contextmanager
def _quiet_gguf_conversion(is_gguf: bool) -> Iterator[None]:
    """Silence transformers' own tqdm bar while it de-quantizes a GGUF file (the load
    step's spinner already says what is going on; a second bar would scroll the terminal)."""
    import functools

    if not is_gguf:
        yield
        return
    try:
        import transformers.modeling_gguf_pytorch_utils as module
    except ImportError:
        yield
        return
    bar = getattr(module, "tqdm", None)
    if bar is None:
        yield
        return
    module.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        module.tqdm = bar
