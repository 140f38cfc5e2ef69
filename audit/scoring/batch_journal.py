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
are deleted once the unit's entries are all in the cache.

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


class BatchJournal:
    """The `batches` table of one namespace's database."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.replayed = 0  # batches taken from the journal instead of run
        self.recorded = 0  # batches run and committed

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
        """Store and commit one batch's outputs."""
        payload = _encode(outputs)
        self._db.execute(
            "INSERT OR REPLACE INTO batches VALUES (?, ?, ?)",
            (key, payload, _checksum(key, payload)),
        )
        fault_point("score-batch-before-commit")
        self._db.commit()
        self.recorded += 1
        fault_point("score-batch-committed")

    def clear(self) -> None:
        """Drop every stored batch (the unit's entries are all in the cache)."""
        self._db.execute("DELETE FROM batches")
        self._db.commit()


_ACTIVE: ContextVar[BatchJournal | None] = ContextVar("batch_journal", default=None)


@contextmanager
def journal_batches(db: sqlite3.Connection) -> Iterator[BatchJournal]:
    """Journal every forward batch run inside the `with` block into `db`."""
    journal = BatchJournal(db)
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
