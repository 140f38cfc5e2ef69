"""Content-addressed score cache.

A namespace is keyed by exactly the inputs that change a score: the model fingerprint
(config, weights and tokenizer files), the scorer's name, version and options, and, for a
scorer of another distribution, that distribution's name and version (the scorer's code
identity, `audit.code_identity`; a built-in scorer at version 1 adds nothing, so its keys
are those it had before). A namespace that receives entries is recorded with its code
(`audit.code_records`), so `audit plan` can say why a raised version scores again. Inside it,
each entry is keyed by the sha256 of the exact text (or the pair of texts) and stored
with a checksum of its payload. Entries are written as each chunk of work finishes, so
an interrupted run recomputes only what was not written; an entry whose checksum does
not match, or a database file that cannot be read, is recomputed, never used.
Each namespace keeps a readable `manifest.json` next to its `scores.sqlite`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.code_identity import DEFAULT_VERSION, CodeIdentity, with_code
from audit.code_records import CodeRecords
from audit.errors import AuditUserError
from audit.models.chat_template import ChatFormat, DatasetChats
from audit.scoring.base import ScorerInfo, ScorerOptions, SentenceScore
from audit.scoring.cache_db import folder_writable, open_database

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
    #: The chat template its multiple-choice prompts are wrapped in: the entries' texts
    #: are the rendered prompts, so their keys differ from the raw prompts' on their own.
    chat: ChatFormat | None = None
    #: The datasets that give their own chat template (it wins over `chat` there).
    dataset_chats: DatasetChats = field(default_factory=DatasetChats)

    def chat_for(self, dataset: str) -> ChatFormat | None:
        """The chat template of its prompts of `dataset`: the dataset's own, else `chat`."""
        return self.dataset_chats.pick(dataset, self.chat)


@dataclass(frozen=True)
class CacheStats:
    hits: int
    corrupt: int


class ScoreNamespace:
    """The entries of one (model fingerprint, scorer, options) combination.

    Opened read-only when the cache cannot be written (`read_only`): it then reads what
    is there and writes nothing. `set_aside` lists the database files found corrupt and
    renamed while opening it."""

    def __init__(
        self,
        folder: Path,
        manifest: Mapping[str, object],
        on_write: Callable[[], None] | None = None,
    ) -> None:
        self.folder = folder
        self._on_write = on_write
        writable = folder_writable(folder)
        manifest_path = folder / "manifest.json"
        if writable and not manifest_path.exists():
            manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
        self.db_path = folder / "scores.sqlite"
        opened = open_database(self.db_path, writable=writable)
        self._db = opened.connection
        self.read_only = opened.read_only
        self.set_aside = tuple(opened.set_aside)

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection, for writing (a read-only namespace has none to write)."""
        if self._db is None or self.read_only:
            raise AuditUserError(
                f"the score cache {self.folder} cannot be written: make it writable or "
                "choose another cache folder (--cache-dir)"
            )
        return self._db

    def get_many(self, keys: Iterable[str]) -> tuple[dict[str, Entry], CacheStats]:
        """The valid entries among `keys`; corrupt ones are deleted and counted."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Entry] = {}
        corrupt: list[str] = []
        if self._db is None:
            return found, CacheStats(hits=0, corrupt=0)
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
        if corrupt and not self.read_only:
            self._db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in corrupt])
            self._db.commit()
        return found, CacheStats(hits=len(found), corrupt=len(corrupt))

    def put_many(self, entries: Mapping[str, Entry]) -> None:
        rows = []
        for key, entry in entries.items():
            payload = _payload(entry)
            rows.append((key, payload, _checksum(key, payload)))
        self.db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)", rows)
        self.db.commit()
        if self._on_write is not None:  # the first write records the namespace's code
            on_write, self._on_write = self._on_write, None
            on_write()

    def close(self) -> None:
        if self._db is not None:
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
        code: CodeIdentity | None = None,
    ) -> ScoreNamespace:
        """The namespace of one model (fingerprint), scorer (name, version, options, and
        the code identity `code`: default, the scorer's version, built in) and numeric
        precision (device type / autocast dtype, e.g. `cuda/bfloat16`)."""
        code = code or CodeIdentity("scorer", scorer.name, scorer.version)
        manifest = _manifest(model_fingerprint, scorer, options, precision, code)
        key = _namespace_key(manifest)
        default = code.default()
        default_key = _namespace_key(
            _manifest(model_fingerprint, scorer, options, precision, default)
        )
        records = CodeRecords(self.root / "scores")
        return ScoreNamespace(
            self._folder(key), manifest, lambda: records.remember(default_key, key, code)
        )

    def why_missing(
        self,
        *,
        model_fingerprint: str,
        scorer: ScorerInfo,
        options: ScorerOptions,
        precision: str,
        code: CodeIdentity,
    ) -> str | None:
        """Why the scores of `code` are not in the cache when the same model's scores of
        the same scorer and options made by other code are (`CodeRecords.why_missing`)."""
        key = _namespace_key(_manifest(model_fingerprint, scorer, options, precision, code))
        default_key = _namespace_key(
            _manifest(model_fingerprint, scorer, options, precision, code.default())
        )
        return CodeRecords(self.root / "scores").why_missing(
            default_key,
            key,
            code,
            lambda other: (self._folder(other) / "scores.sqlite").is_file(),
            what="cached scores",
        )

    def _folder(self, key: str) -> Path:
        return self.root / "scores" / key[:2] / key


def _manifest(
    model_fingerprint: str,
    scorer: ScorerInfo,
    options: ScorerOptions,
    precision: str,
    code: CodeIdentity,
) -> dict[str, object]:
    """What a namespace is keyed by, as its manifest.json shows it. The version is kept
    as `scorer_version` (as before versions entered every key) and not again in `code`."""
    manifest: dict[str, object] = {
        "layout": CACHE_LAYOUT,
        "model_fingerprint": model_fingerprint,
        "precision": precision,
        "scorer": scorer.name,
        "scorer_version": code.version,
        "options": options.cache_identity(),
    }
    return with_code(
        manifest, CodeIdentity(code.kind, code.name, DEFAULT_VERSION, code.distribution)
    )


def _namespace_key(manifest: Mapping[str, object]) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
