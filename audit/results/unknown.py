"""Reading a newer minor version: leave out, and note, what this version does not know.

A results.json of a newer minor version (see `audit.results.version`) may hold sections
and fields added after this code was written. `strip_unknown` walks the parsed JSON
against the record models, at any depth, and removes every key the models do not declare;
what it removed comes back as `UnreadPart`s (one per path, list positions folded into
`[]`), so the records still forbid unknown keys when validated. The reading code returns
them (`AuditResult.read_notes`); the CLI prints them and the report says what it could not
show.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel


@dataclass(frozen=True)
class UnreadPart:
    """A section (top-level key) or a field (a path like `measurements[].calibration`) of
    the file that this version does not know, and in how many places it occurred."""

    path: str
    count: int = 1

    @property
    def is_section(self) -> bool:
        return "." not in self.path and "[" not in self.path

    def describe(self) -> str:
        """'section `fairness`' or 'field `measurements[].calibration` (in 12 records)'."""
        if self.is_section:
            return f"section `{self.path}`"
        where = "" if self.count == 1 else f" (in {self.count} records)"
        return f"field `{self.path}`{where}"


@dataclass(frozen=True)
class ReadNotes:
    """What reading one file left out: the file, its version, the reader's, and the parts."""

    source: str
    version: str = ""
    reader_version: str = ""
    parts: tuple[UnreadPart, ...] = ()

    def warnings(self) -> list[str]:
        """One line per part left out, naming the file and both versions."""
        return [
            f"{self.source}: results_version {self.version} is newer than this bias-audit "
            f"reads ({self.reader_version}); not read: {part.describe()}"
            for part in self.parts
        ]


def strip_unknown(data: Any, model: type[BaseModel]) -> tuple[Any, tuple[UnreadPart, ...]]:
    """`data` without the keys `model` (and the records inside it) does not declare, and
    the parts left out, in the order first met. `data` itself is not changed."""
    counts: dict[str, int] = {}
    stripped = _walk(data, model, "", counts)
    return stripped, tuple(UnreadPart(path, n) for path, n in counts.items())


def _walk(data: Any, annotation: Any, path: str, counts: dict[str, int]) -> Any:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _walk(data, get_args(annotation)[0], path, counts)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _walk_model(data, annotation, path, counts)
    if origin in (Union, types.UnionType):
        return _walk_union(data, get_args(annotation), path, counts)
    if origin in (list, tuple, set, frozenset) and isinstance(data, list):
        args = [a for a in get_args(annotation) if a is not Ellipsis]
        if len(args) != 1:  # a fixed-length tuple: nothing to walk into
            return data
        return [_walk(item, args[0], f"{path}[]", counts) for item in data]
    if origin is dict and isinstance(data, Mapping):
        value_type = get_args(annotation)[1] if get_args(annotation) else Any
        return {k: _walk(v, value_type, f"{path}[]", counts) for k, v in data.items()}
    return data


def _walk_model(data: Any, model: type[BaseModel], path: str, counts: dict[str, int]) -> Any:
    if not isinstance(data, Mapping):
        return data  # validation says what is wrong with it
    fields = _declared(model)
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in fields:
            counts[where] = counts.get(where, 0) + 1
            continue
        out[key] = _walk(value, fields[key], where, counts)
    return out


def _declared(model: type[BaseModel]) -> dict[str, Any]:
    """The keys a record accepts (names and aliases) and their types."""
    declared: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        declared[name] = field.annotation
        if field.alias:
            declared[field.alias] = field.annotation
    return declared


def _walk_union(data: Any, members: tuple[Any, ...], path: str, counts: dict[str, int]) -> Any:
    """A union of records (e.g. an extrinsic task's detail) is walked as the member the data
    fits best: every required field present, then the fewest unknown keys. Data missing a
    required field of every record is kept whole where the union takes a free mapping."""
    if data is None:
        return data
    candidates = [m for m in members if m is not type(None)]
    models = [m for m in candidates if isinstance(m, type) and issubclass(m, BaseModel)]
    if not models:
        if len(candidates) == 1:
            return _walk(data, candidates[0], path, counts)
        return data
    if not isinstance(data, Mapping):
        return data
    best = min(models, key=lambda m: _misfit(data, m))
    if _misfit(data, best)[0] and any(get_origin(m) is dict for m in candidates):
        return data  # no record fits: a free mapping (a plug-in extrinsic task's detail)
    return _walk_model(data, best, path, counts)


def _misfit(data: Mapping[str, Any], model: type[BaseModel]) -> tuple[int, int]:
    fields = model.model_fields
    missing = sum(f.is_required() and name not in data for name, f in fields.items())
    unknown = sum(key not in fields for key in data)
    return (missing, unknown)
