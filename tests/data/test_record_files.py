"""Whole-file record formats: a JSON array (each element with its line), a data-only
pickle (never runs code), and Parquet; every error naming the file and the line or
record."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from audit.data.record_files import (
    read_json_list,
    read_json_objects,
    read_parquet_records,
    read_pickle_records,
)
from audit.errors import DataError


class _Touch:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def dump(path: Path, value: object) -> Path:
    path.write_bytes(pickle.dumps(value))
    return path


def test_json_array_elements_keep_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('\ufeff[\n  {"a": 1},\n\n  {"a": [2,\n 3]}, {"a": "x\\ny"}\n]\n')
    assert read_json_objects(path) == [(2, {"a": 1}), (4, {"a": [2, 3]}), (5, {"a": "x\ny"})]
    path.write_text("[1, [2], null]")
    assert read_json_list(path, expected="anything") == [(1, 1), (1, [2]), (1, None)]
    path.write_text(" [ ] ")
    assert read_json_objects(path) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"r\.json: the file is empty; expected a JSON array of records \(a row each\)"),
        (
            '{"a": 1}',
            r"r\.json:1: expected a JSON array of records \(a row each\), got a JSON object$",
        ),
        (
            '\n{"a": 1}\n{"a": 2}\n',
            r"r\.json:2: expected a JSON array of records \(a row each\), got a JSON object; "
            r"this file looks like JSON Lines \(one object per line\): name it \.jsonl",
        ),
        ("oops", r"r\.json:1: malformed JSON at column 1 \(Expecting value\); expected a JSON"),
        (
            '[\n {"a": 1},\n {"a": }\n]',
            r"r\.json:3: malformed JSON at column 8 \(Expecting value\); expected a JSON array",
        ),
        ('[{"a": 1},\n]', r"r\.json:2: malformed JSON at column 1 \(Expecting value\)"),
        (
            '[\n{"a": 1}\n{"a": 2}]',
            r"r\.json:3: expected ',' or '\]' after element 0 \(0-based\) of the array, got '\{'",
        ),
        ('[{"a": 1}', r"r\.json:1: expected ',' or '\]' .*got the end of the file"),
        ('[{"a": 1}]\n[]', r"r\.json:2: text after the end of the JSON array"),
        (
            '[{"a": 1},\n 3]',
            r"r\.json:2: element 1 \(0-based\) of the array is a JSON number; expected a row",
        ),
    ],
)
def test_json_array_errors_name_the_line_and_what_was_expected(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        read_json_objects(path, item="a row")


def test_pickle_of_plain_data_only(tmp_path: Path) -> None:
    assert read_pickle_records(dump(tmp_path / "ok.pkl", ({"a": 1},))) == [(0, {"a": 1})]
    marker = tmp_path / "ran"
    with pytest.raises(DataError, match=r"class pathlib.*touch.*Use JSON"):
        read_pickle_records(dump(tmp_path / "evil.pkl", [_Touch(marker)]), export_hint="Use JSON")
    assert not marker.exists()
    with pytest.raises(DataError, match="holds a dict, expected a list of records"):
        read_pickle_records(dump(tmp_path / "d.pkl", {"a": 1}))
    (tmp_path / "junk.pkl").write_bytes(b"junk")
    with pytest.raises(DataError, match=r"junk\.pkl"):
        read_pickle_records(tmp_path / "junk.pkl")
    with pytest.raises(DataError, match=r"absent\.pkl: file not found"):
        read_pickle_records(tmp_path / "absent.pkl")


def test_parquet(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    pd.DataFrame({"text": ["x", "y"], "code": [1, 0]}).to_parquet(path)
    rows = read_parquet_records(path)
    assert [(n, r["text"], int(r["code"])) for n, r in rows] == [(0, "x", 1), (1, "y", 0)]
    (tmp_path / "bad.parquet").write_text("no")
    with pytest.raises(DataError, match=r"bad\.parquet: not a readable Parquet file"):
        read_parquet_records(tmp_path / "bad.parquet")
