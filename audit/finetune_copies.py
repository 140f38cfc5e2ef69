"""Extrinsic values stored twice by older runs.

Runs before issue 18 stored each extrinsic value twice: as its `ExtrinsicRecord` and as a
`Measurement` with the made-up scorer `finetune` (so the correlation study could read
it). Runs now store it once, in `extrinsic`. Readers of an older results.json skip the
copy of every value that has its record, so an old file renders (and compares) as a
new one does; a `finetune` measurement without a record is kept and shown.
"""

from __future__ import annotations

from audit.results import AuditResult

#: The scorer name older runs gave the measurement copy of an extrinsic value.
FINETUNE_SCORER = "finetune"


def without_finetune_copies(result: AuditResult) -> AuditResult:
    """`result` without the `finetune` measurements that repeat an extrinsic record."""
    recorded = {(r.model, r.dataset, r.measure) for r in result.extrinsic}
    kept = [
        m
        for m in result.measurements
        if m.scorer.name != FINETUNE_SCORER or (m.model, m.dataset, m.measure) not in recorded
    ]
    if len(kept) == len(result.measurements):
        return result
    return result.model_copy(update={"measurements": kept})
