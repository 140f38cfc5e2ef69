"""Operating-system errors on a path, as one line the user can act on (exit 2).

Permission denied, a read-only file system, a full disk, a path under a regular file or a
missing folder are not bugs: `user_error(error)` turns such an `OSError` into an
`AuditUserError` naming the path, the problem and what to do. The command line calls it
at its boundary (`audit.cli`), so every command treats them alike.
"""

from __future__ import annotations

import errno

from audit.errors import AuditUserError

#: errno -> what to do about it.
HINTS = {
    errno.EACCES: "change its permissions or choose another folder",
    errno.EPERM: "change its permissions or choose another folder",
    errno.EROFS: "the file system is read-only: choose a folder on a writable one",
    errno.ENOSPC: "the disk is full: free some space or choose a folder on another disk",
    errno.EDQUOT: "the disk quota is used up: free some space or choose another folder",
    errno.ENOTDIR: "a part of this path is a regular file, not a folder: choose another path",
    errno.EEXIST: "a file is in the way of a folder of that name: move it or choose another path",
    errno.EISDIR: "a folder is where a file should be: move it or choose another path",
    errno.ENOENT: "a folder on this path does not exist: check the path",
    errno.ENAMETOOLONG: "the name is too long for the file system: choose a shorter path",
    errno.EIO: "the disk reported an input/output error: check it or choose another disk",
}
#: Errors about the disk itself, translated even when the OSError names no file.
WITHOUT_PATH = {errno.ENOSPC, errno.EDQUOT, errno.EROFS}


class PathError(AuditUserError):
    """A path the user gave or the tool writes cannot be used (permissions, read-only file
    system, full disk, a file in the way, a missing folder)."""

    def __init__(self, message: str, path: str | None, code: int | None) -> None:
        super().__init__(message)
        self.path = path
        self.errno = code


def user_error(error: OSError) -> PathError | None:
    """The one-line user error for an OSError on a path, or None when it is not one (no
    path and not about the disk: leave it to the traceback)."""
    if error.filename is None and error.errno not in WITHOUT_PATH:
        return None
    problem = error.strerror or (errno.errorcode.get(error.errno or 0) or str(error))
    hint = HINTS.get(error.errno or 0)
    path = None if error.filename is None else str(error.filename)
    where = f"{path}: " if path is not None else ""
    return PathError(f"{where}{problem}{f'; {hint}' if hint else ''}", path, error.errno)
