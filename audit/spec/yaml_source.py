"""Parse a spec's YAML keeping the line and column of every key and list item.

`parse_yaml` returns plain Python data (dicts, lists, str, int, float, bool, None) for
pydantic, and a `YamlDocument` that maps a path like `("models", 1, "source")` back to a
position in the text.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError

from audit.spec.problems import Loc
from audit.spec.yaml_aliases import AliasLimitError, check_aliases


class YamlSyntaxError(Exception):
    """The text is not valid YAML. `line` and `col` are 1-based."""

    def __init__(self, message: str, line: int | None, col: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass(frozen=True)
class Walk:
    """Where a path led in the document: the deepest node found and its position.

    `found` holds the path segments that exist in the text (in order), `skipped` the
    indexes (into the walked path) of segments that did not, and `at_scalar` is True when
    the walk ended on a plain value while segments were left (a shorthand such as a
    dataset written as its bare name).
    """

    line: int
    col: int
    found: Loc
    skipped: tuple[int, ...]
    at_scalar: bool


@dataclass(frozen=True)
class YamlDocument:
    """A parsed YAML document: plain data plus the position-carrying node tree."""

    data: Any
    root: Any

    def walk(self, loc: Loc, *, skip_unfound: bool) -> Walk:
        """Follow `loc` through the document as far as it goes.

        With `skip_unfound`, a segment missing from the text is passed over and the walk
        goes on with the next one (pydantic puts union member tags into error paths);
        without it, the walk stops at the first missing segment.
        """
        node = self.root
        line, col = _start(node)
        found: list[str | int] = []
        skipped: list[int] = []
        at_scalar = False
        for index, segment in enumerate(loc):
            if (isinstance(node, CommentedMap) and segment in node) or (
                isinstance(node, CommentedSeq)
                and isinstance(segment, int)
                and 0 <= segment < len(node)
            ):
                line, col = _position(node, segment)
                node = node[segment]
                found.append(segment)
            else:
                if not isinstance(node, CommentedMap | CommentedSeq):
                    at_scalar = True
                if not skip_unfound:
                    break
                skipped.append(index)
        return Walk(line + 1, col + 1, tuple(found), tuple(skipped), at_scalar)


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document (YAML 1.2: `yes` stays a string). Raises YamlSyntaxError,
    also for aliases over the limits of `audit.spec.yaml_aliases`."""
    yaml = YAML(typ="rt")
    try:
        root = yaml.load(text)
    except DuplicateKeyError as exc:
        raise _duplicate_key(exc) from None
    except MarkedYAMLError as exc:
        raise _syntax_error(exc) from None
    try:
        check_aliases(root)  # before `to_plain` expands them
    except AliasLimitError as exc:
        raise YamlSyntaxError(exc.message, exc.line, exc.col) from None
    return YamlDocument(data=to_plain(root), root=root)


def to_plain(node: Any) -> Any:
    """ruamel's round-trip types -> plain dict/list/str/int/float/bool/None."""
    if isinstance(node, dict):
        return {to_plain(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    for plain in (bool, int, float, str):  # bool first: a bool is also an int
        if isinstance(node, plain):
            return plain(node)
    if isinstance(node, dt.date):  # also datetime; a spec holds no dates, only text
        return node.isoformat()
    return node


def _start(node: Any) -> tuple[int, int]:
    lc = getattr(node, "lc", None)
    if lc is None or lc.line is None:
        return 0, 0
    return int(lc.line), int(lc.col)


def _position(node: CommentedMap | CommentedSeq, segment: str | int) -> tuple[int, int]:
    """Where a mapping's key or a list's item starts (where the node starts if unknown)."""
    find = node.lc.key if isinstance(node, CommentedMap) else node.lc.item
    try:
        line, col = find(segment)
    except (KeyError, TypeError):
        return _start(node)
    return int(line), int(col)


def _mark(exc: MarkedYAMLError) -> tuple[int | None, int | None]:
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return None, None
    return mark.line + 1, mark.column + 1


def _syntax_error(exc: MarkedYAMLError) -> YamlSyntaxError:
    line, col = _mark(exc)
    problem = exc.problem or "invalid YAML"
    context_mark = exc.context_mark
    opened = (
        f"line {context_mark.line + 1}, column {context_mark.column + 1}"
        if context_mark is not None
        else "above"
    )
    explained = _explain(problem, exc.context or "", opened)
    if explained is not None:
        where, text = explained
        if where == "context" and context_mark is not None:
            line, col = context_mark.line + 1, context_mark.column + 1
        return YamlSyntaxError(f"invalid YAML: {text}", line, col)
    message = f"invalid YAML: {problem}"
    if exc.context:
        context = exc.context
        if exc.context_mark is not None and exc.problem_mark is not None:
            context += f" started at line {exc.context_mark.line + 1}"
        message += f" ({context})"
    return YamlSyntaxError(message, line, col)


def _explain(problem: str, context: str, opened: str) -> tuple[str, str] | None:
    """The parser's complaint in plain words, and whether it is located at the problem
    ('problem') or where the construct it concerns began ('context'); None when it is
    not one we know."""
    if "'\\t'" in problem or "\t" in problem:
        return "problem", "a tab character; indent with spaces, not tabs"
    if problem.startswith("expected <block end>"):
        if "'-'" in problem or "<block sequence start>" in problem:
            return "problem", (
                "this list item ('- ') is not indented like the lines above: items of one "
                "list start in the same column, and a list under a key is indented under it"
            )
        return "problem", (
            "the indentation does not match the lines above: this line is indented more or "
            "less than the keys beside it (keys of one mapping start in one column; in a "
            "list item they line up with the first key after the '- ')"
        )
    if problem == "mapping values are not allowed here":
        return "problem", (
            "unexpected ':' here: either this line is indented deeper than the key above "
            "it, or a value holds ': ' and must be quoted (write key: \"a: b\")"
        )
    if problem == "could not find expected ':'" and "simple key" in context:
        return "context", (
            "this line has no ':' after its key; write 'key: value' (or '- value' for a list item)"
        )
    for close, kind in (("}", "{...} mapping"), ("]", "[...] list")):
        if problem.startswith(f"expected ',' or '{close}'"):
            opener = "{" if close == "}" else "["
            return "problem", (
                f"the '{opener}' at {opened} is not closed where it should be: a '{close}' "
                f"is missing, or a ',' between two entries of the {kind}"
            )
    if context == "while scanning a quoted scalar" and "end of stream" in problem:
        return "context", "this quote is never closed: add the matching quote at its end"
    if problem.startswith("found character") and "cannot start any token" in problem:
        char = problem.split("'")[1] if problem.count("'") >= 2 else "this character"
        return "problem", f"a value cannot start with '{char}': put the value in quotes"
    if problem.startswith("found undefined alias"):
        return "problem", (
            "a value starting with '*' refers to an anchor ('&name') that is not defined; "
            "to write a value that starts with '*', put it in quotes"
        )
    if problem == "but found another document":
        return "problem", "a second YAML document ('---'); a spec is a single document"
    return None


def _duplicate_key(exc: DuplicateKeyError) -> YamlSyntaxError:
    line, col = _mark(exc)
    problem = exc.problem or "duplicate key"
    key = problem.split('"')[1] if problem.count('"') >= 2 else "?"
    first = exc.context_mark.line + 1 if exc.context_mark is not None else None
    message = f"key '{key}' appears twice in the same mapping"
    if first is not None:
        message += f" (the mapping starts at line {first})"
    return YamlSyntaxError(message, line, col)
