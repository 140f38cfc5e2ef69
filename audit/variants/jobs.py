"""The variants of a spec as training jobs, planned before anything trains: each job's
corpus read, its training data built by its method, its cache key computed. Every user
error (a missing corpus, too few gendered sentences, a bad word-list file) surfaces here,
before the first training starts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.variants.cache import VariantStore, variant_key
from audit.variants.methods.base import MethodContext, Rehearsal, VariantMethod, VariantPart
from audit.variants.settings import TrainingSpec, VariantSpec

if TYPE_CHECKING:
    from pydantic import BaseModel

    from audit.models.self_debias import SelfDebiasSettings
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData
    from audit.variants.posthoc import ProjectionFit, ProjectionSetup


@dataclass(frozen=True)
class BaseModelFacts:
    """What planning needs of a base model (no weights loaded)."""

    fingerprint: str
    model_type: str
    n_parameters: int | None = None


@dataclass(frozen=True)
class VariantJob:
    """One model to train: a variant entry of the spec, or one ratio of it."""

    entry: str
    entry_index: int
    model_id: str
    base: str
    method: PluginId
    options: BaseModel
    part: VariantPart
    corpus: Corpus
    training: TrainingSpec
    data: TrainingData
    objective: Objective
    key: str
    store: VariantStore
    fit: Callable[[ProjectionSetup], ProjectionFit] | None = None  # post-hoc methods
    work: Callable[[Any, TrainingData], str] | None = None  # what `fit` does, in words
    rehearsal: Callable[[Any, TrainingData], Rehearsal] | None = None  # for timing
    scoring_settings: Callable[[Any], SelfDebiasSettings] | None = None  # Self-Debias

    @property
    def cached(self) -> bool:
        return self.store.is_done()

    @property
    def resumable(self) -> bool:
        return self.store.has_checkpoint()

    def total_steps(self) -> int:
        """Training steps; 0 for a post-hoc method (computed once, not trained) and for a
        scoring-time one (nothing computed before scoring)."""
        if self.fit is not None or self.scoring_settings is not None:
            return 0
        return self.training.total_steps(self.data.n_examples())

    def work_text(self) -> str:
        """What making this variant does, in words: the method's own description of a
        post-hoc computation, else the training's steps and examples."""
        if self.fit is not None:
            if self.work is not None:
                return self.work(self.options, self.data)
            return f"projection from {self.data.n_examples():,} examples, no training"
        return (
            f"{self.total_steps():,} steps x {self.training.batch_size} of "
            f"{self.data.n_examples():,} examples"
        )

    def describe(self) -> dict[str, Any]:
        """What variant.json and results say about how it was made."""
        return {
            "key": self.key,
            "id": self.model_id,
            "entry": self.entry,
            "base": self.base,
            "method": self.method.name,
            "options": self.options.model_dump(mode="json"),
            "ratio": self.part.ratio,
            "corpus": self.corpus.name,
            "corpus_sha256": self.corpus.sha256,
            # a scoring-time method (Self-Debias) uses no training setting
            "training": {} if self.scoring_settings else self.training.model_dump(mode="json"),
            "training_examples": self.data.n_examples(),
            "code": None if self.store.code is None else asdict(self.store.code),
        }


@dataclass
class VariantPlan:
    jobs: list[VariantJob] = field(default_factory=list)
    corpora: dict[str, Corpus] = field(default_factory=dict)  # sha256 -> corpus
    corpus_users: dict[str, list[str]] = field(default_factory=dict)  # sha256 -> entries

    def of_base(self, base: str) -> list[VariantJob]:
        return [job for job in self.jobs if job.base == base]


