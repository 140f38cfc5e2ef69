"""Whole-file record formats shared by the readers: a JSON array of objects, a pickle of
plain data (lists, dicts, strings, numbers) that never runs code, and Parquet. Each gives
(number, record) with the record's 0-based position, and every error names the file and
the record. Line-based formats (CSV/TSV, JSON Lines) are in `audit.data.reading`.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from audit.data.reading import read_text
from audit.errors import DataError


def read_json_array(path: Path, *, item: str = "an object") -> list[tuple[int, Mapping[str, Any]]]:
    """The objects of a file holding one JSON array (`item` says what each should be)."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records ({item} each)")
    return list(_mappings(path, data, item))


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
