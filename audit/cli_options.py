"""The arguments and options the `audit` subcommands share, and the cache folder's
default."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Device(StrEnum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class ExecutorName(StrEnum):
    in_process = "in-process"
    ray = "ray"


class Kind(StrEnum):
    datasets = "datasets"
    scorers = "scorers"
    measures = "measures"
    variants = "variants"
    extrinsic = "extrinsic"
    task_datasets = "task-datasets"


SpecArg = Annotated[
    Path, typer.Argument(metavar="SPEC", help="The audit spec (a YAML file).", show_default=False)
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="The folder to write into (default: the spec's report.out_dir, else "
        "reports/<spec name>).",
    ),
]
DataDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        metavar="DIR",
        envvar="AUDIT_DATA_DIR",
        help="A folder holding the built-in datasets (one subfolder each, as in "
        "shared/data); without it they are read from the cache or downloaded.",
    ),
]
CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        metavar="DIR",
        envvar="AUDIT_CACHE_DIR",
        help="The cache of models, datasets and scores (default: ~/.cache/bias-audit).",
    ),
]
DeviceOpt = Annotated[
    Device,
    typer.Option("--device", help="Where the models run; auto picks a GPU when there is one."),
]


def cache_folder(value: Path | None) -> Path:
    if value is not None:
        return value.expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "bias-audit"
