"""Turn pydantic's validation errors into plain-worded, located spec problems.

pydantic reports `("models", 0, "source", "pip-source", "pip")` with messages like
"Input should be a valid string"; users get `models[0].source.pip: must be text (got 5;
expected a string)` at the line and column of that key. Union member tags in error paths
are dropped, and the errors of one union's alternatives are merged into one problem.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Union

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from audit.registry import did_you_mean
from audit.spec.models import ID_PATTERN, AuditSpec
from audit.spec.problems import Loc, SpecProblem, field_path, format_number, one_of, show
from audit.spec.yaml_source import YamlDocument

# (message, expected) for a value of the wrong type, with the pydantic error types meaning it
_WRONG_TYPE_WORDS: list[tuple[tuple[str, str], tuple[str, ...]]] = [
    (("must be text", "a string"), ("string_type",)),
    (("must be a whole number", "an integer"), ("int_type", "int_parsing", "int_from_float")),
    (("must be a number", "a number"), ("float_type", "float_parsing")),
    (("must be true or false", "true or false"), ("bool_type", "bool_parsing")),
    (("must be a list", "a list"), ("list_type", "tuple_type")),
    (
        ("must be a mapping of keys to values", "a mapping"),
        ("dict_type", "model_type", "model_attributes_type"),
    ),
]
# error type -> (message, expected)
_WRONG_TYPE = {kind: words for words, kinds in _WRONG_TYPE_WORDS for kind in kinds}

_SOURCE_KEYS = ["hf", "path", "gguf", "pip"]


@dataclass(frozen=True)
class _Located:
    error: ErrorDetails
    path: Loc  # the path as written in the YAML (tags removed)
    line: int
    col: int
    union_group: Loc | None  # the error path up to its last union tag
    union_member: str | None


def problems_from_validation(
    exc: ValidationError, doc: YamlDocument, file: str
) -> list[SpecProblem]:
    """Every pydantic error of `exc` as a SpecProblem at its YAML position."""
    located = [_locate(error, doc) for error in exc.errors(include_url=False)]
    problems: list[SpecProblem] = []
    for item in _merge_unions(located, problems, file):
        problems.append(_problem(item, file))
    return problems


def _locate(error: ErrorDetails, doc: YamlDocument) -> _Located:
    loc: Loc = tuple(error["loc"])
    is_missing = error["type"] == "missing"
    walked = loc[:-1] if is_missing else loc
    walk = doc.walk(walked, skip_unfound=True)
    path = walk.found + ((loc[-1],) if is_missing and loc else ())
    group: Loc | None = None
    member: str | None = None
    if walk.skipped:
        last = walk.skipped[-1]
        group, member = loc[:last], str(loc[last])
    return _Located(error, path, walk.line, walk.col, group, member)


def _merge_unions(
    located: list[_Located], problems: list[SpecProblem], file: str
) -> list[_Located]:
    """Keep non-union errors; for each union with several failing members, keep the
    members that got deeper into the value, or merge them into one 'wrong type' problem."""
    groups: dict[Loc, list[_Located]] = {}
    for item in located:
        if item.union_group is not None:
            groups.setdefault(item.union_group, []).append(item)
    kept: list[_Located] = []
    merged: set[Loc] = set()
    for item in located:
        group = item.union_group
        members = groups.get(group, []) if group is not None else []
        if group is None or len({m.union_member for m in members}) < 2:
            kept.append(item)
            continue
        if group in merged:
            continue
        merged.add(group)
        shallow = min(len(m.path) for m in members)
        deeper = [m for m in members if len(m.path) > shallow]
        if deeper:
            kept.extend(deeper)
        else:
            problems.append(_wrong_type_of_union(members, file))
    return kept


def _wrong_type_of_union(members: list[_Located], file: str) -> SpecProblem:
    expected: list[str] = []
    for member in members:
        words = _WRONG_TYPE.get(member.error["type"])
        phrase = words[1] if words else member.error["msg"]
        if phrase not in expected:
            expected.append(phrase)
    first = members[0]
    return SpecProblem(
        file=file,
        line=first.line,
        col=first.col,
        field=field_path(first.path),
        message="has the wrong type",
        got=show(first.error["input"]),
        expected=_either(expected),
    )


def _either(phrases: list[str]) -> str:
    """['a', 'b', 'c'] -> 'a, b or c'."""
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _problem(item: _Located, file: str) -> SpecProblem:
    message, got, expected = plain_words(item.error, item.path)
    return SpecProblem(
        file=file,
        line=item.line,
        col=item.col,
        field=field_path(item.path),
        message=message,
        got=got,
        expected=expected,
    )


def plain_words(error: ErrorDetails, path: Loc) -> tuple[str, str | None, str | None]:
    """(message, got, expected) in plain words for one pydantic error of an AuditSpec.

    `path` is where the error is in the YAML (for the wording only).
    """
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    value = error["input"]
    got: str | None = show(value)

    if kind == "missing":
        return "required key is missing", None, None
    if kind == "extra_forbidden":
        return _unknown_key(tuple(error["loc"]), path)
    if kind in _WRONG_TYPE:
        message, expected = _WRONG_TYPE[kind]
        return message, got, expected
    if kind == "literal_error":
        if path == ("spec_version",):
            return "unsupported spec version", got, str(ctx["expected"])
        message = "is not an accepted value"
        if isinstance(value, str):
            hint = did_you_mean(value, re.findall(r"'([^']*)'", str(ctx["expected"])))
            message += f"; {hint}" if hint else ""
        return message, got, f"one of {ctx['expected']}"
    if kind == "source_kind":
        return _source_kind(value)
    bound = _bound_words(kind, ctx)
    if bound is not None:
        return bound, got, None
    if kind == "too_short":
        n = ctx.get("min_length", 1)
        return f"needs at least {n} item{'s' if n != 1 else ''}", got, None
    if kind == "too_long":
        return f"holds more than {ctx.get('max_length')} items", got, None
    if kind == "string_pattern_mismatch":
        if ctx.get("pattern") == ID_PATTERN:
            return (
                "is not a valid name",
                got,
                "letters, digits, '_', '.' and '-', starting with a letter or digit",
            )
        return "does not match the required pattern", got, str(ctx.get("pattern"))
    if "got" in ctx or "expected" in ctx:  # our own PydanticCustomError
        return error["msg"], ctx.get("got"), ctx.get("expected")
    message = error["msg"]
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:], got, None


def _bound_words(kind: str, ctx: dict[str, Any]) -> str | None:
    words = {
        "greater_than": ("gt", "must be greater than"),
        "greater_than_equal": ("ge", "must be at least"),
        "less_than": ("lt", "must be less than"),
        "less_than_equal": ("le", "must be at most"),
    }
    if kind not in words:
        return None
    key, text = words[kind]
    return f"{text} {format_number(ctx.get(key))}"


def _source_kind(value: Any) -> tuple[str, str | None, str | None]:
    message = "a model source needs exactly one of the keys hf, path, gguf or pip"
    if isinstance(value, dict):
        for key in value:
            hint = did_you_mean(str(key), _SOURCE_KEYS)
            if hint:
                message += f"; for '{key}', {hint}"
                break
        got = "the keys " + ", ".join(str(k) for k in value) if value else "an empty mapping"
    else:
        got = show(value)
    return message, got, "e.g. {hf: bert-base-uncased} or {path: ~/models/minilm}"


def _unknown_key(loc: Loc, path: Loc) -> tuple[str, str | None, str | None]:
    key = str(loc[-1])
    allowed = _allowed_keys(loc[:-1])
    message = f"unknown key '{key}'"
    hint = did_you_mean(key, allowed)
    if hint:
        message += f"; {hint}"
    where = field_path(path[:-1]) or "the top level of a spec"
    return message, None, f"at {where}, {one_of(allowed)}"


def _allowed_keys(loc: Loc) -> list[str]:
    """Field names of the model that `loc` (a pydantic error path with tags) points at."""
    model = _model_at(AuditSpec, loc)
    return list(model.model_fields) if model is not None else []


def _model_at(annotation: Any, loc: Loc) -> type[BaseModel] | None:
    current = annotation
    for segment in loc:
        current = _step(current, segment)
        if current is None:
            return None
    current = _strip(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _step(annotation: Any, segment: str | int) -> Any:
    current = _strip(annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        field = current.model_fields.get(str(segment))
        return field.annotation if field is not None else None
    origin = typing.get_origin(current)
    args = typing.get_args(current)
    if origin in (list, tuple) and isinstance(segment, int):
        return args[0] if args else None
    if origin is dict:
        return args[1] if len(args) == 2 else None
    if origin in (Union, types.UnionType):
        for member in args:
            if _tag_of(member) == segment:
                return member
        models = [m for m in args if _is_model(_strip(m))]
        return models[0] if len(models) == 1 else None
    return None


def _strip(annotation: Any) -> Any:
    """Remove Annotated[...] and Optional wrappers."""
    while True:
        if typing.get_origin(annotation) is Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        args = typing.get_args(annotation)
        if typing.get_origin(annotation) in (Union, types.UnionType) and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1:
                annotation = rest[0]
                continue
        return annotation


def _tag_of(member: Any) -> str | None:
    if typing.get_origin(member) is Annotated:
        for meta in typing.get_args(member)[1:]:
            tag = getattr(meta, "tag", None)
            if isinstance(tag, str):
                return tag
    return None


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def dedupe(problems: Iterable[SpecProblem]) -> list[SpecProblem]:
    """Drop exact repeats, keep order."""
    seen: set[tuple[object, ...]] = set()
    out: list[SpecProblem] = []
    for p in problems:
        key = (p.line, p.col, p.field, p.message, p.got, p.expected, p.severity)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
