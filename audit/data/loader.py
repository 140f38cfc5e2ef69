"""Load one dataset: a built-in by name, or a user file.

This is the public entry point of `audit.data`: it takes a `DatasetRequest` (the spec
layer makes one with `audit.spec.dataset_request.dataset_request`). See `download.py`
for where a built-in's files come from, the modules in `builtin/` for each set's
semantics, and `docs/datasets.md` for the whole story.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from audit.data.catalog import DATASETS
from audit.data.download import Progress, ensure_downloaded, sha256_file
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows
from audit.data.filters import apply_filters, unknown_name
from audit.data.items import ChoiceItem, DatasetShape, LabelledItem, LoadedDataset, PairItem
from audit.data.request import DatasetRequest
from audit.data.user_files import read_user_file
from audit.errors import DataError, UnknownNameError


def load_dataset(
    request: DatasetRequest,
    *,
    data_dir: Path | None,
    cache_dir: Path,
    progress: Progress | None = None,
) -> LoadedDataset:
    """Read, check and filter one dataset.

    Built-ins come from `request.path`, then `data_dir/<folder>/`, then
    `cache_dir/datasets/`, then a checked download (progress gets bytes done / total).
    """
    explicit = request.path.expanduser() if request.path is not None else None
    if request.name in DATASETS:
        entry = DATASETS.entry(request.name)
        shape = entry.item_shape
        options = builtin_options(request)
        resolved = ensure_downloaded(
            entry,
            options,
            explicit=explicit,
            data_dir=data_dir,
            cache_dir=cache_dir,
            progress=progress,
        )
        parsed: ParsedRows = DATASETS.load(request.name)(resolved.paths, options)
        # every name of file_names(), or those a release folder holds (`found_files`)
        names = [n for n in options.file_names() if n in resolved.paths]
        primary = resolved.paths[names[0]]
        files = {str(resolved.paths[n]): resolved.sha256[n] for n in names}
        verified = resolved.verified
        # a release read from the user's folder knows the names of the files it found
        catalog_known = () if entry.found_files else entry.known_names
    else:
        if explicit is None:
            raise UnknownNameError(
                unknown_name("dataset", request.name, DATASETS.names(), listed="built-ins")
                + "; for your own file give `path:` and `kind:`"
            )
        if request.options:
            raise DataError(
                f"dataset '{request.name}': `options` apply to built-in datasets only "
                f"({', '.join(DATASETS.names())})"
            )
        if request.kind is None:
            raise DataError(
                f"dataset '{request.name}': a user file needs `kind: pairs` or `kind: labelled`"
            )
        shape = request.kind
        parsed = read_user_file(explicit, request)
        primary = explicit
        files = {str(explicit): sha256_file(explicit)}
        verified = False
        catalog_known = ()
    _check_unique_ids(request.name, primary, parsed)
    known = _known_names(shape, parsed, catalog_known)
    items, filtered = apply_filters(parsed.items, shape, request, known)
    return LoadedDataset(
        name=request.name,
        shape=shape,
        items=items,
        source=str(primary),
        sha256=files[str(primary)],
        rows_read=parsed.rows_read,
        skipped=dict(parsed.skipped),
        filtered=filtered,
        files=files,
        verified=verified,
    )


def builtin_options(request: DatasetRequest) -> DatasetOptions:
    """The validated options of a built-in; user-file keys on a built-in are errors."""
    entry: DatasetEntry = DATASETS.entry(request.name)
    if request.kind is not None and request.kind != entry.item_shape:
        raise DataError(
            f"dataset '{request.name}' is a built-in {entry.item_shape} set; "
            f"drop `kind: {request.kind}`"
        )
    for key, value in (("columns", request.columns), ("format", request.format)):
        if value is not None:
            raise DataError(
                f"dataset '{request.name}': `{key}` applies to user files; the built-in "
                f"{request.name} knows its own"
            )
    model = entry.options
    try:
        return model.model_validate(dict(request.options))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}"
            for err in exc.errors()
        )
        fields = ", ".join(model.model_fields) or "none"
        raise DataError(
            f"dataset '{request.name}': bad options ({problems}); options it takes: {fields}"
        ) from None


def _check_unique_ids(name: str, source: Path, parsed: ParsedRows) -> None:
    seen: set[str] = set()
    for item in parsed.items:
        if item.item_id in seen:
            raise DataError(
                f"{source}: item id {item.item_id!r} appears more than once "
                f"(dataset '{name}'); item ids must be unique"
            )
        seen.add(item.item_id)


def _known_names(
    shape: DatasetShape, parsed: ParsedRows, catalog: tuple[str, ...]
) -> tuple[str, ...]:
    """Catalog names first, then any other name the data holds, in order of appearance."""
    names = dict.fromkeys(catalog)
    for item in parsed.items:
        if shape in ("pairs", "choices"):
            assert isinstance(item, PairItem | ChoiceItem)
            names.setdefault(item.bias_type)
        else:
            assert isinstance(item, LabelledItem)
            names.update(dict.fromkeys(item.groups))
    return tuple(names)
