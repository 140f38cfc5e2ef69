"""Content-addressed score cache.

A namespace is keyed by exactly the inputs that change a score: the model fingerprint
(config, weights and tokenizer files), the scorer's name, version and options. Inside it,
each entry is keyed by the sha256 of the exact text (or the pair of texts) and stored
with a checksum of its payload. Entries are written as each chunk of work finishes, so
an interrupted run recomputes only what was not written; an entry whose checksum does
not match, or a database file that cannot be read, is recomputed, never used.
Each namespace keeps a readable `manifest.json` next to its `scores.sqlite`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.scoring.base import ScorerInfo, ScorerOptions, SentenceScore

#: Bump when the on-disk layout changes; old namespaces are then simply not found.
CACHE_LAYOUT = "1"

Entry = tuple[SentenceScore, ...]  # one score per sentence (a pair gives two)


def text_key(texts: Sequence[str]) -> str:
    """Key of one cache entry: the exact text, or the exact texts of a pair, in order."""
    return hashlib.sha256(json.dumps(list(texts), ensure_ascii=False).encode()).hexdigest()


def _payload(entry: Entry) -> str:
    return json.dumps([[s.score, s.n_tokens] for s in entry])


def _checksum(key: str, payload: str) -> str:
    return hashlib.sha256(f"{key}\n{payload}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ModelIdentity:
    """What the cache knows a model by: its fingerprint (config, weights and tokenizer
    files) and the numeric precision it runs at ("<device type>/<dtype>")."""

    fingerprint: str
    precision: str


@dataclass(frozen=True)
class CacheStats:
    hits: int
    corrupt: int


class ScoreNamespace:
    """The entries of one (model fingerprint, scorer, options) combination."""

    def __init__(self, folder: Path, manifest: Mapping[str, object]) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        manifest_path = folder / "manifest.json"
        if not manifest_path.exists():
            manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
        self._db_path = folder / "scores.sqlite"
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self._db_path)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS entries "
                "(key TEXT PRIMARY KEY, payload TEXT NOT NULL, checksum TEXT NOT NULL)"
            )
            db.execute("SELECT count(*) FROM entries").fetchone()
            return db
        except sqlite3.DatabaseError:
            # An unreadable file is set aside (kept for inspection) and started afresh.
            with contextlib.suppress(NameError):
                db.close()
            broken = self._db_path.with_name(f"scores.corrupt-{int(time.time())}.sqlite")
            self._db_path.rename(broken)
            for suffix in ("-wal", "-shm"):
                Path(str(self._db_path) + suffix).unlink(missing_ok=True)
            return self._open()

    def get_many(self, keys: Iterable[str]) -> tuple[dict[str, Entry], CacheStats]:
        """The valid entries among `keys`; corrupt ones are deleted and counted."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Entry] = {}
        corrupt: list[str] = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, payload, checksum FROM entries WHERE key IN ({marks})", chunk
            ).fetchall()
            for key, payload, checksum in rows:
                entry = _decode(key, payload, checksum)
                if entry is None:
                    corrupt.append(key)
                else:
                    found[key] = entry
        if corrupt:
            self._db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in corrupt])
            self._db.commit()
        return found, CacheStats(hits=len(found), corrupt=len(corrupt))

    def put_many(self, entries: Mapping[str, Entry]) -> None:
        rows = []
        for key, entry in entries.items():
            payload = _payload(entry)
            rows.append((key, payload, _checksum(key, payload)))
        self._db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)", rows)
        self._db.commit()

    def close(self) -> None:
        self._db.close()


def _decode(key: str, payload: str, checksum: str) -> Entry | None:
    if _checksum(key, payload) != checksum:
        return None
    try:
        values = json.loads(payload)
        return tuple(SentenceScore(float(score), int(n)) for score, n in values)
    except (ValueError, TypeError):
        return None


class ScoreCache:
    """The cache folder: one namespace per (model fingerprint, scorer, options)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def namespace(
        self,
        *,
        model_fingerprint: str,
        scorer: ScorerInfo,
        options: ScorerOptions,
        precision: str = "cpu/float32",
    ) -> ScoreNamespace:
        """The namespace of one model (fingerprint), scorer (name, version, options) and
        numeric precision (device type / autocast dtype, e.g. `cuda/bfloat16`)."""
        manifest = {
            "layout": CACHE_LAYOUT,
            "model_fingerprint": model_fingerprint,
            "precision": precision,
            "scorer": scorer.name,
            "scorer_version": scorer.version,
            "options": options.cache_identity(),
        }
        key = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
        return ScoreNamespace(self.root / "scores" / key[:2] / key, manifest)
