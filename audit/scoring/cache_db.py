"""Opening one namespace's `scores.sqlite`: for writing when the cache can be written,
read-only when it cannot, and set aside only when an integrity check proves it corrupt.

A database that cannot be opened for writing (a write-protected cache folder or file, a
read-only file system) is opened read-only (`file:...?mode=ro`), never taken for a
corrupt one. A file is set aside (renamed `scores.corrupt-<n>.sqlite`, kept for
inspection) only when SQLite says it is not a database or `PRAGMA quick_check` finds
damage; a full, read-only or failing disk is the `OSError` it is
(`audit.scoring.cache_write_errors`), and any other failure to open it is an
`AuditUserError` naming the file.

Writable databases run in WAL mode with `synchronous=NORMAL`: a commit is durable
against a crash of the process (SIGKILL included) and costs no fsync, so the runner can
commit after every forward batch.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from audit.errors import AuditUserError
from audit.scoring.cache_write_errors import as_os_error

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS entries "
    "(key TEXT PRIMARY KEY, payload TEXT NOT NULL, checksum TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS batches "
    "(key TEXT PRIMARY KEY, payload BLOB NOT NULL, checksum TEXT NOT NULL)",
)


def can_write(path: Path) -> bool:
    """Whether this process may create or change files in `path` (a folder or file)."""
    return os.access(path, os.W_OK)


def folder_writable(folder: Path) -> bool:
    """Whether `folder` exists or can be created, and can be written."""
    if not folder.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
    return folder.is_dir() and can_write(folder)


@dataclass
class OpenedDatabase:
    """A namespace's connection (None: a read-only namespace with no database yet), whether
    it is read-only, and the files set aside as corrupt while opening it."""

    connection: sqlite3.Connection | None
    read_only: bool
    set_aside: list[Path] = field(default_factory=list)


def open_database(path: Path, *, writable: bool) -> OpenedDatabase:
    """Open `path` for writing (creating it) when `writable`, else read-only."""
    writable = writable and (not path.exists() or can_write(path))
    set_aside: list[Path] = []
    while True:
        try:
            if writable:
                return OpenedDatabase(_open_for_writing(path), False, set_aside)
            if not path.exists():
                return OpenedDatabase(None, True, set_aside)
            return OpenedDatabase(_open_read_only(path), True, set_aside)
        except sqlite3.DatabaseError as error:
            if (full_or_failing := as_os_error(error, path)) is not None:
                raise full_or_failing from error
            if not proves_corrupt(path):
                raise AuditUserError(
                    f"cannot open the score cache database {path}: {error}; check that it "
                    "can be read (and written, to add scores), or choose another cache folder"
                ) from error
            if not writable:
                raise AuditUserError(
                    f"the score cache database {path} is corrupt (its integrity check "
                    "failed) and its folder cannot be written, so it cannot be set aside: "
                    "move it away or choose another cache folder"
                ) from error
            set_aside.append(_set_aside(path))


def _open_for_writing(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        for statement in SCHEMA:
            db.execute(statement)
        db.execute("SELECT count(*) FROM entries").fetchone()
    except BaseException:
        db.close()
        raise
    return db


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection. A WAL database whose `-shm` file is absent and cannot be
    created (a read-only folder) opens only as immutable, which is safe there: nothing
    can write it."""
    last: sqlite3.DatabaseError | None = None
    for query in ("mode=ro", "mode=ro&immutable=1"):
        db = sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True)
        try:
            db.execute("SELECT count(*) FROM entries").fetchone()
            return db
        except sqlite3.OperationalError as error:
            db.close()
            if "no such table" in str(error):  # a valid database that never held entries
                return _empty_read_only()
            last = error
        except BaseException:
            db.close()
            raise
    assert last is not None
    raise last


def _empty_read_only() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    for statement in SCHEMA:
        db.execute(statement)
    return db


def proves_corrupt(path: Path) -> bool:
    """True only when SQLite reads `path` and finds it damaged: not a database, or a
    `quick_check` that reports anything but ok. Unreadable, locked or missing files are
    not proved corrupt."""
    if not path.is_file():
        return False
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return False
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.OperationalError:
        return False
    except sqlite3.DatabaseError:
        return True  # "file is not a database", "database disk image is malformed"
    finally:
        db.close()
    return [tuple(r) for r in rows] != [("ok",)]


def _set_aside(path: Path) -> Path:
    """Rename a corrupt database out of the way (kept for inspection); its WAL files go."""
    stamp = int(time.time())
    broken = path.with_name(f"scores.corrupt-{stamp}.sqlite")
    number = 1
    while broken.exists():
        broken = path.with_name(f"scores.corrupt-{stamp}-{number}.sqlite")
        number += 1
    try:
        path.rename(broken)
    except OSError as error:
        raise AuditUserError(
            f"the score cache database {path} is corrupt and could not be set aside "
            f"({error.strerror}): move it away or choose another cache folder"
        ) from error
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(str(path) + suffix).unlink(missing_ok=True)
    return broken
