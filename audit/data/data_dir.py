"""The data folder (`--data-dir` or $AUDIT_DATA_DIR): checked before anything is read, so
that a misspelt folder is named as such instead of surfacing as a failed download."""

from __future__ import annotations

from pathlib import Path

from audit.errors import DataError

#: What a data folder is, for the messages.
EXPECTED = (
    "a folder holding the built-in datasets, one subfolder each (as in shared/data), or no "
    "--data-dir to read them from the cache or download them"
)


def check_data_dir(data_dir: Path | None) -> Path | None:
    """`data_dir` with '~' expanded; a DataError naming it when it is not a folder."""
    if data_dir is None:
        return None
    folder = data_dir.expanduser()
    if folder.is_dir():
        return folder
    problem = "is a file, not a folder" if folder.exists() else "does not exist"
    raise DataError(
        f"the data folder {folder} (--data-dir or $AUDIT_DATA_DIR) {problem}; expected {EXPECTED}"
    )
