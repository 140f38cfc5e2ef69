"""sha256 of files, remembered by (path, size, mtime) so a large file is hashed once."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

CHUNK = 1 << 20
HASH_CACHE_NAME = "file-hashes.json"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's content, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


class FileHashCache:
    """A JSON file of {real path: [size, mtime_ns, sha256]} under the audit cache folder.

    An entry counts only while the file's size and mtime are unchanged, so an edited
    file is hashed again. Writes are atomic; concurrent writers can only lose entries.
    """

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / HASH_CACHE_NAME
        self._entries: dict[str, list[object]] | None = None

    def _load(self) -> dict[str, list[object]]:
        if self._entries is None:
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                self._entries = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self._entries = {}
        return self._entries

    def sha256(self, path: Path) -> str:
        """The file's sha256, from the cache when its size and mtime still match."""
        real = path.resolve()
        stat = real.stat()
        key = str(real)
        entries = self._load()
        entry = entries.get(key)
        if (
            isinstance(entry, list)
            and len(entry) == 3
            and entry[0] == stat.st_size
            and entry[1] == stat.st_mtime_ns
            and isinstance(entry[2], str)
        ):
            return entry[2]
        digest = sha256_file(real)
        entries[key] = [stat.st_size, stat.st_mtime_ns, digest]
        self._save(entries)
        return digest

    def remember(self, path: Path, digest: str) -> None:
        """Record a sha256 computed elsewhere (e.g. while writing the file)."""
        real = path.resolve()
        stat = real.stat()
        entries = self._load()
        entries[str(real)] = [stat.st_size, stat.st_mtime_ns, digest]
        self._save(entries)

    def _save(self, entries: dict[str, list[object]]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".file-hashes.")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entries, handle)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only cache folder only costs re-hashing next time
