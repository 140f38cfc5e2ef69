"""Low-level reading shared by every loader: text with a clear decode error, CSV/TSV
records with their 1-based line numbers, JSONL objects, and required cells."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import DataError


def read_text(path: Path) -> str:
    """The file's text (UTF-8, optional BOM); a DataError names the file and bad line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"{path}:{line}: not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None


@dataclass(frozen=True)
class Record:
    """One data row of a delimited file: its first line (1-based) and cells by column."""

    line: int
    cells: dict[str, str]


@dataclass(frozen=True)
class Table:
    """A delimited file read whole: header columns and data records."""

    path: Path
    columns: tuple[str, ...]
    records: list[Record]


def read_table(path: Path, delimiter: str) -> Table:
    """Read a CSV/TSV file with a header row.

    A row whose cell count differs from the header's, and a blank line before the last
    data row, are errors naming the line; blank lines at the very end are ignored.
    """
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    records: list[Record] = []
    blank_line: int | None = None
    previous_end = 0
    try:
        for row in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not row or all(not cell.strip() for cell in row):
                blank_line = blank_line or start
                continue
            if blank_line is not None:
                raise DataError(f"{path}:{blank_line}: empty row (remove it)")
            if header is None:
                header = row
                continue
            if len(row) != len(header):
                raise DataError(
                    f"{path}:{start}: malformed row: {len(row)} cells, but the header has "
                    f"{len(header)} columns ({', '.join(repr(c) for c in header)})"
                )
            records.append(Record(start, dict(zip(header, row, strict=True))))
    except csv.Error as exc:
        raise DataError(f"{path}:{reader.line_num}: malformed row ({exc})") from None
    if header is None:
        raise DataError(f"{path}: the file is empty (expected a header row)")
    return Table(path, tuple(header), records)


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(1-based line, object) for every line of a JSON Lines file.

    A line that is not a JSON object, and a blank line before the last object, are
    errors naming the line; blank lines at the very end are ignored.
    """
    objects: list[tuple[int, dict[str, Any]]] = []
    blank_line: int | None = None
    # Split on "\n" only: U+2028 and friends may stand unescaped inside JSON strings.
    lines = read_text(path).split("\n")
    for number, line in enumerate((raw.rstrip("\r") for raw in lines), start=1):
        if not line.strip():
            blank_line = blank_line or number
            continue
        if blank_line is not None:
            raise DataError(f"{path}:{blank_line}: empty line (remove it)")
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{path}:{number}: malformed JSON at column {exc.colno} ({exc.msg})"
            ) from None
        if not isinstance(value, dict):
            raise DataError(
                f"{path}:{number}: expected a JSON object per line, got {type(value).__name__}"
            )
        objects.append((number, value))
    return objects


def require_text(value: object, *, where: str, column: str, strip: bool = False) -> str:
    """A non-blank text cell (`where` is 'file:line' for the message).

    Sentences keep their exact text (a leading space changes a BPE tokenisation); ids,
    labels and type names are read with `strip=True`.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(f"{where}: empty value in column '{column}'")
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise DataError(
            f"{where}: column '{column}' must hold text, got {type(value).__name__} {value!r}"
        )
    text = str(value)
    return text.strip() if strip else text


def require_columns(path: Path, present: tuple[str, ...], needed: dict[str, str]) -> None:
    """Each needed column (role -> column name) must be present; names what is there."""
    for role, column in needed.items():
        if column not in present:
            raise DataError(
                f"{path}: column '{column}' (for {role}) not found; "
                f"columns present: {', '.join(repr(c) for c in present) or 'none'}"
            )
