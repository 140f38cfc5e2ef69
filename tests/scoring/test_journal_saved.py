"""`audit plan` counts the batches a killed run journalled as saved: the next run replays
them instead of scoring them, and the interrupted run's own line counted them."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.scoring import batch_journal
from audit.scoring.cache import ScoreCache
from audit.scoring.runner import planned_work, score_unit
from tests.scoring.test_runner_journal import DATASET, UNITS, _handle
from tests.scoring.tiny_models import loaded


class CountingDisplay(SilentDisplay):
    """Adds up the progress a run reports: what its interrupt line says was saved."""

    def __init__(self) -> None:
        super().__init__()
        self.done = 0

    def advance(self, key: str, n: int) -> None:
        self.done += n


@pytest.mark.parametrize("name", ["ll", "pll"])
def test_journalled_batches_of_a_killed_run_count_as_saved(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, unit = UNITS[name]
    model = loaded(build())
    if name == "ll":
        monkeypatch.setattr("audit.scoring.causal.CPU_TOKEN_BUDGET", 48)
    batches = {"n": 0}

    def kill_in_the_fourth_batch(point: str) -> None:
        # before the fourth batch's commit: three batches journalled, and reported
        if point == "score-batch-before-commit":
            batches["n"] += 1
            if batches["n"] == 4:
                raise KeyboardInterrupt

    monkeypatch.setattr(batch_journal, "fault_point", kill_in_the_fourth_batch)
    cache = ScoreCache(tmp_path)
    display = CountingDisplay()
    with pytest.raises(KeyboardInterrupt):
        score_unit(unit, model=_handle(model), dataset=DATASET, cache=cache, display=display)
    identity = _handle(model).identity
    total, saved = planned_work(
        unit,
        dataset=DATASET,
        cache=cache,
        fingerprint=identity.fingerprint,
        precision=identity.precision,
    )
    # nothing reached the entries (one chunk), three batches reached the journal
    assert 0 < display.done < total
    assert saved == display.done
    # another unit of the same namespace (same model and scorer) owns none of them
    other = type(unit)(unit.model, "other", unit.scorer)
    assert planned_work(
        other,
        dataset=DATASET,
        cache=cache,
        fingerprint=identity.fingerprint,
        precision=identity.precision,
    ) == (total, 0)


def test_a_finished_unit_leaves_no_journalled_work(tmp_path: Path) -> None:
    build, unit = UNITS["aula"]
    model = loaded(build())
    cache = ScoreCache(tmp_path)
    score_unit(unit, model=_handle(model), dataset=DATASET, cache=cache, display=SilentDisplay())
    database = next(tmp_path.rglob("scores.sqlite"))
    assert batch_journal.journalled_work(database, unit.dataset) == 0
    assert batch_journal.journalled_work(tmp_path / "absent.sqlite", unit.dataset) == 0
