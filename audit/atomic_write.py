"""Writing an output file whole or not at all: results.json, scores.parquet, the reports.

Each file is written to a temporary file in the same folder (`.<stem>.tmp-<pid><suffix>`),
flushed to disk (fsync) and then renamed over the target with `os.replace`, which is
atomic on one file system. A crash, a kill or a full disk therefore never leaves half a
file: the target is either the earlier complete file or the new complete one, and a
failed write removes its temporary file (one that a killed process left behind is removed
by the next write of the same file). An operating-system error is raised again
naming the target (not the temporary file), for `audit.path_errors` to turn into one line.

The fault points `write-before-replace` and `write-replaced` (`audit.faults`) let the
crash tests kill the process on either side of the rename.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.faults import fault_point


def temporary_path(path: Path) -> Path:
    """Where the new content of `path` is written before it replaces `path`."""
    return path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path for a writer that takes a file name (pandas `to_parquet`,
    weasyprint `write_pdf`); once the block ends without error, the file is synced and
    put in place of `path`. On any error or interrupt the temporary file is removed and
    `path` is left as it was."""
    tmp = temporary_path(path)
    remove_stale(path.parent, f".{path.stem}.tmp-", path.suffix)
    try:
        try:
            yield tmp
            _sync(tmp)
            fault_point("write-before-replace")
            os.replace(tmp, path)
        except OSError as error:
            raise _naming(error, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fault_point("write-replaced")
    _sync_folder(path.parent)


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to `path` atomically; returns `path`."""
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write(data)
    return path


def write_text_atomic(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically; returns `path`."""
    return write_bytes_atomic(path, text.encode(encoding))


def remove_stale(folder: Path, prefix: str, suffix: str = "") -> None:
    """Remove the temporary files (or folders) `<prefix><pid><suffix>` in `folder` that a
    process killed while writing left behind: those whose process is gone."""
    if not folder.is_dir():
        return
    for entry in folder.glob(f"{glob.escape(prefix)}*{glob.escape(suffix)}"):
        pid = entry.name[len(prefix) : len(entry.name) - len(suffix)]
        if pid.isdigit() and not _alive(int(pid)):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _sync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _naming(error: OSError, path: Path) -> OSError:
    """The same error, naming the target file rather than its temporary file."""
    renamed = OSError(error.errno, error.strerror or str(error), str(path))
    renamed.__cause__ = error.__cause__
    return renamed
