"""Low-level reading shared by every loader: text with a clear decode error, CSV/TSV
records with their 1-based line numbers (with a header, or headerless rows), JSON Lines
objects (streamed, each with its line), one-entry-per-line lists, and required cells.

Whole-file record formats (a JSON array, a data-only pickle, Parquet) are in
`audit.data.record_files`. Every error names the file and, where there is one, the line.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from audit.errors import DataError

#: "csv": double quotes group cells (RFC 4180); "none": a quote is a literal character
#: (the STS Benchmark and GLUE files, whose sentences hold unbalanced quotes).
Quoting = Literal["csv", "none"]
#: What a blank line between data rows is: an error naming it, or skipped.
BlankRows = Literal["error", "skip"]


def _csv_quoting(quoting: Quoting) -> Literal[0, 3]:
    return csv.QUOTE_NONE if quoting == "none" else csv.QUOTE_MINIMAL


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


def read_table(
    path: Path,
    delimiter: str,
    *,
    quoting: Quoting = "csv",
    blank_rows: BlankRows = "error",
) -> Table:
    """Read a CSV/TSV file with a header row.

    A row whose cell count differs from the header's is an error naming the line; a
    blank line (or a row of blank cells) before the last data row is one too unless
    `blank_rows="skip"`; blank lines at the very end are ignored.
    """
    text = read_text(path)
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=delimiter,
        strict=True,
        quoting=_csv_quoting(quoting),
    )
    header: list[str] | None = None
    records: list[Record] = []
    blank_line: int | None = None
    previous_end = 0
    try:
        for row in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not row or all(not cell.strip() for cell in row):
                if blank_rows == "error":
                    blank_line = blank_line or start
                continue
            if blank_line is not None:
                raise DataError(f"{path}:{blank_line}: empty row (remove it)")
            if header is None:
                header = row
                continue
            if len(row) != len(header):
                more = "more" if len(row) > len(header) else "fewer"
                raise DataError(
                    f"{path}:{start}: malformed row: {len(row)} cells, {more} cells than the "
                    f"header has columns ({len(header)}: {', '.join(repr(c) for c in header)})"
                )
            records.append(Record(start, dict(zip(header, row, strict=True))))
    except csv.Error as exc:
        raise DataError(f"{path}:{reader.line_num}: malformed row ({exc})") from None
    if header is None:
        raise DataError(f"{path}: the file is empty (expected a header row)")
    return Table(path, tuple(header), records)


def read_rows(
    path: Path, delimiter: str, *, quoting: Quoting = "csv"
) -> list[tuple[int, list[str]]]:
    """(first line, cells) of every row of a delimited file without a header; rows may
    differ in length. Blank lines (only spaces) anywhere are skipped."""
    text = read_text(path)
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter, quoting=_csv_quoting(quoting)
    )
    rows: list[tuple[int, list[str]]] = []
    previous_end = 0
    try:
        for row in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            rows.append((start, row))
    except csv.Error as exc:
        raise DataError(f"{path}:{reader.line_num}: malformed row ({exc})") from None
    return rows


def read_lines(path: Path) -> list[tuple[int, str]]:
    """(1-based line, text stripped) of every non-blank line: a list of one entry a line."""
    lines = read_text(path).split("\n")
    return [(n, line.strip()) for n, line in enumerate(lines, start=1) if line.strip()]


@dataclass(frozen=True)
class NonStandardNumber:
    """`NaN`, `Infinity` or `-Infinity` as written in a JSON file: Python's json module
    reads them, but JSON has no such numbers. A reader that asks for them
    (`non_standard_numbers=True`) gets this marker in their place, so that its caller can
    refuse the value naming the line and column instead of reading a float nan."""

    token: str

    def __str__(self) -> str:
        return self.token


def json_constant(keep: bool) -> Callable[[str], Any] | None:
    """The `parse_constant` of a JSON decoder: the marker when `keep`, else json's own."""
    return NonStandardNumber if keep else None


#: What `iter_jsonl` advises for a file that holds a JSON array, by default.
WRITE_ONE_PER_LINE = "write one object per line"


class JsonLinesWords(TypedDict, total=False):
    """What `iter_jsonl`'s messages call what it expects (its keyword arguments)."""

    expected: str | None
    not_json: str
    json_array: str


def read_jsonl(
    path: Path, *, non_standard_numbers: bool = False, **words: Unpack[JsonLinesWords]
) -> list[tuple[int, dict[str, Any]]]:
    """(1-based line, object) for every line of a JSON Lines file (see `iter_jsonl`)."""
    return list(iter_jsonl(path, non_standard_numbers=non_standard_numbers, **words))


def iter_jsonl(
    path: Path,
    *,
    expected: str | None = None,
    not_json: str = "malformed JSON",
    json_array: str = WRITE_ONE_PER_LINE,
    non_standard_numbers: bool = False,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line, object) for every line of a JSON Lines file, read a line at a time
    (a training set of hundreds of megabytes is never held as one string).

    A line that does not parse (called `not_json` in the message), a line that is not a
    JSON object ("expected a JSON object per line, got list", or "a JSON list, expected
    <expected>" when the caller says what object it needs), a line that is not UTF-8, and
    a blank line before the last object are errors naming the line; blank lines at the
    very end are ignored. A file whose first line opens a JSON array (a pretty-printed
    array, or a whole array on one line) says so and what to do (`json_array`, e.g.
    "name it .json" where the caller reads arrays too); an object left open at the end of
    its line says that JSON Lines wants each object whole on one line. With
    `non_standard_numbers`, NaN and (-)Infinity are read as `NonStandardNumber` markers.
    """
    blank_line: int | None = None
    first = True
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    with handle:
        # Binary lines split on b"\n" only: U+2028 and friends may stand unescaped inside
        # JSON strings.
        for number, raw in enumerate(handle, start=1):
            line = _decode_line(path, number, raw).rstrip("\r\n")
            if not line.strip():
                blank_line = blank_line or number
                continue
            if blank_line is not None:
                raise DataError(f"{path}:{blank_line}: empty line (remove it)")
            array = first and line.lstrip().startswith("[")
            first = False
            try:
                value = json.loads(line, parse_constant=json_constant(non_standard_numbers))
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{path}:{number}: {not_json} at column {exc.colno} ({exc.msg})"
                    + _parse_hint(line, exc, json_array if array else None)
                ) from None
            if not isinstance(value, dict):
                kind = type(value).__name__
                raise DataError(
                    (
                        f"{path}:{number}: expected a JSON object per line, got {kind}"
                        if expected is None
                        else f"{path}:{number}: a JSON {kind}, expected {expected}"
                    )
                    + (f"; this file looks like a JSON array: {json_array}" if array else "")
                )
            yield number, value


def _parse_hint(line: str, error: json.JSONDecodeError, json_array: str | None) -> str:
    """Why a JSON Lines line may not parse: the file is a JSON array (`json_array` says
    what to do), or an object is spread over several lines."""
    if json_array is not None:
        return (
            "; expected one JSON object per line (JSON Lines), but this file looks like a "
            f"JSON array: {json_array}"
        )
    if error.pos >= len(line.rstrip()):
        return (
            "; the JSON does not end on this line: JSON Lines holds each object whole on one line"
        )
    return ""


def _decode_line(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path}:{number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file "
            "as UTF-8"
        ) from None


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
