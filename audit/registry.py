"""One typed registry per plug-in kind (dataset, scorer, measure, variant method,
extrinsic task).

Every plug-in is one `PluginEntry` (or a subclass that adds what its kind needs),
registered once in its kind's `catalog` module. An entry carries its card (name, title,
summary, input shape, roles, ideal value and card text), its options model and a lazy
import path: listing plug-ins and validating a spec never import torch, and the
implementation is imported on first use. Code that needs "the headline measures" asks the
entries for a role; no module keeps a list of plug-in names.

Plug-ins of other installed packages register into the same registries through the
`bias_audit.plugins` entry points (`audit.plugins`): the first question asked of any
registry loads them, once. Every entry records its origin: "built-in",
"<distribution> <version> (entry point <name>)", or "registered by <module>" for code that
registers directly (a test's toy plug-in); and, for an entry point's, its distribution,
which with the card's version makes the entry's code identity (`code_identity`), part of
the cache key of everything the entry computes (`audit.code_identity`).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

from audit.cards import PluginCard, PluginKind, Role
from audit.code_identity import CodeIdentity
from audit.errors import UnknownNameError
from audit.plugins import (
    BUILT_IN,
    PluginError,
    current_distribution,
    current_origin,
    ensure_loaded,
)

#: A plug-in's name: what a spec writes, and the start of its label ("name[option=value]").
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
#: A lazy import path, "package.module:attribute".
TARGET_PATTERN = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*")


def did_you_mean(name: str, choices: list[str]) -> str:
    """A "did you mean 'x'?" hint for a misspelt name, or '' when nothing is close."""
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


V = TypeVar("V")


class _CardAttribute(Generic[V]):
    """A read-only attribute of a `PluginEntry`: its card's attribute of the same name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, entry: None, owner: type) -> _CardAttribute[V]: ...
    @overload
    def __get__(self, entry: PluginEntry, owner: type | None = None) -> V: ...
    def __get__(
        self, entry: PluginEntry | None, owner: type | None = None
    ) -> V | _CardAttribute[V]:
        if entry is None:  # asked of the class: the attribute itself, as a property is
            return self
        value: V = getattr(entry.card, self._name)
        return value


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

    # What listings and lookups ask of an entry, read from its card.
    name = _CardAttribute[str]()
    kind = _CardAttribute[PluginKind]()
    summary = _CardAttribute[str]()
    shape = _CardAttribute[str]()
    roles = _CardAttribute[tuple[Role, ...]]()
    ideal_value = _CardAttribute[float | None]()

    def has_role(self, role: Role) -> bool:
        return self.card.has_role(role)


#: This package's folder, spelt as its modules' code objects spell their files.
_PACKAGE_DIR = Path(__file__).parent


def _registering_origin() -> str:
    """Where the registration being made comes from, read from the calling code:
    "built-in" when a module of this package makes it as it is imported (a catalog first
    imported by a plug-in's code still registers built-ins); else the entry point being
    loaded (`audit.plugins.current_origin`); else "registered by <module>", the module
    that called (a test's toy, a script's own plug-in)."""
    frame = inspect.currentframe()
    while frame is not None:
        code = frame.f_code
        if _PACKAGE_DIR in Path(code.co_filename).parents:
            if code.co_name == "<module>":
                return BUILT_IN
        elif not code.co_filename.startswith("<"):
            caller = frame.f_globals.get("__name__", "an unknown module")
            return current_origin() or f"registered by {caller}"
        frame = frame.f_back
    return current_origin() or BUILT_IN


E = TypeVar("E", bound=PluginEntry)
T = TypeVar("T")


