"""SQLite errors about the cache's disk (full, read-only, failing) become OSErrors naming
the database, reported like any disk error (one line, exit 2); what was committed before
stays, and the rerun resumes from it. Every error here is a real one from SQLite."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.path_errors import user_error
from audit.scoring import batch_journal
from audit.scoring.cache import ScoreCache
from audit.scoring.cache_write_errors import cache_writes
from audit.scoring.runner import ModelHandle, open_namespace, read_entries, score_unit
from tests.mounts import fill_disk, tmpfs
from tests.scoring.test_runner_journal import DATASET, UNITS
from tests.scoring.tiny_models import loaded


def test_a_disk_that_fills_mid_unit_keeps_the_committed_batches_for_the_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, unit = UNITS["pll"]
    model = loaded(build())
    handle = ModelHandle("m", "f" * 64, "cpu/float32", load=lambda: model)

    def score(cache: ScoreCache) -> object:
        score_unit(unit, model=handle, dataset=DATASET, cache=cache, display=SilentDisplay())
        return read_entries(unit, dataset=DATASET, cache=cache, model=handle.identity)

    straight = score(ScoreCache(tmp_path / "straight"))
    with tmpfs(tmp_path / "disk", size_kb=16384) as disk:  # room for a 4 MiB WAL
        committed: list[str] = []
        fillers: list[Path] = []

        def disk_fills_after_two_batches(point: str) -> None:
            committed.append(point)
            if committed.count("score-batch-committed") == 2 and not fillers:
                fillers.append(fill_disk(disk))

        monkeypatch.setattr(batch_journal, "fault_point", disk_fills_after_two_batches)
        cache = ScoreCache(disk / "cache")
        with pytest.raises(OSError) as raised:
            score(cache)
        database = open_namespace(unit.scorer, cache, handle.identity).db_path
        assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(database)
        assert isinstance(raised.value.__cause__, sqlite3.OperationalError)
        line = str(user_error(raised.value))
        assert line.startswith(f"{database}: No space left on device (SQLite: database or disk")
        assert "\n" not in line and "resumes" in line

        monkeypatch.undo()
        fillers[0].unlink()  # space is freed
        with sqlite3.connect(database) as db:  # the two batches are kept
            assert db.execute("SELECT count(*) FROM batches").fetchone() == (2,)
        assert score(cache) == straight  # resumed, bit for bit


def test_a_read_only_database_is_an_os_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "scores.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE entries (key TEXT)")
    read_only = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    with pytest.raises(OSError) as raised, cache_writes(path):
        read_only.execute("INSERT INTO entries VALUES ('k')")
    read_only.close()
    assert raised.value.errno == errno.EROFS and raised.value.filename == str(path)
    assert str(user_error(raised.value)).startswith(f"{path}: Read-only file system (SQLite: ")


def test_an_io_error_is_an_os_error_naming_the_database(tmp_path: Path) -> None:
    """A file-size limit makes the writes fail with EFBIG: SQLite's disk I/O error."""
    path = tmp_path / "scores.sqlite"
    code = (
        "import os, resource, signal, sqlite3, sys\n"
        "from pathlib import Path\n"
        "from audit.path_errors import user_error\n"
        "from audit.scoring.cache_write_errors import cache_writes\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
        f"path = Path({str(path)!r})\n"
        "db = sqlite3.connect(path)\n"
        "try:\n"
        "    with cache_writes(path):\n"
        "        db.execute('CREATE TABLE entries (key TEXT, payload BLOB)')\n"
        "        for i in range(100):\n"
        "            db.execute('INSERT INTO entries VALUES (?, ?)', (str(i), os.urandom(4000)))\n"
        "            db.commit()\n"
        "except OSError as error:\n"
        "    print(user_error(error))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{path}: Input/output error (SQLite: disk I/O error; ")
    assert "the disk reported an input/output error" in done.stdout


def test_other_sqlite_errors_are_left_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "scores.sqlite"
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.OperationalError, match="no such table"), cache_writes(path):
        db.execute("SELECT * FROM nowhere")
    db.close()
