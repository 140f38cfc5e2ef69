"""Operating-system errors on a path become one line naming the path and what to do."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from audit.output_check import check_output_dir
from audit.path_errors import PathError, user_error


@pytest.mark.parametrize(
    ("code", "strerror", "hint"),
    [
        (errno.EACCES, "Permission denied", "change its permissions"),
        (errno.EROFS, "Read-only file system", "the file system is read-only"),
        (errno.ENOSPC, "No space left on device", "the disk is full"),
        (errno.ENOTDIR, "Not a directory", "is a regular file, not a folder"),
    ],
)
def test_names_the_path_the_problem_and_a_hint(code: int, strerror: str, hint: str) -> None:
    translated = user_error(OSError(code, strerror, "/data/out/results.json"))
    assert isinstance(translated, PathError) and translated.exit_code == 2
    assert str(translated).startswith(f"/data/out/results.json: {strerror}; ")
    assert hint in str(translated) and "\n" not in str(translated)


def test_a_full_disk_without_a_path_is_still_a_user_error() -> None:
    translated = user_error(OSError(errno.ENOSPC, "No space left on device"))
    assert translated is not None and str(translated).startswith("No space left on device; ")


def test_an_error_without_a_path_that_is_not_about_the_disk_stays_a_bug() -> None:
    assert user_error(OSError(errno.EINVAL, "Invalid argument")) is None


def test_the_output_check_creates_the_folder_and_leaves_nothing(tmp_path: Path) -> None:
    check_output_dir(tmp_path / "a" / "b")
    assert list((tmp_path / "a" / "b").iterdir()) == []


def test_the_output_check_refuses_a_folder_under_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError) as raised:
        check_output_dir(tmp_path / "file" / "out")
    assert raised.value.errno == errno.ENOTDIR
    assert raised.value.filename == str(tmp_path / "file" / "out")


def test_the_output_check_names_the_folder_when_the_probe_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit import output_check

    def read_only(path: Path, mode: str) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(output_check, "open", read_only, raising=False)
    with pytest.raises(OSError) as raised:
        check_output_dir(tmp_path / "out")
    assert raised.value.errno == errno.EROFS and raised.value.filename == str(tmp_path / "out")