class Registry(Generic[E, T]):
    """Name -> typed entry (kept in registration order) -> lazily imported object.

    `entry_type` is the class every entry must be an instance of (the kind's
    `PluginEntry` subclass). Every question (names, entries, lookups, loading) first
    loads the installed plug-ins (`audit.plugins.ensure_loaded`); registering does not.
    """

    def __init__(self, kind: PluginKind, entry_type: type[E] | None = None) -> None:
        self.kind: PluginKind = kind
        self.entry_type: type[PluginEntry] = entry_type or PluginEntry
        self._entries: dict[str, E] = {}
        self._origins: dict[str, str] = {}
        self._distributions: dict[str, str] = {}
        self._loaded: dict[str, T] = {}

    def register(self, entry: E) -> E:
        """Add one plug-in, checked (its type, kind, name, options model, target and that
        its name is free), and record where it comes from."""
        self._check(entry)
        origin = _registering_origin()
        self._entries[entry.name] = entry
        self._origins[entry.name] = origin
        distribution = current_distribution()
        if distribution is not None and origin == current_origin():
            self._distributions[entry.name] = distribution
        return entry

    def _check(self, entry: object) -> None:
        what = f"{self.kind.replace('_', ' ')} entry"
        if not isinstance(entry, self.entry_type):
            raise TypeError(
                f"a {what} must be a {self.entry_type.__name__}; got {type(entry).__name__}"
            )
        if entry.kind != self.kind:
            raise ValueError(f"a {entry.kind} entry cannot go into the {self.kind} registry")
        if not NAME_PATTERN.fullmatch(entry.name):
            raise ValueError(
                f"{self.kind} name {entry.name!r}: expected lower-case letters, digits and "
                "'_', starting with a letter"
            )
        if not (isinstance(entry.options, type) and issubclass(entry.options, BaseModel)):
            raise TypeError(
                f"{self.kind} '{entry.name}': options must be a pydantic model class; "
                f"got {entry.options!r}"
            )
        if not TARGET_PATTERN.fullmatch(entry.target):
            raise ValueError(
                f"{self.kind} '{entry.name}': target {entry.target!r}; expected "
                "'package.module:attribute'"
            )
        if entry.name in self._entries:
            raise ValueError(
                f"{self.kind} '{entry.name}' is registered twice (first: "
                f"{self._origins[entry.name]})"
            )

    def unregister(self, name: str) -> None:
        """Remove a plug-in (tests that register a toy plug-in clean up with this)."""
        self._entries.pop(name, None)
        self._origins.pop(name, None)
        self._distributions.pop(name, None)
        self._loaded.pop(name, None)

    def names(self) -> list[str]:
        """Registered names, sorted (for listings and hints)."""
        ensure_loaded()
        return sorted(self._entries)

    def entries(self) -> list[E]:
        """Every entry in registration order."""
        ensure_loaded()
        return list(self._entries.values())

    def with_role(self, role: Role) -> list[E]:
        """The entries that declare `role`, in registration order."""
        return [e for e in self.entries() if e.has_role(role)]

    def __contains__(self, name: object) -> bool:
        ensure_loaded()
        return name in self._entries

    def entry(self, name: str) -> E:
        ensure_loaded()
        try:
            return self._entries[name]
        except KeyError:
            hint = did_you_mean(name, self.names())
            known = ", ".join(self.names()) or "none"
            msg = f"unknown {self.kind.replace('_', ' ')} '{name}'"
            msg += f"; {hint}" if hint else ""
            raise UnknownNameError(f"{msg} (known: {known})") from None

    def origin(self, name: str) -> str:
        """Where plug-in `name` comes from: "built-in", "<distribution> <version>
        (entry point <name>)" or "registered by <module>"."""
        self.entry(name)
        return self._origins[name]

    def code_identity(self, name: str) -> CodeIdentity:
        """The code that computes what plug-in `name` computes, as cache keys hold it: its
        card's version and, for a plug-in an entry point registered, its distribution."""
        entry = self.entry(name)
        return CodeIdentity(
            kind=self.kind,
            name=name,
            version=entry.card.version,
            distribution=self._distributions.get(name),
        )

    def is_built_in(self, name: str) -> bool:
        """Whether plug-in `name` is one of the tool's own."""
        return self.origin(name) == BUILT_IN

    def load(self, name: str) -> T:
        """The plug-in's object, imported on first use. A plug-in of another package
        whose target cannot be imported is a `PluginError` naming its origin."""
        if name not in self._loaded:
            module_name, _, attr = self.entry(name).target.partition(":")
            origin = self._origins[name]
            if origin == BUILT_IN:
                obj: T = getattr(importlib.import_module(module_name), attr)
            else:
                obj = self._load_foreign(name, module_name, attr, origin)
            self._loaded[name] = obj
        return self._loaded[name]

    def _load_foreign(self, name: str, module_name: str, attr: str, origin: str) -> T:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise PluginError(
                f"plug-in {origin}: {self.kind} '{name}': cannot import '{module_name}': "
                f"{type(error).__name__}: {error}"
            ) from error
        if not hasattr(module, attr):
            raise PluginError(
                f"plug-in {origin}: {self.kind} '{name}': module '{module_name}' has no '{attr}'"
            )
        obj: T = getattr(module, attr)
        return obj

    def options_of(self, name: str, options: dict[str, Any]) -> BaseModel:
        """The options validated against the entry's options model."""
        return self.entry(name).options.model_validate(options)
