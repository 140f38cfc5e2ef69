"""A registered plug-in re-registered, for one test, at another card version or as the
plug-in of an installed distribution (the way an entry point registers it), and put back
as it was (same entry, origin and place) afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from audit.plugins import _registering  # what a loading entry point sets
from audit.registry import Registry
from audit.scoring.catalog import ScorerEntry


@contextmanager
def registered_as(
    registry: Registry[Any, Any],
    name: str,
    *,
    version: str = "1",
    distribution: str | None = None,
) -> Iterator[None]:
    """Plug-in `name` of `registry` with card version `version`, registered by the entry
    point of `distribution` ("name==version") when one is given."""
    entry = registry.entry(name)
    saved = [dict(d) for d in _state(registry)]
    card = entry.card.model_copy(update={"version": version})
    if isinstance(entry, ScorerEntry):  # a scorer's info repeats the version
        changed = replace(entry, card=card, info=replace(entry.info, version=version))
    else:
        changed = replace(entry, card=card)
    registry.unregister(name)
    try:
        _register(registry.register, changed, distribution)
        yield
    finally:
        _restore(_state(registry), saved)


def _register(register: Callable[[Any], Any], entry: Any, distribution: str | None) -> None:
    """`register(entry)`, as the entry point of `distribution` would when one is given."""
    if distribution is None:
        register(entry)
        return
    dist, _, dist_version = distribution.partition("==")
    with _registering(f"{dist} {dist_version} (entry point test)", distribution):
        register(entry)


def _restore(tables: list[dict[str, Any]], saved: list[dict[str, Any]]) -> None:
    for table, before in zip(tables, saved, strict=True):
        table.clear()
        table.update(before)


def _state(registry: Registry[Any, Any]) -> list[dict[str, Any]]:
    """The registry's per-name tables (entries, origins, distributions, loaded objects)."""
    return [registry._entries, registry._origins, registry._distributions, registry._loaded]


@contextmanager
def head_kind_as(
    name: str, *, version: str = "1", distribution: str | None = None
) -> Iterator[None]:
    """Head kind `name` at `version`, registered by the entry point of `distribution`
    ("name==version") when one is given; put back as it was afterwards."""
    from audit.extrinsic.head_kinds import HEAD_KINDS

    tables = [HEAD_KINDS._entries, HEAD_KINDS._origins, HEAD_KINDS._distributions]
    saved = [dict(t) for t in tables]
    changed = replace(HEAD_KINDS.entry(name), version=version)
    HEAD_KINDS.unregister(name)
    try:
        _register(HEAD_KINDS.register, changed, distribution)
        yield
    finally:
        _restore(tables, saved)
