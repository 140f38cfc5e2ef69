"""What an extrinsic task's dataset declares about itself, and what its reader gives back.

A probe set (`audit.data.entry.DatasetEntry`, shape `pairs` or `labelled`) is scored by
`audit run` item by item. A task dataset is of another kind: the data a downstream task
fine-tunes a head on and measures with (STS-B, BiasBios, MultiNLI/SNLI, the NLI-bias
pairs). Its rows are the task's own (a scored sentence pair, a biography with its title
and gender, a labelled premise/hypothesis pair), grouped in named splits; so it has
shape `splits` and its own registry, `TASK_DATASETS` in `audit.data.catalog`, which a
spec's `datasets:` list never reads (a task dataset cannot be scored as a probe set).

A task dataset is one module under `audit/data/tasks/` holding its rows' type, its reader
(a `TaskDatasetReader`) and its `ENTRY`, registered with one line in the catalog, as a
built-in probe set is. This module imports nothing heavier than pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from audit.registry import PluginEntry

#: The card shape of every task dataset.
TASK_DATASET_SHAPE = "splits"


class NoSpecOptions(BaseModel):
    """A task dataset takes no options of its own in a spec: it is never named there, and
    its reader reads its task's options (the attributes its reader documents)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class TaskSplits:
    """What a task dataset's reader gives: each split's rows in file order, and the files
    read (a role such as "train" or "all" -> the path)."""

    dataset: str
    splits: Mapping[str, Sequence[Any]]
    files: Mapping[str, Path] = field(default_factory=dict)

    def split(self, name: str) -> Sequence[Any]:
        """One split's rows; a missing optional split (a BiasBios dev file) is empty."""
        return self.splits.get(name, ())


class TaskDatasetReader(Protocol):
    """Reads a task dataset from the data folder. `options` is the task's options model:
    each reader documents the attributes it reads (a file name, a field name, a share);
    `seed` drives any seeded split or sample."""

    def __call__(self, data_dir: Path, options: Any, seed: int) -> TaskSplits: ...


@dataclass(frozen=True, kw_only=True)
class TaskDatasetEntry(PluginEntry):
    """A registered task dataset.

    `folder` is its folder inside the data folder; `files` names the files looked for
    there, in order; `splits` the splits its reader gives; `rows` what one row holds;
    `shipped` whether the shared data folder carries it (otherwise its reader's error says
    what to download and where to put it). `options` is `NoSpecOptions`.
    """

    folder: str
    files: tuple[str, ...]
    splits: tuple[str, ...]
    rows: str
    shipped: bool
    size: str
    source: str
    licence: str

    def __post_init__(self) -> None:
        if self.card.kind != "dataset":
            raise ValueError(f"task dataset entry '{self.name}' has a {self.card.kind} card")
        if self.card.shape != TASK_DATASET_SHAPE:
            raise ValueError(
                f"task dataset '{self.name}': shape {self.card.shape!r}; expected "
                f"{TASK_DATASET_SHAPE!r}"
            )
        if not self.splits:
            raise ValueError(f"task dataset '{self.name}' names no split")
