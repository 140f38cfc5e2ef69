"""Reading the SEAT test files: the shared release, and clear errors on bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.data.seat_tests import (
    BIAS_TYPE_TESTS,
    SHA256,
    bias_type_tests,
    load_seat_tests,
    read_seat_test,
)
from audit.errors import DataError


def test_shared_release_reads_and_verifies(shared_data: Path) -> None:
    folder = shared_data / "seat"
    every = load_seat_tests(folder, sorted(SHA256))
    assert len(every) == 50 and all(test.verified for test in every)
    weat6 = next(test for test in every if test.name == "sent-weat6")
    sizes = tuple(len(one.examples) for one in weat6.sets)
    assert sizes == (64, 64, 101, 112)
    assert (weat6.targ1.category, weat6.attr1.category) == ("MaleNames", "Career")
    assert weat6.targ1.examples[0] == "This is John."


def test_bias_bench_lists_are_in_the_release() -> None:
    assert len(bias_type_tests(("gender", "race", "religion"))) == 17
    assert all(test in SHA256 for tests in BIAS_TYPE_TESTS.values() for test in tests)
    with pytest.raises(DataError, match="accepted: gender, race, religion"):
        bias_type_tests(("age",))


def _write(folder: Path, name: str, document: object) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text(json.dumps(document))
    return path


def _test(**changes: object) -> dict[str, object]:
    document: dict[str, object] = {
        "targ1": {"category": "Male", "examples": ["he", "man"]},
        "targ2": {"category": "Female", "examples": ["she", "woman"]},
        "attr1": {"category": "Career", "examples": ["office"]},
        "attr2": {"category": "Family", "examples": ["home"]},
    }
    document.update(changes)
    return document


def test_a_user_file_reads_unverified(tmp_path: Path) -> None:
    test = read_seat_test(_write(tmp_path, "mine", _test()))
    assert test.name == "mine" and not test.verified
    assert test.texts() == ["he", "man", "she", "woman", "office", "home"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"attr2": None}, r"field 'attr2' is missing"),
        ({"attr1": {"category": "C", "examples": []}}, r"'attr1'.examples is \[\]"),
        ({"targ1": {"category": "", "examples": ["x"]}}, r"'targ1'.category is ''"),
        ({"targ2": {"category": "F", "examples": ["she", "she"]}}, r"\[1\] 'she' is repeated"),
        ({"targ2": {"category": "F", "examples": ["she"]}}, r"targ1 has 2 examples and targ2 1"),
    ],
)
def test_bad_files_name_file_field_and_value(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    path = _write(tmp_path, "bad", _test(**changes))
    with pytest.raises(DataError, match=message) as error:
        read_seat_test(path)
    assert str(path) in str(error.value)


def test_a_missing_test_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no file .*sent-weat6\.jsonl for test 'sent-weat6'"):
        load_seat_tests(tmp_path, ["sent-weat6"])
