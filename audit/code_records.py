"""Which code made each cached artefact, recorded beside the artefacts so that `audit plan`
can say why one is made again.

A cache key includes the computing plug-in's identity (`audit.code_identity`), so a raised
version or distribution gives a new key and the artefact under the old key is simply not
found. To tell "not made yet" from "made by other code", each artefact kind's folder keeps
`code/<default key>.json`: for the artefacts that share everything but the code (whose
key under the built-in default identity is `<default key>`), each one's key and the code
fields it was made with, the latest last. An artefact made before keys held the code has
no record; it sits under the default key itself, and is reported as made by a version its
key does not hold.

A record is written after its artefact is done; a lost record (two runs writing at once,
an unwritable cache) only loses the explanation, never an artefact.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.atomic_write import write_text_atomic
from audit.code_identity import CodeIdentity, why_remade

#: The records' folder inside an artefact kind's folder.
RECORDS_FOLDER = "code"


@dataclass(frozen=True)
class CodeRecords:
    """The records of one artefact kind's folder (`<cache>/variants`, ...)."""

    folder: Path

    def _path(self, default_key: str) -> Path:
        return self.folder / RECORDS_FOLDER / f"{default_key}.json"

    def _read(self, default_key: str) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self._path(default_key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def remember(self, default_key: str, key: str, code: CodeIdentity) -> None:
        """Record that the artefact under `key` was made by `code`."""
        records = self._read(default_key)
        records.pop(key, None)  # the latest last
        records[key] = code.key_fields()
        path = self._path(default_key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, json.dumps(records, indent=1))
        except OSError:
            pass  # the explanation is lost, not the artefact (module docstring)

    def why_missing(
        self,
        default_key: str,
        key: str,
        now: CodeIdentity,
        done: Callable[[str], bool],
        *,
        what: str = "cached copy",
    ) -> str | None:
        """Why the artefact under `key` (made by `now`) is not in the cache when one of
        the same inputs made by other code is (`done(key)` says whether the artefact
        under a key is there): "the cached copy was made by ... version 1, now version 2";
        None when no such artefact is there."""
        records = self._read(default_key)
        for other in reversed(list(records)):
            if other != key and done(other):
                return why_remade(now.with_fields(records[other]), now, what=what)
        if default_key != key and default_key not in records and done(default_key):
            return why_remade(None, now, what=what)
        return None
