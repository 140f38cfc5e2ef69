"""Load one dataset of a spec: a built-in by name, or a user file.

This is the public entry point of `audit.data`; see `download.py` for where a
built-in's files come from, the reader modules for each set's semantics, and
`docs/datasets.md` for the whole story.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from audit.data.catalog import (
    DATASETS,
    DatasetOptions,
    ParsedRows,
    dataset_options_model,
    dataset_shape,
    known_bias_types,
    known_groups,
)
from audit.data.download import Progress, ensure_downloaded, sha256_file
from audit.data.filters import apply_filters
from audit.data.items import DatasetShape, LabelledItem, LoadedDataset, PairItem
from audit.data.user_files import read_user_file
from audit.errors import DataError, UnknownNameError
from audit.registry import did_you_mean
from audit.spec.models import DatasetSpec


def load_dataset(
    spec: DatasetSpec,
    *,
    data_dir: Path | None,
    cache_dir: Path,
    progress: Progress | None = None,
    spec_dir: Path | None = None,
) -> LoadedDataset:
    """Read, check and filter one dataset.

    Built-ins come from `path:`, then `data_dir/<name>/`, then `cache_dir/datasets/`,
    then a checked download (progress gets bytes done / total). A relative `path:` is
    taken relative to `spec_dir` (the spec file's folder) when given.
    """
    explicit = _resolve(spec.path, spec_dir)
    if spec.name in DATASETS:
        shape = dataset_shape(spec.name)
        options = builtin_options(spec)
        resolved = ensure_downloaded(
            spec.name,
            options,
            explicit=explicit,
            data_dir=data_dir,
            cache_dir=cache_dir,
            progress=progress,
        )
        parsed: ParsedRows = DATASETS.get(spec.name)(resolved.paths, options)
        primary = resolved.paths[options.file_names()[0]]
        files = {str(resolved.paths[n]): resolved.sha256[n] for n in options.file_names()}
        verified = resolved.verified
        catalog_known = known_bias_types(spec.name) or known_groups(spec.name)
    else:
        if explicit is None:
            hint = did_you_mean(spec.name, DATASETS.names())
            raise UnknownNameError(
                f"unknown dataset '{spec.name}'"
                + (f"; {hint}" if hint else "")
                + f" (built-ins: {', '.join(DATASETS.names())}); for your own file give "
                "`path:` and `kind:`"
            )
        if spec.options:
            raise DataError(
                f"dataset '{spec.name}': `options` apply to built-in datasets only "
                f"({', '.join(DATASETS.names())})"
            )
        if spec.kind is None:
            raise DataError(
                f"dataset '{spec.name}': a user file needs `kind: pairs` or `kind: labelled`"
            )
        shape = spec.kind
        parsed = read_user_file(explicit, spec)
        primary = explicit
        files = {str(explicit): sha256_file(explicit)}
        verified = False
        catalog_known = ()
    _check_unique_ids(spec.name, primary, parsed)
    known = _known_names(shape, parsed, catalog_known)
    items, filtered = apply_filters(parsed.items, shape, spec, known)
    return LoadedDataset(
        name=spec.name,
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


def builtin_options(spec: DatasetSpec) -> DatasetOptions:
    """The validated options of a built-in; user-file keys on a built-in are errors."""
    if spec.kind is not None and spec.kind != dataset_shape(spec.name):
        raise DataError(
            f"dataset '{spec.name}' is a built-in {dataset_shape(spec.name)} set; "
            f"drop `kind: {spec.kind}`"
        )
    for key in ("columns", "format"):
        if getattr(spec, key) is not None:
            raise DataError(
                f"dataset '{spec.name}': `{key}` applies to user files; the built-in "
                f"{spec.name} knows its own"
            )
    model = dataset_options_model(spec.name)
    try:
        return model.model_validate(spec.options)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}"
            for err in exc.errors()
        )
        fields = ", ".join(model.model_fields) or "none"
        raise DataError(
            f"dataset '{spec.name}': bad options ({problems}); options it takes: {fields}"
        ) from None


def _resolve(path: str | None, spec_dir: Path | None) -> Path | None:
    if path is None:
        return None
    resolved = Path(path).expanduser()
    if not resolved.is_absolute() and spec_dir is not None:
        resolved = spec_dir / resolved
    return resolved


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
        if shape == "pairs":
            assert isinstance(item, PairItem)
            names.setdefault(item.bias_type)
        else:
            assert isinstance(item, LabelledItem)
            names.update(dict.fromkeys(item.groups))
    return tuple(names)