def data_sha256(data: TrainingData) -> str:
    """A hash of everything a method hands the trainer."""
    text = json.dumps(data.key_fields(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plan_variants(
    variants: list[VariantSpec],
    *,
    bases: Mapping[str, BaseModelFacts],
    seed: int,
    data_dir: Path | None,
    base_dir: Path,
    cache_dir: Path,
) -> VariantPlan:
    """Every variant job of a spec, in spec order (ratio models in ratio order)."""
    from audit.variants.catalog import VARIANT_METHODS
    from audit.variants.corpus import load_corpus, no_corpus

    plan = VariantPlan()
    loaded: dict[str, Corpus] = {}
    for index, variant in enumerate(variants):
        loc = f"variants[{index}]"
        if variant.base not in bases:
            raise AuditUserError(
                f"{loc}.base: model '{variant.base}' is not in `models` of this spec "
                f"(models: {', '.join(bases)})"
            )
        base = bases[variant.base]
        entry = VARIANT_METHODS.entry(variant.method)
        if base.model_type not in entry.model_types:
            raise AuditUserError(
                f"{loc}.method: {variant.method} cannot train the {base.model_type} LM "
                f"'{variant.base}' (it trains {', '.join(sorted(entry.model_types))} LMs)"
            )
        options = entry.options.model_validate(variant.options)
        method: VariantMethod = VARIANT_METHODS.load(variant.method)
        if variant.corpus is None:
            if entry.needs_corpus:
                raise AuditUserError(
                    f"{loc}.corpus: method {variant.method} trains on a corpus and none is "
                    "given; add one, e.g. `corpus: sts_b` or `corpus: {path: my.txt}`"
                )
            corpus = no_corpus()
        else:
            if not entry.needs_corpus:
                raise AuditUserError(
                    f"{loc}.corpus: method {variant.method} reads no corpus (it changes the "
                    "output distribution at scoring time); remove `corpus`"
                )
            corpus_key = variant.corpus.model_dump_json()
            if corpus_key not in loaded:
                loaded[corpus_key] = load_corpus(
                    variant.corpus,
                    data_dir=data_dir,
                    base_dir=base_dir,
                    field=f"{loc}.corpus",
                    cache_dir=cache_dir,
                )
            corpus = loaded[corpus_key]
            plan.corpora.setdefault(corpus.sha256, corpus)
            plan.corpus_users.setdefault(corpus.sha256, []).append(variant.id)
        training = variant.training.with_seed(seed)
        assert training.seed is not None
        context = MethodContext(data_dir=data_dir, base_dir=base_dir, seed=training.seed, loc=loc)
        objective = method.objective(options)
        for part in method.parts(options):
            data = method.training_data(corpus, options, part, context)
            key_of = partial(
                variant_key,
                base_fingerprint=base.fingerprint,
                method=variant.method,
                options=options.model_dump(mode="json"),
                ratio=part.ratio,
                # a scoring-time method trains nothing: its key is its settings' alone
                training={} if method.scoring_settings else training.model_dump(mode="json"),
                corpus_sha256=corpus.sha256,
                data_sha256=data_sha256(data),
            )
            store = VariantStore.for_code(
                cache_dir, VARIANT_METHODS.code_identity(variant.method), key_of
            )
            plan.jobs.append(
                VariantJob(
                    entry=variant.id,
                    entry_index=index,
                    model_id=variant.id + part.suffix,
                    base=variant.base,
                    method=PluginId.of(variant.method, variant.options),
                    options=options,
                    part=part,
                    corpus=corpus,
                    training=training,
                    data=data,
                    objective=objective,
                    key=store.key,
                    store=store,
                    fit=method.fit,
                    work=method.work,
                    rehearsal=method.rehearsal,
                    scoring_settings=method.scoring_settings,
                )
            )
    return plan


SPEED_FILE = "speed.json"


def speed_key(job: VariantJob, base_fingerprint: str, device: str) -> str:
    """What a step's time depends on: the model, the objective, the batch shape, the device."""
    t = job.training
    lora = "lora" if t.lora is not None else "full"
    return f"{base_fingerprint}|{job.objective.kind}|{t.batch_size}|{t.max_length}|{lora}|{device}"


def remember_speed(cache_dir: Path, key: str, seconds_per_step: float) -> None:
    """Record a finished training's seconds per step (the next estimates use it)."""
    path = cache_dir / "variants" / SPEED_FILE
    known = json.loads(path.read_text()) if path.exists() else {}
    known[key] = seconds_per_step
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=1, sort_keys=True))


def measured_speed(cache_dir: Path, key: str) -> float | None:
    path = cache_dir / "variants" / SPEED_FILE
    if not path.exists():
        return None
    value = json.loads(path.read_text()).get(key)
    return float(value) if isinstance(value, int | float) else None
