"""Is the output folder writable? Checked before any model loads, so that a folder that
cannot be written costs a second, not the whole scoring."""

from __future__ import annotations

import os
from pathlib import Path

PROBE = ".audit-write-check"


def check_output_dir(folder: Path) -> None:
    """Create `folder` (and its parents) if needed, then write, sync and remove a probe
    file in it. An OSError (permission denied, read-only file system, full disk, a regular
    file in the way) is raised naming the path, for `audit.path_errors.user_error`."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f"{PROBE}-{os.getpid()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"ok\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        probe.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror or str(error), str(folder)) from None
    probe.unlink()
