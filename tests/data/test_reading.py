"""The shared low-level readers: delimited files with and without a header (quoting
rules, blank rows), JSON Lines read a line at a time, one-entry-per-line lists; every
error names the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.data.reading import iter_jsonl, read_jsonl, read_lines, read_rows, read_table
from audit.errors import DataError


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_quoting_none_keeps_quotes_as_characters(tmp_path: Path) -> None:
    path = write(tmp_path / "g.tsv", 'a\tb\n"He said\tyes"\n')
    with pytest.raises(DataError, match=r"g\.tsv:2: malformed row: 1 cells, fewer cells"):
        read_table(path, "\t")  # CSV quoting joins the two cells into one
    table = read_table(path, "\t", quoting="none")
    assert table.records[0].cells == {"a": '"He said', "b": 'yes"'}


def test_more_cells_than_the_header_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "x.csv", "a,b\n1,2\n1,2,3\n")
    with pytest.raises(DataError, match=r"x\.csv:3: malformed row: 3 cells, more cells than"):
        read_table(path, ",")


def test_blank_rows_are_errors_unless_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "o.tsv", "occupation\tpct\nnurse\t90\n\t\npilot\t\n\n")
    with pytest.raises(DataError, match=r"o\.tsv:3: empty row"):
        read_table(path, "\t")
    table = read_table(path, "\t", blank_rows="skip")
    assert [(r.line, r.cells["occupation"]) for r in table.records] == [(2, "nurse"), (4, "pilot")]


def test_headerless_rows_keep_their_lines_and_lengths(tmp_path: Path) -> None:
    path = write(tmp_path / "s.tsv", 'g\tf\t"x\n\n  \ng\tf\tx\ty\n')
    assert read_rows(path, "\t", quoting="none") == [
        (1, ["g", "f", '"x']),
        (4, ["g", "f", "x", "y"]),
    ]


def test_jsonl_lines_and_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", '\ufeff{"a": 1}\r\n{"b": "x\u2028y"}\n\n\n')
    assert read_jsonl(path) == [(1, {"a": 1}), (2, {"b": "x\u2028y"})]
    write(path, '{"a": 1}\n[1]\n')
    with pytest.raises(DataError, match=r"a\.jsonl:2: expected a JSON object per line, got list"):
        read_jsonl(path)
    with pytest.raises(DataError, match=r"a\.jsonl:2: a JSON list, expected an object with a"):
        list(iter_jsonl(path, expected="an object with a"))
    write(path, '{"a": 1}\n{oops\n')
    with pytest.raises(DataError, match=r"a\.jsonl:2: malformed JSON at column 2"):
        read_jsonl(path)
    with pytest.raises(DataError, match=r"a\.jsonl:2: not valid JSON at column 2"):
        read_jsonl(path, not_json="not valid JSON")
    write(path, '{"a": 1}\n\n{"a": 2}\n')
    with pytest.raises(DataError, match=r"a\.jsonl:2: empty line"):
        read_jsonl(path)
    write(path, b'{"a": 1}\n{"a": "caf\xe9"}\n')
    with pytest.raises(DataError, match=r"a\.jsonl:2: not valid UTF-8 \(byte 0xe9\)"):
        read_jsonl(path)
    with pytest.raises(DataError, match=r"absent\.jsonl: file not found"):
        read_jsonl(tmp_path / "absent.jsonl")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            ' [\n  {"a": 1}\n]\n',
            r"a\.jsonl:1: malformed JSON at column 3 \(Expecting value\); expected one JSON "
            r"object per line \(JSON Lines\), but this file looks like a JSON array: write one "
            r"object per line$",
        ),
        (
            '[{"a": 1}, {"a": 2}]',
            r"a\.jsonl:1: expected a JSON object per line, got list; this file looks like a JSON "
            r"array: write one object per line$",
        ),
        (
            '{"a": 1}\n{\n  "a": 2\n}\n',
            r"a\.jsonl:2: malformed JSON at column 2 \(.*\); the JSON does not end on this "
            r"line: JSON Lines holds each object whole on one line$",
        ),
        ('{"a": 1}\n[1, 2\n', r"a\.jsonl:2: malformed JSON at column 6 \(.*\); the JSON does"),
        ('{"a": 1}\n{"a": 2} x\n', r"a\.jsonl:2: malformed JSON at column 10 \(Extra data\)$"),
    ],
)
def test_jsonl_errors_say_what_json_lines_expects(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "a.jsonl", text)
    with pytest.raises(DataError, match=message):
        read_jsonl(path)


def test_jsonl_is_read_a_line_at_a_time(tmp_path: Path) -> None:
    path = write(tmp_path / "big.jsonl", '{"a": 1}\n{"a": 2}\nnot json\n')
    lines = iter_jsonl(path)
    assert next(lines) == (1, {"a": 1}), "the first object comes before the bad line is read"
    assert next(lines) == (2, {"a": 2})
    with pytest.raises(DataError, match=r":3: malformed JSON"):
        next(lines)


def test_lines_are_stripped_and_blank_ones_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "w.txt", " nurse \n\npilot\r\n  \n")
    assert read_lines(path) == [(1, "nurse"), (3, "pilot")]
