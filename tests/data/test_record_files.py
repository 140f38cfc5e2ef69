"""Whole-file record formats: a JSON array, a data-only pickle (never runs code), and
Parquet; each record numbered, every error naming the file and record."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from audit.data.record_files import read_json_array, read_parquet_records, read_pickle_records
from audit.errors import DataError


class _Touch:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def dump(path: Path, value: object) -> Path:
    path.write_bytes(pickle.dumps(value))
    return path


def test_json_array(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('[{"a": 1}, {"a": 2}]')
    assert read_json_array(path) == [(0, {"a": 1}), (1, {"a": 2})]
    path.write_text('{"a": 1}')
    with pytest.raises(DataError, match=r"r\.json: expected a JSON list of records"):
        read_json_array(path)
    path.write_text('[{"a": 1}, 3]')
    with pytest.raises(DataError, match=r"r\.json: record 1 is a int, expected a row dict"):
        read_json_array(path, item="a row dict")
    path.write_text("[{")
    with pytest.raises(DataError, match=r"r\.json: not valid JSON"):
        read_json_array(path)


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
