"""Limits on YAML aliases (`*name`), checked before the parsed spec is expanded.

An alias refers to an anchored node (`&name`) without copying it, so a few lines of
nested aliases ("9 levels of 9 aliases") stand for hundreds of millions of values once
expanded into plain data. `check_aliases` walks the parsed tree once, counting each
aliased node at its expanded size, and refuses a document with more than
`MAX_ALIASES` aliases to mappings or lists, or an expansion of more than `MAX_VALUES`
values; each refusal names the line of the alias that goes over (for an alias in a
list, the line where the list starts). (An alias inside the
node it names is read as null by the parser, so there is no cycle to expand.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

#: Aliases to mappings or lists a spec may use (a real spec uses a handful).
MAX_ALIASES = 100
#: Values (mappings, lists and scalars) a spec may hold once its aliases are expanded
#: (a large real spec holds a few thousand).
MAX_VALUES = 100_000


class AliasLimitError(Exception):
    """Aliases over a limit; `line` and `col` (1-based) are where the alias is used."""

    def __init__(self, message: str, line: int | None, col: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass
class _Walk:
    aliases: int = 0
    values: int = 0
    sizes: dict[int, int] = field(default_factory=dict)  # id(node) -> expanded size


def check_aliases(root: Any) -> None:
    """Raise AliasLimitError when the document under `root` goes over a limit."""
    _size(root, _Walk(), None, None)


def _size(node: Any, walk: _Walk, parent: Any, key: Any) -> int:
    """The expanded size of `node` (1 for a scalar), counting aliases and values."""
    if not isinstance(node, CommentedMap | CommentedSeq):
        walk.values += 1
        _check_values(walk, parent, key)
        return 1
    ident = id(node)
    if ident in walk.sizes:  # an alias: the node again, at its full size
        walk.aliases += 1
        if walk.aliases > MAX_ALIASES:
            raise AliasLimitError(
                f"more than {MAX_ALIASES} aliases ('*name') to mappings or lists; a spec "
                f"uses at most {MAX_ALIASES}: write the values out, or share fewer",
                *_where(parent, key),
            )
        walk.values += walk.sizes[ident]
        _check_values(walk, parent, key)
        return walk.sizes[ident]
    size = 1
    walk.values += 1
    children = node.items() if isinstance(node, CommentedMap) else enumerate(node)
    for child_key, child in children:
        size += _size(child, walk, node, child_key)
    walk.sizes[ident] = size
    return size


def _check_values(walk: _Walk, parent: Any, key: Any) -> None:
    if walk.values > MAX_VALUES:
        raise AliasLimitError(
            f"the aliases ('*name') expand the spec to more than {MAX_VALUES:,} values "
            f"(a spec holds at most {MAX_VALUES:,}): write the values out, or alias "
            "fewer and smaller mappings or lists",
            *_where(parent, key),
        )


def _where(parent: Any, key: Any) -> tuple[int | None, int | None]:
    """1-based line and column of where `parent[key]` is written: its key in a mapping;
    in a list, where the list starts (the parser keeps an alias item's position as its
    anchor's, elsewhere in the text). None when unknown."""
    lc = getattr(parent, "lc", None)
    if lc is None or lc.line is None:
        return None, None
    if isinstance(parent, CommentedMap):
        try:
            line, col = lc.key(key)
            return int(line) + 1, int(col) + 1
        except (KeyError, TypeError):
            pass
    return int(lc.line) + 1, int(lc.col) + 1
