"""Reading the STS Benchmark files: typed rows, extra columns ignored, literal quotes, and
clear errors for a missing or malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import AuditUserError, DataError
from audit.extrinsic.sts_data import load_sts_b, read_sts_b, sts_b_path

ROWS = [
    "main-captions\tMSRvid\t2012test\t0001\t5.000\tA man is walking.\tA man walks.",
    'main-forums\tanswer-answer\t2016\t0008\t3\tHe said "hi" .\tShe said "bye" .\tsrc a\tsrc b',
    "main-news\theadlines\t2015\t0002\t0.5\tStocks fall. \t Stocks drop.",
    "",
]


def write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_rows_are_typed_and_extra_columns_ignored(tmp_path: Path) -> None:
    rows = read_sts_b(write(tmp_path / "sts-test.tsv", ROWS))
    assert [r.score for r in rows] == [5.0, 3.0, 0.5]
    assert rows[0].sentence1 == "A man is walking."
    assert rows[1].sentence1 == 'He said "hi" .', "a quote is a literal character"
    assert rows[1].sentence2 == 'She said "bye" .', "the trailing source cells are ignored"
    assert rows[2].sentence1 == "Stocks fall. ", "sentences are kept as written"
    assert (rows[1].genre, rows[1].file, rows[1].year, rows[1].id, rows[1].line) == (
        "main-forums",
        "answer-answer",
        "2016",
        "0008",
        2,
    )


def test_missing_split_names_the_path_and_data_dir(tmp_path: Path) -> None:
    with pytest.raises(AuditUserError, match=r"sts_b/sts-train\.tsv does not exist.*--data-dir"):
        load_sts_b(tmp_path, "train")
    write(sts_b_path(tmp_path, "dev"), ROWS)
    assert len(load_sts_b(tmp_path, "dev")) == 3
    with pytest.raises(ValueError, match="unknown STS-B split"):
        sts_b_path(tmp_path, "valid")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "a\tb\tc\td\t1.0\tonly one sentence",
            r":1: 6 tab-separated cell\(s\), expected at least 7",
        ),
        ("a\tb\tc\td\thigh\tx\ty", r":1: score 'high' \(column 5\) is not a number from 0 to 5"),
        ("a\tb\tc\td\t5.5\tx\ty", r"score '5.5'"),
        ("a\tb\tc\td\tnan\tx\ty", r"score 'nan'"),
        ("a\tb\tc\td\t2\t \ty", r":1: sentence 1 \(column 6\) is empty"),
        ("a\tb\tc\td\t2\tx\t", r":1: sentence 2 \(column 7\) is empty"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path / "bad.tsv", [line])
    with pytest.raises(DataError, match=message):
        read_sts_b(path)


def test_empty_and_undecodable_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no rows"):
        read_sts_b(write(tmp_path / "empty.tsv", ["", ""]))
    bad = tmp_path / "latin1.tsv"
    bad.write_bytes("a\tb\tc\td\t1\tcaf\xe9\tx\n".encode("latin-1"))
    with pytest.raises(DataError, match="not valid UTF-8"):
        read_sts_b(bad)
    with pytest.raises(DataError, match="does not exist"):
        read_sts_b(tmp_path / "absent.tsv")


def test_real_splits(shared_data: Path) -> None:
    sizes = {split: len(load_sts_b(shared_data, split)) for split in ("train", "dev", "test")}
    assert sizes == {"train": 5749, "dev": 1500, "test": 1379}
    test = load_sts_b(shared_data, "test")
    assert test[0].sentence1 == "A girl is styling her hair."
    assert test[0].score == 2.5
    assert all(0 <= r.score <= 5 for r in test)
