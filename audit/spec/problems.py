"""Spec problems: what is wrong, where (file:line:col and field path), and how to print it.

A `Finding` is a problem located by its path in the spec data (`("models", 1, "source")`);
the loader turns it into a `SpecProblem` with the file's line and column. `SpecError`
carries every problem of a spec at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from audit.errors import AuditUserError

Severity = Literal["error", "warning"]
Loc = tuple[str | int, ...]

_MAX_SHOWN = 80


@dataclass(frozen=True)
class Finding:
    """A problem found in the spec data, located by its path (keys and list indexes)."""

    loc: Loc
    message: str
    got: str | None = None
    expected: str | None = None
    severity: Severity = "error"


@dataclass(frozen=True)
class SpecProblem:
    """One problem in a spec file. `line` and `col` are 1-based; None when unknown."""

    file: str
    line: int | None
    col: int | None
    field: str  # dotted path like `models[1].source`; '' for the whole file
    message: str
    got: str | None = None
    expected: str | None = None
    severity: Severity = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def format(self) -> str:
        """`file:line:col: field: message (got X; expected Y)`; warnings say so first."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        text = f"{where}: "
        if self.severity == "warning":
            text += "warning: "
        if self.field:
            text += f"{self.field}: "
        text += self.message
        extra = []
        if self.got is not None:
            extra.append(f"got {self.got}")
        if self.expected is not None:
            extra.append(f"expected {self.expected}")
        if extra:
            text += f" ({'; '.join(extra)})"
        return text

    def __str__(self) -> str:
        return self.format()


def format_problems(problems: Iterable[SpecProblem]) -> str:
    """All problems, one per line, in file order (errors and warnings as given)."""
    return "\n".join(p.format() for p in problems)


class SpecError(AuditUserError):
    """A spec has one or more errors. `problems` holds all of them (warnings excluded)."""

    def __init__(self, problems: Sequence[SpecProblem]) -> None:
        self.problems: list[SpecProblem] = list(problems)
        count = len(self.problems)
        header = f"{count} problem{'s' if count != 1 else ''} in the spec:"
        super().__init__(header + "\n" + format_problems(self.problems))


def field_path(loc: Loc) -> str:
    """`("models", 1, "source")` -> `models[1].source`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def show(value: Any) -> str:
    """A short, YAML-looking rendering of a value for `got ...` (strings quoted)."""
    text = _render(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _render(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    return repr(value)


def format_number(value: object) -> str:
    """0.0 -> '0', 0.5 -> '0.5', 3 -> '3'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def one_of(names: Iterable[str], kind: str = "name") -> str:
    """`one of a, b, c`, or `no <kind> is available` when there is none."""
    listed = ", ".join(names)
    return f"one of {listed}" if listed else f"nothing: no {kind} is available"
