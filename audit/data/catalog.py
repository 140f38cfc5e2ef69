"""The dataset registries and the light questions asked of them.

`DATASETS` holds the probe sets a spec's `datasets:` list scores (shape `pairs` or
`labelled`): each built-in is one module under `audit/data/builtin/` (options, files and
checksums, reader, `ENTRY`) and one registration line below. `TASK_DATASETS` holds the
datasets of the extrinsic tasks (shape `splits`, `audit.data.task_entry`): each is one
module under `audit/data/tasks/` and one registration line; an extrinsic task's entry
names the ones it reads. Importing this module imports no
numerical library (`audit validate` and `audit list` read it); a reader runs only when a
dataset is loaded.

Item ids are stable across runs (see `docs/datasets.md`):

- crows_pairs: the file's first, unnamed CSV column ("0" ... "1507").
- professions: the word.
- stereoset: the 0-based index among the chosen part's items, in file order.
- toxigen: the file's `id` field.
- winobias: the leading line number of the pro/anti line pair ("1" ... "396").
- winogender: the sentid without its gender, e.g. "technician.customer.1".
- user files: the mapped `id` column, else the 0-based data row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.data.builtin import (
    bbq,
    crows_pairs,
    professions,
    stereoset,
    toxigen,
    winobias,
    winogender,
)
from audit.data.entry import BuiltinReader, DatasetEntry, DatasetOptions, RemoteFile
from audit.data.items import DatasetShape
from audit.data.task_entry import TaskDatasetEntry, TaskDatasetReader, TaskSplits
from audit.data.tasks import biasbios, nli, nli_bias, sts_b
from audit.registry import Registry

DATASETS: Registry[DatasetEntry, BuiltinReader] = Registry("dataset", DatasetEntry)

DATASETS.register(crows_pairs.ENTRY)
DATASETS.register(professions.ENTRY)
DATASETS.register(stereoset.ENTRY)
DATASETS.register(toxigen.ENTRY)
DATASETS.register(winobias.ENTRY)
DATASETS.register(winogender.ENTRY)
DATASETS.register(bbq.ENTRY)

TASK_DATASETS: Registry[TaskDatasetEntry, TaskDatasetReader] = Registry("dataset", TaskDatasetEntry)

TASK_DATASETS.register(sts_b.ENTRY)
TASK_DATASETS.register(biasbios.ENTRY)
TASK_DATASETS.register(nli.ENTRY)
TASK_DATASETS.register(nli_bias.ENTRY)

# ------------------------------------------------------------------------ accessors


def read_task_dataset(name: str, data_dir: Path, options: Any, seed: int) -> TaskSplits:
    """A task dataset's splits, read by its registered reader (`options`: the reading
    task's options; `seed`: for a seeded split or sample)."""
    return TASK_DATASETS.load(name)(data_dir, options, seed)


def dataset_shape(name: str, kind: str | None = None) -> DatasetShape:
    """'pairs' or 'labelled': a user file's `kind` when given, else the built-in's shape
    (which may also be 'choices').

    An unknown built-in (and no `kind`) raises UnknownNameError with a close name.
    """
    if kind == "pairs":
        return "pairs"
    if kind == "labelled":
        return "labelled"
    if kind is not None:
        raise ValueError(f"dataset '{name}': kind {kind!r}; expected pairs or labelled")
    return DATASETS.entry(name).item_shape


def has_templates(name: str, kind: str | None = None) -> bool:
    """Whether a dataset's items carry template slots: a built-in that says so; never a
    user file (one with `kind`, or a name that is not built in)."""
    return kind is None and name in DATASETS and DATASETS.entry(name).templates


def known_bias_types(name: str) -> tuple[str, ...]:
    """Bias types of a built-in pair set, in catalog order; () for labelled sets."""
    return DATASETS.entry(name).bias_types


def known_groups(name: str) -> tuple[str, ...]:
    """Target groups of a built-in labelled set; () for pair sets."""
    return DATASETS.entry(name).groups


def dataset_options_model(name: str) -> type[DatasetOptions]:
    """The pydantic model (extra='forbid') that validates a built-in's `options:`."""
    return DATASETS.entry(name).options


def dataset_files(name: str) -> tuple[RemoteFile, ...]:
    """Every file of a built-in (all options), with its pinned URL and sha256."""
    return DATASETS.entry(name).files


def remote_file(name: str, file_name: str) -> RemoteFile:
    """The catalog record of one file of a built-in dataset."""
    return DATASETS.entry(name).remote_file(file_name)


def describe_dataset(name: str) -> str:
    """A few lines for `audit list datasets`: summary, shape, size, types, options, source."""
    entry = DATASETS.entry(name)
    lines = [f"{name}: {entry.summary}", f"  shape: {entry.shape}; size: {entry.size}"]
    if entry.bias_types:
        lines.append(f"  bias types: {', '.join(entry.bias_types)}")
    if entry.groups:
        lines.append(f"  target groups: {', '.join(entry.groups)}")
    fields = entry.options.model_fields
    if fields:
        described = []
        for field_name, info in fields.items():
            described.append(
                f"{field_name} (default {info.default!r}; {_choices(info.annotation)})"
            )
        lines.append(f"  options: {'; '.join(described)}")
    lines.append(f"  source: {entry.source}; licence: {entry.licence}")
    return "\n".join(lines)


def _choices(annotation: object) -> str:
    args = getattr(annotation, "__args__", ())
    return "one of " + ", ".join(repr(a) for a in args) if args else str(annotation)
