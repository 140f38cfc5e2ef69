"""Plug-ins from other installed packages: the `bias_audit.plugins` entry-point group.

A distribution adds measures, datasets, scorers, variant methods or extrinsic tasks by
declaring one entry point in its pyproject.toml:

    [project.entry-points."bias_audit.plugins"]
    my_plugins = "my_package.audit_plugins:register"

The entry point names a function, called with no argument, or a module, imported; either
registers its plug-ins in the registries exactly as a built-in does (`register_measure`,
`DATASETS.register(...)`, ...), so the same checks and messages apply (docs/plugins.md).

Loading is lazy and happens once per process: the first question asked of any registry
(spec validation, `audit list`, planning) loads every entry point of the group, in name
order, before it is answered. A plug-in that cannot be imported, registers a name that
is taken or registers an invalid entry stops the tool with a `PluginError` (exit 2)
naming the distribution, the entry point and the problem. While an entry point is
loaded, `current_origin()` names it and `current_distribution()` gives its distribution
as "name==version"; the registries record both for its entries (the distribution enters
the cache keys of what they compute: `audit.code_identity`).

This module imports nothing from the rest of the tool but its errors.
"""

from __future__ import annotations

import importlib.metadata
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from audit.errors import AuditUserError

#: The entry-point group other packages declare their plug-ins in.
GROUP = "bias_audit.plugins"
#: The origin of every plug-in registered by the tool itself.
BUILT_IN = "built-in"

_PACKAGE_DIR = Path(__file__).resolve().parent


class PluginError(AuditUserError):
    """A plug-in from another package could not be loaded or used. Exit code 2."""


@dataclass(frozen=True)
class LoadedPlugin:
    """One entry point that was loaded: where it comes from."""

    origin: str
    entry_point: str
    value: str


def origin_of(entry_point: importlib.metadata.EntryPoint) -> str:
    """'<distribution> <version> (entry point <name>)' for an entry point."""
    dist = entry_point.dist
    if dist is None:
        return f"an unknown distribution (entry point {entry_point.name})"
    return f"{dist.metadata['Name']} {dist.version} (entry point {entry_point.name})"


def distribution_of(entry_point: importlib.metadata.EntryPoint) -> str | None:
    """'<distribution>==<version>' of an entry point, None when its distribution is unknown."""
    dist = entry_point.dist
    return None if dist is None else f"{dist.metadata['Name']}=={dist.version}"


_origin = threading.local()


def current_origin() -> str | None:
    """The origin of the entry point being loaded in this thread, None when none is."""
    origin: str | None = getattr(_origin, "value", None)
    return origin


def current_distribution() -> str | None:
    """'<name>==<version>' of the distribution whose entry point is being loaded in this
    thread; None when none is, or its distribution is unknown."""
    distribution: str | None = getattr(_origin, "distribution", None)
    return distribution


@contextmanager
def _registering(origin: str, distribution: str | None = None) -> Iterator[None]:
    previous = getattr(_origin, "value", None), getattr(_origin, "distribution", None)
    _origin.value, _origin.distribution = origin, distribution
    try:
        yield
    finally:
        _origin.value, _origin.distribution = previous


def _where(error: BaseException) -> str:
    """' (at file:line)' of the innermost frame outside this package, '' when none."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<")
        and _PACKAGE_DIR not in Path(frame.filename).resolve().parents
        and "importlib" not in Path(frame.filename).parts
    ]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def load_entry_point(entry_point: importlib.metadata.EntryPoint) -> LoadedPlugin:
    """Import one entry point and let it register its plug-ins; a failure is a
    `PluginError` naming the distribution, the entry point and the problem."""
    origin = origin_of(entry_point)
    where = f"plug-in {origin}"
    with _registering(origin, distribution_of(entry_point)):
        try:
            target = entry_point.load()
        except (ImportError, AttributeError) as error:
            raise PluginError(
                f"{where}: cannot import '{entry_point.value}': {type(error).__name__}: {error}"
            ) from error
        except Exception as error:
            raise PluginError(f"{where}: {_problem(error)}{_where(error)}") from error
        if isinstance(target, ModuleType):
            pass  # importing the module registered its plug-ins
        elif callable(target):
            try:
                target()
            except AuditUserError as error:
                raise PluginError(f"{where}: {error}") from error
            except Exception as error:
                raise PluginError(f"{where}: {_problem(error)}{_where(error)}") from error
        else:
            raise PluginError(
                f"{where}: '{entry_point.value}' is of type {type(target).__name__}; expected "
                "a function that registers plug-ins or a module that registers them on import"
            )
    return LoadedPlugin(origin=origin, entry_point=entry_point.name, value=entry_point.value)


def _problem(error: Exception) -> str:
    """The error's message, with its type when that says more than the message."""
    if isinstance(error, ValueError | TypeError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def discover() -> list[importlib.metadata.EntryPoint]:
    """The group's entry points of every installed distribution, by name (each once)."""
    found: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
    for entry_point in importlib.metadata.entry_points(group=GROUP):
        found.setdefault((entry_point.name, entry_point.value), entry_point)
    return sorted(found.values(), key=lambda ep: (ep.name, ep.value))


class PluginLoader:
    """Loads the group's entry points once; later calls return what the first one
    loaded, or raise its error again (a half-loaded plug-in set is never used)."""

    def __init__(
        self, discover_entry_points: Callable[[], list[importlib.metadata.EntryPoint]] = discover
    ) -> None:
        self._discover = discover_entry_points
        self._lock = threading.RLock()
        self._state: str = "not loaded"
        self._loaded: list[LoadedPlugin] = []
        self._failure: PluginError | None = None

    @property
    def loaded(self) -> list[LoadedPlugin]:
        """The entry points loaded so far."""
        return list(self._loaded)

    def ensure_loaded(self) -> None:
        """Load every entry point unless done; a registry asked while a plug-in registers
        (the same thread, re-entering) gets its answer without waiting."""
        if self._state == "loaded" and self._failure is None:
            return  # every registry question passes here: no lock
        with self._lock:
            if self._state == "not loaded":
                self._state = "loading"
                try:
                    self._load_all()
                except PluginError as error:
                    self._failure = error
                finally:
                    self._state = "loaded"
            if self._failure is not None and self._state == "loaded":
                raise self._failure

    def _load_all(self) -> None:
        try:
            entry_points = self._discover()
        except Exception as error:  # a broken installed distribution's metadata
            raise PluginError(
                f"cannot read the '{GROUP}' entry points of the installed packages: "
                f"{type(error).__name__}: {error}"
            ) from error
        for entry_point in entry_points:
            self._loaded.append(load_entry_point(entry_point))


#: The process's loader, used by every registry.
LOADER = PluginLoader()


def ensure_loaded() -> None:
    """Load the installed plug-ins once (see the module's docstring)."""
    LOADER.ensure_loaded()
