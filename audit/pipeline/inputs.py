"""A run's inputs before anything is planned: every dataset of the spec read and every
model of the spec prepared (resolved to files, fingerprinted and typed, no weights)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.models.prepared import PreparedModel, prepare_model
from audit.models.sources import GGUFSource, ModelSpec, PathSource

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.pipeline.settings import RunSettings
    from audit.spec.loader import LoadedSpec


def read_datasets(
    loaded: LoadedSpec, settings: RunSettings, display: Display
) -> dict[str, LoadedDataset]:
    """Every dataset of the spec, read, filtered and accounted for (downloads included)."""
    from audit.data.loader import load_dataset
    from audit.spec.dataset_request import dataset_request

    display.stage("datasets")
    datasets: dict[str, LoadedDataset] = {}
    for dspec in loaded.spec.datasets:
        ds = load_dataset(
            dataset_request(dspec, loaded.path.parent, seed=loaded.spec.seed),
            data_dir=settings.data_dir,
            cache_dir=settings.cache_dir,
        )
        datasets[dspec.name] = ds
        skipped = sum(ds.skipped.values())
        display.info(
            f"{ds.name}: {ds.rows_kept} items from {ds.source}"
            + (f" ({skipped} rows skipped: {ds.skipped})" if skipped else "")
        )
    return datasets


def prepare_models(
    loaded: LoadedSpec, settings: RunSettings, display: Display
) -> dict[str, PreparedModel]:
    """Every model of the spec, in spec order, its local paths relative to the spec."""
    display.stage("models")
    models: dict[str, PreparedModel] = {}
    for mspec in loaded.spec.models:
        if mspec.is_served:
            from audit.serving.served_model import prepare_served

            model = prepare_served(mspec, settings.cache_dir)
        else:
            model = prepare_model(spec_relative(loaded, mspec), settings)
        models[mspec.id] = model
        display.info(
            f"{mspec.id}: {model.model_type} LM, {model.resolved.source}, "
            f"fingerprint {model.fingerprint[:12]}"
            + (
                ""
                if model.served is None
                else f" (server model {model.served.server_model}, probe "
                f"{model.served.probe_digest[:12]}, {model.served.probe_verdict})"
            )
        )
        note = None if model.served is None else model.served.change_note(mspec.id)
        if note is not None:
            display.warn(note)
    return models


def spec_relative(loaded: LoadedSpec, spec: ModelSpec) -> ModelSpec:
    """Local model paths in a spec are relative to the spec file's folder."""
    source = spec.source
    if isinstance(source, PathSource):
        source = PathSource(path=str(loaded.resolve_path(source.path)))
    elif isinstance(source, GGUFSource):
        source = GGUFSource(gguf=str(loaded.resolve_path(source.gguf)))
    else:
        return spec
    return spec.model_copy(update={"source": source})
