"""Registries by name for every plug-in kind (dataset, scorer, measure, variant).

Entries are registered with a dotted import path and a short description, so listing
and validating a spec never imports torch: the object is imported on first use.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from audit.errors import UnknownNameError

T = TypeVar("T")


def did_you_mean(name: str, choices: list[str]) -> str:
    """A ' (did you mean 'x'?)' hint for a misspelt name, or '' when nothing is close."""
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


@dataclass(frozen=True)
class Entry:
    """One registered plug-in: its name, where it lives, and what a listing says about it."""

    name: str
    target: str  # "package.module:attribute"
    summary: str
    meta: dict[str, object] = field(default_factory=dict)


class Registry(Generic[T]):
    """Name -> lazily imported plug-in object, with 'did you mean' on a typo."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        self._loaded: dict[str, T] = {}

    def register(self, name: str, target: str, summary: str, **meta: object) -> None:
        if name in self._entries:
            raise ValueError(f"{self.kind} '{name}' is registered twice")
        self._entries[name] = Entry(name, target, summary, dict(meta))

    def names(self) -> list[str]:
        return sorted(self._entries)

    def entries(self) -> list[Entry]:
        return [self._entries[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def entry(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            hint = did_you_mean(name, self.names())
            known = ", ".join(self.names())
            msg = f"unknown {self.kind} '{name}'"
            msg += f"; {hint}" if hint else ""
            raise UnknownNameError(f"{msg} (known: {known})") from None

    def get(self, name: str) -> T:
        if name not in self._loaded:
            module_name, _, attr = self.entry(name).target.partition(":")
            obj: T = getattr(importlib.import_module(module_name), attr)
            self._loaded[name] = obj
        return self._loaded[name]
