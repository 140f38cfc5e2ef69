"""Typed ids of plug-ins as they travel through every layer and into results.json.

A plug-in with options (`{name: jss, compat: reference}`) is a `PluginId`: the registered
`name`, the `options` as given, and a `label` for people (`jss[compat=reference]`). Code
compares and looks up ids by `(name, options)`; no code parses a label.

This module imports nothing but pydantic, so results.json readers (the report, `audit
render`, `audit compare`) can use it without the registries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


def canonical_options(options: dict[str, Any]) -> str:
    """The options as sorted-key JSON: the identity of an option set."""
    return json.dumps(options, sort_keys=True, separators=(",", ":"), default=str)


def label_of(
    name: str, options: dict[str, Any], value_text: Callable[[Any], str] | None = None
) -> str:
    """How people read an id: `ll`, or with options `ll[compat=reference]`; a list option
    reads `seat[tests=[weat6, weat7]]`, with no quotation marks. `value_text` writes each
    value (default `option_text`; version 1 files wrote them through `str`)."""
    if not options:
        return name
    text = value_text or option_text
    return f"{name}[{','.join(f'{k}={text(options[k])}' for k in sorted(options))}]"


def option_text(value: Any) -> str:
    """An option value as a label shows it: lists and tuples as `[a, b]`, mappings as
    `{k: v}`, each item the same way; anything else as `str` gives it."""
    if isinstance(value, list | tuple):
        return f"[{', '.join(option_text(v) for v in value)}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {option_text(v)}" for k, v in value.items()) + "}"
    return str(value)


class KeyedIdentity:
    """Equal and hashed by `key` alone, so fields for display (a label) never count; equal
    only to objects of the same class. Put it before the pydantic base class."""

    @property
    def key(self) -> Hashable:
        raise NotImplementedError

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return bool(self.key == other.key)


class PluginId(KeyedIdentity, BaseModel):
    """A plug-in by name with its options; `label` is derived and only for display."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The registered name (see `audit list ...`).")
    options: dict[str, Any] = Field(default_factory=dict, description="Options as given.")
    label: str = Field(default="", description="For people: name[k=v,...]. Never parsed.")

    @model_validator(mode="after")
    def _fill_label(self) -> PluginId:
        if not self.label:
            object.__setattr__(self, "label", label_of(self.name, self.options))
        return self

    @classmethod
    def of(cls, name: str, options: dict[str, Any] | None = None) -> PluginId:
        return cls(name=name, options=dict(options or {}))

    @property
    def key(self) -> tuple[str, str]:
        """What identifies the id: name and canonical options (the label is not part of it)."""
        return (self.name, canonical_options(self.options))

    def __str__(self) -> str:
        return self.label
