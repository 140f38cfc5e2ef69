"""Output files are written whole or not at all; errors name the target, not the temp."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit import atomic_write
from audit.atomic_write import atomic_path, temporary_path, write_text_atomic
from audit.faults import ENV_KILL_AT, ENV_LOG


def test_writes_the_text_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    assert write_text_atomic(target, "{}") == target
    write_text_atomic(target, '{"a": 1}')
    assert target.read_text() == '{"a": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_failed_writer_keeps_the_earlier_file(tmp_path: Path) -> None:
    target = tmp_path / "report.pdf"
    target.write_bytes(b"old and complete")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("the renderer failed")
    assert target.read_bytes() == b"old and complete"
    assert not temporary_path(target).exists()


def test_a_full_disk_is_raised_naming_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "scores.parquet"
    target.write_bytes(b"old")

    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic_write, "_sync", full)
    with pytest.raises(OSError) as raised:
        atomic_write.write_bytes_atomic(target, b"new")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(target)
    assert target.read_bytes() == b"old" and not temporary_path(target).exists()


SCRIPT = (
    "from pathlib import Path\n"
    "from audit.atomic_write import write_text_atomic\n"
    "write_text_atomic(Path({path!r}), 'new and complete')\n"
)


@pytest.mark.parametrize(("kill_at", "expected"), [(1, "old"), (2, "new and complete")])
def test_killed_on_either_side_of_the_rename_leaves_a_whole_file(
    tmp_path: Path, kill_at: int, expected: str
) -> None:
    target = tmp_path / "report.html"
    target.write_text("old")
    log = tmp_path / "points.txt"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(path=str(target))],
        env={**_env(), ENV_KILL_AT: str(kill_at), ENV_LOG: str(log)},
        check=False,
    )
    assert done.returncode == -9
    assert log.read_text().split() == ["write-before-replace", "write-replaced"][:kill_at]
    assert target.read_text() == expected


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("AUDIT_FAULT")}


def test_a_temporary_file_of_a_killed_process_is_removed_by_the_next_write(
    tmp_path: Path,
) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    left = tmp_path / f".results.tmp-{dead.stdout.strip()}.json"
    left.write_text('{"half')
    alive = tmp_path / f".results.tmp-{os.getppid()}.json"  # a live process's: kept
    alive.write_text("{")
    write_text_atomic(tmp_path / "results.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [alive.name, "results.json"]
