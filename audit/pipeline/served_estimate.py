"""How long a served model's scoring units will take (`served_estimate`): the unit's
scorer timed through the model's own endpoint on three slices of the unit's entries
sorted by length, by the run's own code (`audit.scoring.runner.compute_entries`, which
hands the served model its entries with its requests in flight), a quarter of the unit
at most.

Its speed is the server's: what the plan measures holds while the server is as loaded as
it was then. `audit plan` probes an endpoint anyway (`prepare_served`), so timing it
reads no weights and is done in the default mode too; a `backend: llama_cpp` model's
server is started by the run, so the plan starts it to time it only with `--calibrate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from audit.calibration import SCORING_SLICES, clock, length_slice, measured
from audit.pipeline.calibrator import Calibrator, StageEstimate, estimate_of

if TYPE_CHECKING:
    from audit.ids import PluginId
    from audit.models.prepared import PreparedModel
    from audit.scoring.base import ServedScoring
    from audit.scoring.runner import Job

__all__ = ["served_estimate", "time_served"]


def served_estimate(
    calibrator: Calibrator,
    model: PreparedModel,
    scorer: PluginId,
    jobs: Sequence[Job],
    work: Callable[[tuple[str, ...]], int],
    *,
    key: str,
    what: str,
    to_score: int,
) -> StageEstimate:
    """The estimate of a served unit with `to_score` sentences: its measurement under
    `key` (cached, else timed now through the endpoint), or none, with the reason."""
    from audit.errors import AuditUserError

    served = model.served
    where = served.endpoint if served is not None else "a llama.cpp server started by the run"
    basis = f"{scorer.name} timed on slices of the unit sorted by length, through {where}"
    known = calibrator.cache.get(key)
    if known is None:
        starts = model.spec.backend == "llama_cpp"
        if calibrator.mode == "none" or (starts and calibrator.mode != "weights"):
            why = (
                "`audit plan --calibrate` starts its server and times it"
                if starts
                else "nothing is timed in this mode"
            )
            return StageEstimate("scoring", what, None, f"scored by {where}: not timed ({why})")
        try:
            connection = _connect(model, calibrator)
        except (OSError, AuditUserError) as error:
            reason = f"scored by {where}: not timed (it did not answer: {error})"
            return StageEstimate("scoring", what, None, reason)
        try:
            calibrator.display.step("calibrate", f"measuring throughput: {basis}")
            seconds, units = time_served(scorer, jobs, connection, work)
            calibrator.display.end_step("calibrate", f"measured throughput: {basis}")
        finally:
            connection.close()
        known = measured(seconds, units, basis + " (the server's speed at the time)")
        calibrator.cache.put(key, known)
    return estimate_of("scoring", what, known, to_score, "sentence")


def _connect(model: PreparedModel, calibrator: Calibrator) -> ServedScoring:
    from audit.serving.served_model import connect, start_local_backend

    if model.spec.backend == "llama_cpp":
        return start_local_backend(model, calibrator.plan.settings.cache_dir)
    assert model.served is not None
    return connect(model.spec, model.served)


def time_served(
    scorer: PluginId,
    jobs: Sequence[Job],
    served: ServedScoring,
    work: Callable[[tuple[str, ...]], int],
) -> tuple[float, int]:
    """(seconds, work units) of `SCORING_SLICES` slices of `jobs` (sorted by length, at
    1/6, 1/2 and 5/6 of the way through) scored through `served` by the run's own code,
    after one untimed entry (the server's first request). A slice is one chunk of
    `entries_per_commit` entries (the run's), fewer in a small unit: the three hold at
    most a quarter of it. `work`: an entry's sentences, from its texts."""
    from audit.scoring.runner import compute_entries

    ordered = sorted(jobs, key=lambda job: sum(len(text) for text in job.texts))
    size = max(1, min(served.entries_per_commit, len(ordered) // (4 * SCORING_SLICES)))

    def score(part: list[Job]) -> float:
        started = clock()
        for _ in compute_entries(scorer, part, served, progress=lambda n: None):
            pass
        return clock() - started

    score(length_slice(ordered, 0.5, 1))  # warm-up, untimed
    seconds, units = 0.0, 0
    for k in range(SCORING_SLICES):
        part = length_slice(ordered, (k + 0.5) / SCORING_SLICES, size)
        seconds += score(part)
        units += sum(work(job.texts) for job in part)
    return seconds, units
