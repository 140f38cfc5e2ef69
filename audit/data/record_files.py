"""Whole-file record formats shared by the readers: a JSON array (read element by
element, each with the line it starts on), a pickle of plain data (lists, dicts, strings,
numbers) that never runs code, and Parquet. The record readers give (number, record) with
the record's 0-based position, `read_json_objects` (line, object) like JSON Lines; every
error names the file and the record or line. Line-based formats (CSV/TSV, JSON Lines) are
in `audit.data.reading`."""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from audit.data.reading import json_constant, read_text
from audit.errors import DataError


def read_json_objects(
    path: Path, *, item: str = "an object", non_standard_numbers: bool = False
) -> list[tuple[int, Mapping[str, Any]]]:
    """(1-based line where it starts, object) for every element of a file holding one JSON
    array of objects: the array read like JSON Lines. An element that is not an object is
    an error naming its line and `item` (what each should be). `non_standard_numbers` as
    in `read_json_list`."""
    objects: list[tuple[int, Mapping[str, Any]]] = []
    elements = read_json_list(
        path, expected=f"records ({item} each)", non_standard_numbers=non_standard_numbers
    )
    for number, (line, value) in enumerate(elements):
        if not isinstance(value, dict):
            raise DataError(
                f"{path}:{line}: element {number} (0-based) of the array is a JSON "
                f"{_json_kind(value)}; expected {item}"
            )
        objects.append((line, value))
    return objects


def read_json_list(
    path: Path, *, expected: str, non_standard_numbers: bool = False
) -> list[tuple[int, Any]]:
    """(1-based line where it starts, value) for every element of a file holding one JSON
    array (`expected` names what the array should hold, for the messages).

    The array is read element by element, so an error names its line and what was
    expected there: the opening '[' (with a hint when the file looks like JSON Lines), a
    value, ',' or ']' between elements, nothing after the closing ']'. With
    `non_standard_numbers`, NaN and (-)Infinity are read as `NonStandardNumber` markers
    (`audit.data.reading`) for the caller to refuse."""
    text = read_text(path)
    decoder = _STRICT_DECODER if non_standard_numbers else _DECODER
    lines = _LineCounter(text)
    position = _skip_blanks(text, 0)
    if not text.startswith("[", position):
        raise DataError(_not_an_array(path, text, position, expected))
    position = _skip_blanks(text, position + 1)
    elements: list[tuple[int, Any]] = []
    closed = text.startswith("]", position)
    while not closed:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{path}:{exc.lineno}: malformed JSON at column {exc.colno} ({exc.msg}); "
                f"expected a JSON array of {expected}"
            ) from None
        elements.append((lines.line_of(position), value))
        position = _skip_blanks(text, end)
        closed = text.startswith("]", position)
        if not closed and not text.startswith(",", position):
            got = repr(text[position]) if position < len(text) else "the end of the file"
            raise DataError(
                f"{path}:{lines.line_of(position)}: expected ',' or ']' after element "
                f"{len(elements) - 1} (0-based) of the array, got {got}"
            )
        if not closed:
            position = _skip_blanks(text, position + 1)
    end = _skip_blanks(text, position + 1)
    if end < len(text):
        raise DataError(
            f"{path}:{lines.line_of(end)}: text after the end of the JSON array; expected "
            f"one array of {expected} and nothing else"
        )
    return elements


_DECODER = json.JSONDecoder()
_STRICT_DECODER = json.JSONDecoder(parse_constant=json_constant(True))
_BLANKS = re.compile(r"[ \t\n\r]*")  # JSON's white space


def _skip_blanks(text: str, position: int) -> int:
    """The position of the first character at or after `position` that is not white space."""
    match = _BLANKS.match(text, position)
    assert match is not None  # the pattern matches the empty string
    return match.end()


class _LineCounter:
    """1-based line numbers of increasing positions in a text, counted once."""

    def __init__(self, text: str) -> None:
        self._text, self._position, self._line = text, 0, 1

    def line_of(self, position: int) -> int:
        self._line += self._text.count("\n", self._position, position)
        self._position = position
        return self._line


def _not_an_array(path: Path, text: str, position: int, expected: str) -> str:
    """What is wrong with a file that does not open with '['."""
    if position == len(text):
        return f"{path}: the file is empty; expected a JSON array of {expected}"
    line = text.count("\n", 0, position) + 1
    try:
        value, end = _DECODER.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        return (
            f"{path}:{exc.lineno}: malformed JSON at column {exc.colno} ({exc.msg}); "
            f"expected a JSON array of {expected}"
        )
    message = f"{path}:{line}: expected a JSON array of {expected}, got a JSON {_json_kind(value)}"
    if isinstance(value, dict) and _skip_blanks(text, end) < len(text):
        message += "; this file looks like JSON Lines (one object per line): name it .jsonl"
    return message


def _json_kind(value: object) -> str:
    """What JSON calls the type of a parsed value."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "null" if value is None else "number"


class _DataOnlyUnpickler(pickle.Unpickler):
    """Refuses every class: only built-in containers, strings and numbers load."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name}")


def read_pickle_records(
    path: Path, *, item: str = "a dict", export_hint: str = ""
) -> list[tuple[int, Mapping[str, Any]]]:
    """The dicts of a pickled list (or tuple). Reading runs no code from the file: the
    unpickler refuses every class, so a pickle of anything but plain data (a DataFrame,
    a custom object) is an error that says so and what to do instead (`export_hint`)."""
    try:
        with path.open("rb") as handle:
            data = _DataOnlyUnpickler(handle).load()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except pickle.UnpicklingError as exc:
        raise DataError(
            f"{path}: the pickle holds a Python object of class {exc} (or is not a pickle); "
            "only lists/dicts of strings and numbers are read from a pickle, so no code in "
            f"a data file ever runs.{' ' + export_hint if export_hint else ''}"
        ) from None
    except (EOFError, ValueError, IndexError, KeyError) as exc:
        raise DataError(f"{path}: not a readable pickle ({exc})") from None
    if not isinstance(data, list | tuple):
        raise DataError(
            f"{path}: the pickle holds a {type(data).__name__}, expected a list of records "
            f"({item} each)"
        )
    return list(_mappings(path, data, item))


def read_parquet_records(path: Path) -> list[tuple[int, Mapping[str, Any]]]:
    """The rows of a Parquet file as records (column name -> value), in file order."""
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises its own error types
        raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
    return [
        (number, {str(k): v for k, v in record.items()})
        for number, record in enumerate(frame.to_dict(orient="records"))
    ]


def _mappings(
    path: Path, data: Sequence[Any], item: str
) -> Iterator[tuple[int, Mapping[str, Any]]]:
    for number, record in enumerate(data):
        if not isinstance(record, dict):
            raise DataError(
                f"{path}: record {number} is a {type(record).__name__}, expected {item}"
            )
        yield number, record
