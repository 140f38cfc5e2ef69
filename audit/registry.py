"""One typed registry per plug-in kind (dataset, scorer, measure, variant method,
extrinsic task).

Every plug-in is one `PluginEntry` (or a subclass that adds what its kind needs),
registered once in its kind's `catalog` module. An entry carries its card (name, title,
summary, input shape, roles, ideal value and card text), its options model and a lazy
import path: listing plug-ins and validating a spec never import torch, and the
implementation is imported on first use. Code that needs "the headline measures" asks the
entries for a role; no module keeps a list of plug-in names.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from audit.cards import PluginCard, PluginKind, Role
from audit.errors import UnknownNameError


def did_you_mean(name: str, choices: list[str]) -> str:
    """A "did you mean 'x'?" hint for a misspelt name, or '' when nothing is close."""
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


@dataclass(frozen=True)
class PluginEntry:
    """One registered plug-in.

    `target` is "package.module:attribute", imported by `Registry.load` on first use.
    `options` is the pydantic model of the options the spec may give (unknown keys are
    errors). Kinds subclass this to add their own typed fields.
    """

    card: PluginCard
    options: type[BaseModel]
    target: str

    @property
    def name(self) -> str:
        return self.card.name

    @property
    def kind(self) -> PluginKind:
        return self.card.kind

    @property
    def summary(self) -> str:
        return self.card.summary

    @property
    def shape(self) -> str:
        return self.card.shape

    @property
    def roles(self) -> tuple[Role, ...]:
        return self.card.roles

    @property
    def ideal_value(self) -> float | None:
        return self.card.ideal_value

    def has_role(self, role: Role) -> bool:
        return self.card.has_role(role)


E = TypeVar("E", bound=PluginEntry)
T = TypeVar("T")


class Registry(Generic[E, T]):
    """Name -> typed entry (kept in registration order) -> lazily imported object."""

    def __init__(self, kind: PluginKind) -> None:
        self.kind: PluginKind = kind
        self._entries: dict[str, E] = {}
        self._loaded: dict[str, T] = {}

    def register(self, entry: E) -> E:
        """Add one plug-in; its card's kind must be this registry's kind."""
        if entry.kind != self.kind:
            raise ValueError(f"a {entry.kind} entry cannot go into the {self.kind} registry")
        if entry.name in self._entries:
            raise ValueError(f"{self.kind} '{entry.name}' is registered twice")
        self._entries[entry.name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Remove a plug-in (tests that register a toy plug-in clean up with this)."""
        self._entries.pop(name, None)
        self._loaded.pop(name, None)

    def names(self) -> list[str]:
        """Registered names, sorted (for listings and hints)."""
        return sorted(self._entries)

    def entries(self) -> list[E]:
        """Every entry in registration order."""
        return list(self._entries.values())

    def with_role(self, role: Role) -> list[E]:
        """The entries that declare `role`, in registration order."""
        return [e for e in self._entries.values() if e.has_role(role)]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def entry(self, name: str) -> E:
        try:
            return self._entries[name]
        except KeyError:
            hint = did_you_mean(name, self.names())
            known = ", ".join(self.names()) or "none"
            msg = f"unknown {self.kind.replace('_', ' ')} '{name}'"
            msg += f"; {hint}" if hint else ""
            raise UnknownNameError(f"{msg} (known: {known})") from None

    def load(self, name: str) -> T:
        """The plug-in's object, imported on first use."""
        if name not in self._loaded:
            module_name, _, attr = self.entry(name).target.partition(":")
            obj: T = getattr(importlib.import_module(module_name), attr)
            self._loaded[name] = obj
        return self._loaded[name]

    def options_of(self, name: str, options: dict[str, Any]) -> BaseModel:
        """The options validated against the entry's options model."""
        return self.entry(name).options.model_validate(options)
