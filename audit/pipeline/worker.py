"""The run's side of the executors' work (`audit.executor.Worker`): scoring one model's
units and training variant jobs in this process, and describing models and datasets as
plain data for an executor that runs them elsewhere.

`RunModels` holds the models the run has prepared: those prepared while planning, and
each variant once it is trained (its folder, so its fingerprint, exists only then).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.executor import ModelRequest, ModelWork, unit_record
from audit.models.prepared import (
    ModelLoader,
    PreparedModel,
    float32_spec,
    remember_parameters,
)
from audit.models.sources import GGUFSource, PathSource
from audit.results import UnitRecord

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.models.loaded import LoadedModel
    from audit.pipeline.audit_plan import AuditPlan
    from audit.scoring.base import ServedScoring
    from audit.scoring.cache import ScoreCache
    from audit.variants.cache import StoredVariant
    from audit.variants.jobs import VariantJob


@dataclass
class RunModels:
    """The prepared models of a run, iterated in the plan's model order."""

    order: tuple[str, ...]
    prepared: dict[str, PreparedModel]

    @classmethod
    def of(cls, plan: AuditPlan) -> RunModels:
        return cls(plan.model_order, dict(plan.models))

    def __getitem__(self, model_id: str) -> PreparedModel:
        return self.prepared[model_id]

    def __contains__(self, model_id: object) -> bool:
        return model_id in self.prepared

    def add(self, model_id: str, model: PreparedModel) -> None:
        self.prepared[model_id] = model

    def items(self) -> Iterator[tuple[str, PreparedModel]]:
        """(id, model) of every prepared model, in run order."""
        return ((m, self.prepared[m]) for m in self.order if m in self.prepared)

    def ids(self) -> list[str]:
        return [model_id for model_id, _ in self.items()]


def scoring_model(
    model: PreparedModel, loader: ModelLoader, display: Display
) -> LoadedModel | ServedScoring:
    """What scores a prepared model's units: its weights loaded here, or, for a served
    model, a connection to its endpoint (probed again first)."""
    if model.spec.backend == "llama_cpp":
        from audit.serving.served_model import start_local_backend

        key = f"start {model.spec.id}"
        display.step(key, f"starting a llama.cpp server for {model.spec.id}")
        try:
            local = start_local_backend(model, loader.settings.cache_dir)
        except BaseException:
            display.end_step(key, f"starting a llama.cpp server for {model.spec.id} failed")
            raise
        display.end_step(key, f"{model.spec.id}: llama.cpp server at {local.facts.endpoint}")
        return local
    if model.served is None:
        return loader.load(model)
    from audit.serving.served_model import connect

    key = f"connect {model.spec.id}"
    display.step(key, f"connecting to {model.spec.id} ({model.resolved.source})")
    try:
        served = connect(model.spec, model.served)
    except BaseException:
        display.end_step(key, f"connecting to {model.spec.id} failed")
        raise
    display.end_step(
        key,
        f"{model.spec.id}: {model.served.server_model} at {model.served.endpoint}, "
        f"{served.client.settings.in_flight} requests in flight",
    )
    return served


@dataclass
class RunWorker:
    """Runs one model's units here, loading the model only if a unit has scores missing;
    trains variant jobs here; describes models for executors elsewhere."""

    plan: AuditPlan
    models: RunModels
    loader: ModelLoader
    cache: ScoreCache
    display: Display

    def __call__(self, work: ModelWork) -> list[UnitRecord]:
        from audit.scoring.runner import ModelHandle, score_unit

        model = self.models[work.model]
        handle = ModelHandle(
            model_id=work.model,
            fingerprint=model.fingerprint,
            precision=model.precision,
            load=lambda: scoring_model(model, self.loader, self.display),
            chat=model.chat,
            dataset_chats=model.dataset_chats,
        )
        try:
            return [
                unit_record(
                    score_unit(
                        unit,
                        model=handle,
                        dataset=self.plan.dataset(unit.dataset),
                        cache=self.cache,
                        display=self.display,
                    )
                )
                for unit in work.units
            ]
        finally:
            handle.release()

    def train(self, jobs: Sequence[VariantJob]) -> dict[str, StoredVariant]:
        from audit.variants.build import build_variants

        def load_base(base_id: str) -> LoadedModel:
            # trained in float32, unquantised, whatever dtype the spec scores the model in
            return self.loader.load(self.models[base_id], float32=True)

        return build_variants(
            jobs,
            load_base=load_base,
            occupations=self.plan.probe_occupations,
            display=self.display,
            stop_after=self.plan.settings.stop_training_after,
        )

    def model_request(self, model_id: str, *, training: bool = False) -> ModelRequest:
        """The model as a worker elsewhere loads it; `training`: in float32 and
        unquantised, as `ModelLoader.load(..., float32=True)` loads a base to train (so
        there is no precision to check)."""
        model = self.models[model_id]
        spec = float32_spec(model.spec) if training else model.spec
        local = isinstance(spec.source, PathSource | GGUFSource)
        resolved = model.resolved
        return ModelRequest(
            spec=spec,
            fingerprint=model.fingerprint,
            precision=None if training else model.precision,
            device=model.device,
            local_root=resolved.directory if local else None,
            local_files=tuple(p for r in sorted(resolved.files) for p in resolved.files[r])
            if local
            else (),
            served=model.spec.scored_by_server,
            chat=model.chat,
            dataset_chats=model.dataset_chats,
        )

    def dataset(self, name: str) -> LoadedDataset:
        return self.plan.dataset(name)

    def probe_occupations(self) -> list[str] | None:
        return self.plan.probe_occupations

    def model_loaded(self, model_id: str, n_parameters: int) -> None:
        cache_dir = self.plan.settings.cache_dir
        remember_parameters(cache_dir, self.models[model_id].fingerprint, n_parameters)
