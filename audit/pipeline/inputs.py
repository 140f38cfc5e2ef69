"""A run's inputs before anything is planned: every dataset of the spec read and every
model of the spec prepared (resolved to files, fingerprinted and typed, no weights)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from audit.errors import ModelSourceError
from audit.models.chat_template import (
    ChatFormat,
    DatasetChats,
    TokenizerChat,
    template_file,
    tokenizer_chat,
)
from audit.models.prepared import PreparedModel, prepare_model
from audit.models.sources import EndpointSource, GGUFSource, ModelSpec, PathSource

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
        if mspec.chat_template != "none":
            chat = chat_format(loaded, mspec, model, mspec.chat_template, mspec.system_prompt)
            model = dataclasses.replace(model, chat=chat)
        own = dataset_chats(loaded, mspec, model)
        if own.chats:
            model = dataclasses.replace(model, dataset_chats=own)
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
        if model.chat is not None:
            display.info(
                f"{mspec.id}: multiple-choice prompts in its chat template, {model.chat.source}"
                f" (sha256 {model.chat.sha256[:12]})"
                + ("" if mspec.system_prompt is None else ", with a system prompt")
            )
        for name, own_chat in own.chats:
            display.info(
                f"{mspec.id} on {name}: "
                + (
                    "raw prompts (the dataset's chat_template: none)"
                    if own_chat is None
                    else f"prompts in the dataset's chat template, {own_chat.source} (sha256 "
                    f"{own_chat.sha256[:12]})"
                    + ("" if own_chat.system_prompt is None else ", with a system prompt")
                )
            )
    return models


def dataset_chats(loaded: LoadedSpec, spec: ModelSpec, model: PreparedModel) -> DatasetChats:
    """The chat templates of a model's prompts on the datasets that give their own
    (`datasets[].chat_template`, with their own `system_prompt`): they win over the
    model's. `auto` is the model's own template; `none`, raw text."""
    chats: list[tuple[str, ChatFormat | None]] = []
    for dspec in loaded.spec.datasets:
        setting = dspec.chat_template
        if setting is None:
            continue
        if setting == "none":
            chats.append((dspec.name, None))
            continue
        try:
            chat = chat_format(loaded, spec, model, setting, dspec.system_prompt)
        except ModelSourceError as error:
            raise ModelSourceError(
                f"dataset '{dspec.name}' (chat_template: {setting}): {error}"
            ) from error
        chats.append((dspec.name, chat))
    return DatasetChats(tuple(chats))


def chat_format(
    loaded: LoadedSpec,
    spec: ModelSpec,
    model: PreparedModel,
    setting: str,
    system_prompt: str | None,
) -> ChatFormat:
    """The chat template `setting` (a model's or a dataset's `chat_template`, not
    `none`) wraps the model's multiple-choice prompts in: its own (`auto`: from its GGUF
    metadata or tokenizer files; a served model's from the files its source's
    `tokenizer:` names, applied here) or a Jinja file the spec names."""
    source = spec.source
    if isinstance(source, EndpointSource):
        location = None if source.tokenizer is None else loaded.resolve_path(source.tokenizer)
    elif model.resolved.gguf_file is not None:
        location = model.resolved.directory / model.resolved.gguf_file
    else:
        location = model.resolved.directory
    files = tokenizer_chat(location) if location is not None else TokenizerChat(None, "", "")
    if setting == "auto":
        assert location is not None  # validation requires a served model's `tokenizer:` for auto
        template = files.required_template(location, spec.id)
        where = f"auto: the model's own, from {location.name}"
    else:
        path = loaded.resolve_path(setting)
        template = template_file(path, spec.id)
        where = f"file {path}"
    bos = files.bos_text
    if isinstance(source, EndpointSource):
        where += ", applied client-side"
        bos = source.bos_text  # what the server reads as the BOS, put before every prompt
    chat = ChatFormat(
        source=where,
        template=template,
        system_prompt=system_prompt,
        bos_text=bos,
        eos_text=files.eos_text,
    )
    chat.render("Is the template valid?\nAnswer:")  # a broken template fails here, named
    return chat


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
