"""Is the output folder writable? Checked before any model loads, so that a folder that
cannot be written costs a second, not the whole scoring.

The folders the check creates are remembered while a command runs
(`unused_output_dirs_removed`): when the command fails, those still empty are removed
again, so a failed run leaves no empty output folder behind. A folder that existed
before, or that anything was written into, is never removed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

PROBE = ".audit-write-check"

#: The folders `check_output_dir` created during the current command, outermost first
#: (None outside `unused_output_dirs_removed`: nothing is remembered).
_CREATED: ContextVar[list[Path] | None] = ContextVar("created_output_dirs", default=None)


def check_output_dir(folder: Path) -> None:
    """Create `folder` (and its parents) if needed, then write, sync and remove a probe
    file in it. An OSError (permission denied, read-only file system, full disk, a regular
    file in the way) is raised naming `folder`, never the probe file, for
    `audit.path_errors.user_error`."""
    _make_folder(folder)
    probe = folder / f"{PROBE}-{os.getpid()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"ok\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        # On a read-only file system even removing a file that is not there fails (EROFS).
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror or str(error), str(folder)) from None
    probe.unlink()


def _make_folder(folder: Path) -> None:
    """`folder.mkdir(parents=True, exist_ok=True)`, remembering the folders it created."""
    missing: list[Path] = []
    path = folder
    while not path.exists() and not path.is_symlink() and path != path.parent:
        missing.append(path)
        path = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    finally:
        created = _CREATED.get()
        if created is not None:
            created.extend(p for p in reversed(missing) if p.is_dir())


def remove_unused_output_dirs() -> list[Path]:
    """Remove the folders `check_output_dir` created in this command that are still empty
    (innermost first; a folder holding anything stays); returns those removed."""
    created = _CREATED.get() or []
    removed: list[Path] = []
    for path in reversed(created):
        try:
            path.rmdir()  # fails, and so keeps it, unless it is empty
        except OSError:
            continue
        removed.append(path)
    created.clear()
    return removed


@contextlib.contextmanager
def unused_output_dirs_removed() -> Iterator[None]:
    """Run a command's work; when it fails (an error, Ctrl-C, SIGTERM), the output
    folders it created and wrote nothing into are removed again."""
    token = _CREATED.set([])
    try:
        yield
    except BaseException:
        remove_unused_output_dirs()
        raise
    finally:
        _CREATED.reset(token)
