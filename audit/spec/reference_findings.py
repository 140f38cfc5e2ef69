"""The findings every section's checks share: an unknown plug-in name (with a "did you
mean") or its options, a name that is not in the spec's section it refers to, and the
names of a section that validated whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from audit.registry import Registry, did_you_mean
from audit.spec.options_check import check_options
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.sections import Items

T = TypeVar("T")


def spec_names(items: Items[T] | None, name_of: Callable[[T], str]) -> list[str] | None:
    """The names in a list that validated whole; None when it did not (or is missing)."""
    if items is None or not items.complete:
        return None
    return [name_of(item) for _, item in items.valid()]


def unknown_name(
    kind: str, name: str, loc: Loc, known: list[str], suggested: list[str] | None = None
) -> Finding:
    message = f"unknown {kind} '{name}'"
    hint = did_you_mean(name, known)
    if hint:
        message += f"; {hint}"
    listed = known if suggested is None else suggested
    return Finding((*loc, "name"), message, expected=one_of(listed, kind))


def named_plugin(
    kind: str,
    registry: Registry[Any, Any],
    name: str,
    options: Mapping[str, Any],
    loc: Loc,
    key: str,
) -> list[Finding]:
    """The finding of an unknown plug-in name (the spec entry at `loc` names it in `key`),
    else those of its options."""
    if name not in registry:
        return [unknown_name(kind, name, (*loc, key), registry.names())]
    return check_options(
        options, registry.entry(name).options, loc=(*loc, "options"), what=f"{kind} '{name}'"
    )


def not_in_spec(kind: str, name: str, loc: Loc, present: list[str], section: str) -> Finding:
    message = f"{kind} '{name}' is not in `{section}` of this spec"
    hint = did_you_mean(name, present)
    if hint:
        message += f"; {hint}"
    return Finding(loc, message, got=show(name), expected=one_of(present))
