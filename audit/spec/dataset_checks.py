"""Semantic checks of the `datasets` list: built-in names, filters, options, user files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from audit.registry import did_you_mean
from audit.spec.models import DatasetSpec
from audit.spec.options_check import check_options
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.sections import Items

_NEEDED_COLUMNS: dict[str, tuple[str, ...]] = {
    "pairs": ("stereotype", "anti_stereotype"),
    "labelled": ("text", "label"),
}
_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".tsv": "tsv"}


def dataset_shape_of(dataset: DatasetSpec) -> str | None:
    """'pairs' or 'labelled' for a built-in or a user file with `kind`; None if unknown."""
    from audit.data import catalog

    if dataset.name in catalog.DATASETS:
        return str(catalog.dataset_shape(dataset.name))
    return dataset.kind


def check_datasets(datasets: Items[DatasetSpec]) -> list[Finding]:
    """Unknown names, bad filters and options, incomplete user files, duplicate names."""
    from audit.data import catalog

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
        if dataset.name in catalog.DATASETS:
            findings += _check_builtin(dataset, loc)
        else:
            findings += _check_user_file(dataset, loc, catalog.DATASETS.names())
    return findings


def _check_builtin(dataset: DatasetSpec, loc: Loc) -> list[Finding]:
    from audit.data import catalog

    name = dataset.name
    findings: list[Finding] = []
    shape = str(catalog.dataset_shape(name))
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
            catalog.known_bias_types(name),
            (*loc, "bias_types"),
            name,
            "bias type",
        )
    if dataset.groups is not None:
        findings += _check_filter(
            dataset.groups, catalog.known_groups(name), (*loc, "groups"), name, "target group"
        )
    if dataset.options:
        findings += check_options(
            dataset.options,
            catalog.dataset_options_model(name),
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
    elif dataset.format is None and PurePath(dataset.path).suffix.lower() not in _FORMATS:
        findings.append(
            Finding(
                (*loc, "path"),
                "cannot tell the file format from the extension; add `format`",
                got=show(dataset.path),
                expected="a .csv, .jsonl or .tsv file, or `format: csv|jsonl|tsv`",
            )
        )
    if dataset.kind is None:
        findings.append(Finding((*loc, "kind"), f"{own} `kind`", expected="pairs or labelled"))
    if dataset.columns is None:
        needed = _NEEDED_COLUMNS.get(dataset.kind or "", ())
        expected = (
            "a mapping of " + " and ".join(needed) + " to column names of your file"
            if needed
            else "a mapping of roles to column names of your file"
        )
        findings.append(Finding((*loc, "columns"), f"{own} `columns`", expected=expected))
    elif dataset.kind is not None:
        for column in _NEEDED_COLUMNS[dataset.kind]:
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
