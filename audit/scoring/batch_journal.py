"""The batch journal: each forward batch's raw results, committed as soon as it has run,
so that a killed run loses at most one batch.

Score entries are written per chunk of `runner.CHUNK` sentences, because a chunk's
sentences are sorted and packed into forward batches together and a different grouping
could change the last bits of a score. Inside a chunk, the engines (`masked.engine`,
`causal`) pass each batch through `journaled`: while a journal is active (the runner
opens one per unit), the batch's outputs are brought to the host, stored in the
namespace's `batches` table under a key made of the batch's exact inputs, and committed
(fault points `score-batch-before-commit` and `score-batch-committed` around the
commit). A rerun rebuilds the same chunks and so the same batches: a batch whose key is
in the journal is not run again, its stored outputs are used, bit for bit. Journal rows
are deleted once their chunk's entries are in the cache (`BatchJournal.clear`).

Each journalled batch also records its work: the sentences its progress counts (what
`LayerTicks.batch(n)` declares around it, through `batch_work`), so that `audit plan`
counts a killed run's journalled batches as saved (`journalled_work`), as the
interrupted run's own line did.

Without an active journal (remote workers, benchmarks, direct scorer calls) `journaled`
only runs the batch. A scorer that does not use the engines commits per chunk.
"""

from __future__ import annotations

import hashlib
import io
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from audit.faults import fault_point
from audit.scoring.transfer import to_host

if TYPE_CHECKING:
    import torch


def batch_key(tag: str, inputs: Sequence[np.ndarray]) -> str:
    """Key of one forward batch: what computes it (`tag`) and its exact input arrays."""
    digest = hashlib.sha256(tag.encode())
    for array in inputs:
        contiguous = np.ascontiguousarray(array)
        digest.update(f"|{contiguous.dtype.str}{contiguous.shape}|".encode())
        digest.update(contiguous.tobytes())
    return digest.hexdigest()


def _encode(arrays: Sequence[np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, *arrays)
    return buffer.getvalue()


def _decode(payload: bytes) -> list[np.ndarray]:
    with np.load(io.BytesIO(payload), allow_pickle=False) as stored:
        return [stored[f"arr_{i}"] for i in range(len(stored.files))]


def _checksum(key: str, payload: bytes) -> str:
    return hashlib.sha256(key.encode() + b"\n" + payload).hexdigest()[:16]


#: The work (progress sentences) of the batch now running (`batch_work`).
_WORK: ContextVar[int] = ContextVar("batch_work", default=0)
#: The work (progress sentences) of each journalled batch, beside the `batches` table.
WORK_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS batch_work "
    "(key TEXT PRIMARY KEY, owner TEXT NOT NULL, work INTEGER NOT NULL)"
)


class BatchJournal:
    """The `batches` table of one namespace's database (and each batch's work)."""

    def __init__(self, db: sqlite3.Connection, owner: str = "") -> None:
        self._db = db
        self.owner = owner  # the unit journalling (its namespace holds several datasets)
        self.replayed = 0  # batches taken from the journal instead of run
        self.recorded = 0  # batches run and committed
        self._work_table = False

    def replay(self, key: str) -> list[np.ndarray] | None:
        """The stored outputs of batch `key`, or None (absent, or failing its checksum)."""
        row = self._db.execute(
            "SELECT payload, checksum FROM batches WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        payload, checksum = bytes(row[0]), str(row[1])
        if _checksum(key, payload) == checksum:
            try:
                arrays = _decode(payload)
            except (ValueError, OSError, KeyError):
                arrays = None
            if arrays is not None:
                self.replayed += 1
                return arrays
        self._db.execute("DELETE FROM batches WHERE key = ?", (key,))
        self._db.commit()
        return None

    def record(self, key: str, outputs: Sequence[np.ndarray]) -> None:
        """Store and commit one batch's outputs and its work (the progress sentences of
        the batch running, `batch_work`)."""
        payload = _encode(outputs)
        if not self._work_table:
            self._db.execute(WORK_SCHEMA)
            self._work_table = True
        self._db.execute(
            "INSERT OR REPLACE INTO batches VALUES (?, ?, ?)",
            (key, payload, _checksum(key, payload)),
        )
        self._db.execute(
            "INSERT OR REPLACE INTO batch_work VALUES (?, ?, ?)", (key, self.owner, _WORK.get())
        )
        fault_point("score-batch-before-commit")
        self._db.commit()
        self.recorded += 1
        fault_point("score-batch-committed")

    def clear(self) -> None:
        """Drop every stored batch (their chunk's entries are all in the cache)."""
        self._db.execute("DELETE FROM batches")
        self._db.execute(WORK_SCHEMA)
        self._db.execute("DELETE FROM batch_work")
        self._db.commit()


def journalled_work(db_path: Path, owner: str) -> int:
    """The work (progress sentences) of the batches that `owner` journalled in `db_path`
    and has not committed as entries yet: what its rerun replays instead of running.
    Read-only; 0 when the database or its work table does not exist."""
    if not db_path.is_file():
        return 0
    try:
        db = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return 0
    try:
        row = db.execute(
            "SELECT COALESCE(SUM(w.work), 0) FROM batch_work AS w JOIN batches AS b "
            "ON b.key = w.key WHERE w.owner = ?",
            (owner,),
        ).fetchone()
    except sqlite3.Error:  # no work table: written before it existed, or nothing journalled
        return 0
    finally:
        db.close()
    return int(row[0])


_ACTIVE: ContextVar[BatchJournal | None] = ContextVar("batch_journal", default=None)


@contextmanager
def batch_work(n: int) -> Iterator[None]:
    """Around one forward batch worth `n` progress sentences: a batch journalled inside
    records `n` as its work."""
    token = _WORK.set(n)
    try:
        yield
    finally:
        _WORK.reset(token)


@contextmanager
def journal_batches(db: sqlite3.Connection, owner: str = "") -> Iterator[BatchJournal]:
    """Journal every forward batch run inside the `with` block into `db`, for `owner`
    (the unit's dataset: `journalled_work` counts a unit's own batches)."""
    journal = BatchJournal(db, owner)
    token = _ACTIVE.set(journal)
    try:
        yield journal
    finally:
        _ACTIVE.reset(token)


def journaled(
    tag: str, inputs: Sequence[np.ndarray], run: Callable[[], Sequence[torch.Tensor]]
) -> list[torch.Tensor]:
    """The outputs of one forward batch: `run()`, or, when the active journal holds the
    batch of this `tag` and these `inputs`, its stored outputs (float64, on the host).
    `run()`'s outputs are journaled (brought to the host and committed) before they are
    returned."""
    journal = _ACTIVE.get()
    if journal is None:
        return list(run())
    import torch

    key = batch_key(tag, inputs)
    stored = journal.replay(key)
    if stored is not None:
        return [torch.from_numpy(array) for array in stored]
    outputs = list(run())
    journal.record(key, to_host(outputs))
    return outputs
