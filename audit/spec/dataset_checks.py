"""Semantic checks of the `datasets` list: built-in names, filters, options, user files,
and that each `path:` exists (the run reads it on this machine)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

from audit.data.catalog import (
    DATASETS,
    dataset_options_model,
    dataset_shape,
    known_bias_types,
    known_groups,
)
from audit.data.items import DatasetShape
from audit.data.user_files import FORMATS, REQUIRED_ROLES
from audit.registry import did_you_mean
from audit.spec.models import DatasetSpec
from audit.spec.options_check import check_options
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.sections import Items
from audit.spec.spec_paths import resolve_spec_path


def dataset_shape_of(dataset: DatasetSpec) -> DatasetShape | None:
    """The shape validation checks measures and gates against; None when not known.

    A built-in's own shape (a `kind` that contradicts it is reported by
    `check_datasets`), else a user file's `kind` (see `audit.data.catalog.dataset_shape`).
    """
    if dataset.name in DATASETS:
        return dataset_shape(dataset.name)
    if dataset.kind is None:
        return None
    return dataset_shape(dataset.name, dataset.kind)


def check_datasets(datasets: Items[DatasetSpec]) -> list[Finding]:
    """Unknown names, bad filters and options, `limit` with `sample`, incomplete user
    files, duplicate names."""
    findings: list[Finding] = []
    first_index: dict[str, int] = {}
    for i, dataset in datasets.valid():
        loc: Loc = ("datasets", i)
        if dataset.name in first_index:
            first = first_index[dataset.name]
            findings.append(
                Finding(
                    (*loc, "name"),
                    f"dataset '{dataset.name}' is listed twice (first as datasets[{first}])",
                    expected="each dataset once; put all filters of one dataset in one entry",
                )
            )
        else:
            first_index[dataset.name] = i
        if dataset.limit is not None and dataset.sample is not None:
            findings.append(
                Finding(
                    (*loc, "sample"),
                    "`limit` and `sample` both given; a dataset takes one or the other",
                    expected="`limit: N` (the first N items) or `sample: N` (a random sample "
                    "of N items, drawn with the spec's seed)",
                )
            )
        if dataset.name in DATASETS:
            findings += _check_builtin(dataset, loc)
        else:
            findings += _check_user_file(dataset, loc, DATASETS.names())
    return findings


def _check_builtin(dataset: DatasetSpec, loc: Loc) -> list[Finding]:
    name = dataset.name
    findings: list[Finding] = []
    shape = dataset_shape(name)
    if dataset.kind is not None and dataset.kind != shape:
        findings.append(
            Finding(
                (*loc, "kind"),
                f"built-in dataset '{name}' holds {shape}, not {dataset.kind}",
                got=show(dataset.kind),
                expected=f"{shape!r} or no kind at all",
            )
        )
    if dataset.bias_types is not None:
        findings += _check_filter(
            dataset.bias_types,
            known_bias_types(name),
            (*loc, "bias_types"),
            name,
            "bias type",
        )
    if dataset.groups is not None:
        findings += _check_filter(
            dataset.groups, known_groups(name), (*loc, "groups"), name, "target group"
        )
    if dataset.options:
        findings += check_options(
            dataset.options,
            dataset_options_model(name),
            loc=(*loc, "options"),
            what=f"dataset '{name}'",
        )
    return findings


def _check_filter(
    values: list[str], known: Iterable[str] | None, loc: Loc, dataset: str, what: str
) -> list[Finding]:
    known_list = sorted(known or [])
    if not known_list:
        return [Finding(loc, f"dataset '{dataset}' has no {what}s to filter on")]
    findings = []
    for j, value in enumerate(values):
        if value in known_list:
            continue
        message = f"unknown {what} '{value}' for dataset '{dataset}'"
        hint = did_you_mean(value, known_list)
        if hint:
            message += f"; {hint}"
        findings.append(Finding((*loc, j), message, got=show(value), expected=one_of(known_list)))
    return findings


def _check_user_file(dataset: DatasetSpec, loc: Loc, builtins: list[str]) -> list[Finding]:
    name = dataset.name
    if dataset.path is None and dataset.kind is None and dataset.columns is None:
        message = f"unknown dataset '{name}'"
        hint = did_you_mean(name, builtins)
        if hint:
            message += f"; {hint}"
        return [
            Finding(
                (*loc, "name"),
                message,
                expected=f"a built-in dataset ({one_of(builtins)}), or a file of your own "
                "with path, kind and columns",
            )
        ]
    findings: list[Finding] = []
    own = f"dataset '{name}' is not built in, so as a file of your own it needs"
    if dataset.path is None:
        findings.append(Finding((*loc, "path"), f"{own} `path`", expected="the file to read"))
    elif dataset.format is None and PurePath(dataset.path).suffix.lower() not in FORMATS:
        findings.append(
            Finding(
                (*loc, "path"),
                "cannot tell the file format from the extension; add `format`",
                got=show(dataset.path),
                expected="a .csv, .json, .jsonl or .tsv file, or `format: csv|json|jsonl|tsv`",
            )
        )
    if dataset.kind is None:
        findings.append(Finding((*loc, "kind"), f"{own} `kind`", expected="pairs or labelled"))
    if dataset.columns is None:
        needed = REQUIRED_ROLES.get(dataset.kind or "", ())
        expected = (
            "a mapping of " + " and ".join(needed) + " to column names of your file"
            if needed
            else "a mapping of roles to column names of your file"
        )
        findings.append(Finding((*loc, "columns"), f"{own} `columns`", expected=expected))
    elif dataset.kind is not None:
        for column in REQUIRED_ROLES[dataset.kind]:
            if getattr(dataset.columns, column) is None:
                findings.append(
                    Finding(
                        (*loc, "columns", column),
                        f"a {dataset.kind} dataset needs the column mapping '{column}'",
                        expected="the name of the column in your file, e.g. "
                        f"{column}: {column.replace('_', '')}",
                    )
                )
    for key in dataset.options:
        findings.append(
            Finding(
                (*loc, "options", key),
                f"unknown option '{key}': options apply to built-in datasets only",
            )
        )
    return findings


def check_dataset_paths(datasets: Items[DatasetSpec], base_dir: Path) -> list[Finding]:
    """Each dataset's `path:` must exist: a user file as a file, a built-in's copy as a
    file or a folder. The run reads datasets here, so a missing one is an error now, not
    a failure after the models load."""
    findings: list[Finding] = []
    for i, dataset in datasets.valid():
        if dataset.path is None:
            continue
        resolved = resolve_spec_path(dataset.path, base_dir)
        builtin = dataset.name in DATASETS
        if resolved.is_file() or (builtin and resolved.is_dir()):
            continue
        problem = "is a folder, not a file" if resolved.is_dir() else "does not exist"
        what = (
            f"your copy of '{dataset.name}' (a file or folder)"
            if builtin
            else "an existing .csv, .tsv, .jsonl or .json file"
        )
        if not Path(dataset.path).expanduser().is_absolute():
            what += "; a relative path is read from the spec's folder"
        findings.append(
            Finding(
                ("datasets", i, "path"),
                f"dataset '{dataset.name}': {resolved} {problem}",
                got=show(dataset.path),
                expected=what,
            )
        )
    return findings
