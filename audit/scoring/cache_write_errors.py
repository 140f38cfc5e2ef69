"""SQLite errors of the score cache's disk, as the operating-system errors they are.

`sqlite3.OperationalError` is not an `OSError`, so a disk that fills, a file system
remounted read-only or an I/O error while scores are written would end in a traceback.
`cache_writes(path)` turns such an error into an `OSError` naming the database file,
which the command line reports like any other (`audit.path_errors`: one line, exit 2).
Every batch and chunk committed before the error stays in the cache, so the same
command resumes from them once the disk has room again. Errors that are not about the
disk (a corrupt file, a bug in a query) are left as they are.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: SQLite's primary result code -> the errno of the same trouble.
DISK_ERRNO = {
    sqlite3.SQLITE_FULL: errno.ENOSPC,
    sqlite3.SQLITE_READONLY: errno.EROFS,
    sqlite3.SQLITE_IOERR: errno.EIO,
}

RESUMES = "the scores saved before it are kept, and the same command resumes from them"


def as_os_error(error: sqlite3.Error, path: Path) -> OSError | None:
    """The OSError for an SQLite error about the disk holding `path`; None otherwise."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None
    number = DISK_ERRNO.get(code & 0xFF)
    if number is None:
        return None
    problem = f"{os.strerror(number)} (SQLite: {error}; {RESUMES})"
    return OSError(number, problem, str(path))


@contextmanager
def cache_writes(path: Path) -> Iterator[None]:
    """Run cache work on the database `path`; an SQLite error about its disk is raised
    as the OSError `as_os_error` makes of it."""
    try:
        yield
    except sqlite3.Error as error:
        translated = as_os_error(error, path)
        if translated is None:
            raise
        raise translated from error
