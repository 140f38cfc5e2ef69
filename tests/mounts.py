"""Real file systems for tests of disk errors: a small tmpfs mounted read-only or with a
few kilobytes of room, so that the operating system (not a mock) refuses the writes.

Mounting needs root with CAP_SYS_ADMIN; where it is not allowed the test is skipped,
saying why."""

from __future__ import annotations

import errno
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def tmpfs(folder: Path, *, size_kb: int = 64, read_only: bool = False) -> Iterator[Path]:
    """`folder` (created) with a tmpfs of `size_kb` mounted on it, read-only if asked;
    unmounted afterwards. Skips the test when mounting is not allowed here."""
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if mount is None or umount is None:
        pytest.skip("no mount/umount command here")
    folder.mkdir(parents=True, exist_ok=True)
    options = f"size={size_kb}k{',ro' if read_only else ''}"
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run([umount, "-l", str(folder)], check=True)


def remount(folder: Path, *, read_only: bool) -> None:
    """Remount the tmpfs on `folder` read-only or read-write (what an operator, or the
    kernel after an I/O error, does under a running program)."""
    mount = shutil.which("mount")
    assert mount is not None
    mode = "ro" if read_only else "rw"
    subprocess.run([mount, "-o", f"remount,{mode}", str(folder)], check=True)


def fill_disk(folder: Path) -> Path:
    """Write a file into `folder` until its file system has no room left; return it (delete
    it to free the space again)."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as handle:  # unbuffered: closing writes nothing
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    return filler
