"""Per-batch commits (the batch journal): a run interrupted after some forward batches
loses none of them, and the rerun runs only the others and gives bit-identical scores;
a read-only cache is read but never written."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.data.items import LoadedDataset, PairItem
from audit.display import SilentDisplay
from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.models.loaded import LoadedModel
from audit.scoring import batch_journal, cache_db
from audit.scoring.cache import ScoreCache
from audit.scoring.runner import ModelHandle, open_namespace, read_entries, score_unit
from audit.scoring.units import ScoreUnit
from tests.scoring.pairs import PAIRS
from tests.scoring.tiny_models import loaded, tiny_bert, tiny_gpt2

DATASET = LoadedDataset(
    name="pairs",
    shape="pairs",
    items=[PairItem(str(i), "gender", st, at) for i, (st, at) in enumerate(PAIRS)],
    source="test",
    sha256="",
    rows_read=len(PAIRS),
)
# Small token budgets: the unit's sentences make many forward batches.
UNITS = {
    "pll": (tiny_bert, ScoreUnit("m", "pairs", PluginId.of("pll", {"batch_tokens": 64}))),
    "aula": (tiny_bert, ScoreUnit("m", "pairs", PluginId.of("aula", {"batch_tokens": 40}))),
    "ll": (tiny_gpt2, ScoreUnit("m", "pairs", PluginId.of("ll"))),
}


def _handle(model: LoadedModel) -> ModelHandle:
    return ModelHandle("m", "f" * 64, "cpu/float32", load=lambda: model)


def _score(unit: ScoreUnit, model: LoadedModel, cache: ScoreCache) -> dict[str, object]:
    score_unit(unit, model=_handle(model), dataset=DATASET, cache=cache, display=SilentDisplay())
    return read_entries(unit, dataset=DATASET, cache=cache, model=_handle(model).identity)  # type: ignore[return-value]


@pytest.mark.parametrize("name", sorted(UNITS))
def test_an_interrupted_unit_keeps_every_finished_batch(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build, unit = UNITS[name]
    model = loaded(build())
    if name == "ll":
        monkeypatch.setattr("audit.scoring.causal.CPU_TOKEN_BUDGET", 48)
    straight = _score(unit, model, ScoreCache(tmp_path / "straight"))

    committed = {"n": 0}

    def interrupt_after_two_batches(point: str) -> None:
        if point == "score-batch-committed":
            committed["n"] += 1
            if committed["n"] == 2:
                raise KeyboardInterrupt

    monkeypatch.setattr(batch_journal, "fault_point", interrupt_after_two_batches)
    cache = ScoreCache(tmp_path / "resumed")
    with pytest.raises(KeyboardInterrupt):
        _score(unit, model, cache)
    monkeypatch.undo()
    if name == "ll":
        monkeypatch.setattr("audit.scoring.causal.CPU_TOKEN_BUDGET", 48)

    counts = {"replayed": 0, "recorded": 0}
    real_replay, real_record = batch_journal.BatchJournal.replay, batch_journal.BatchJournal.record

    def replay(self: batch_journal.BatchJournal, key: str) -> object:
        found = real_replay(self, key)
        counts["replayed"] += found is not None
        return found

    def record(self: batch_journal.BatchJournal, key: str, outputs: object) -> None:
        counts["recorded"] += 1
        real_record(self, key, outputs)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_journal.BatchJournal, "replay", replay)
    monkeypatch.setattr(batch_journal.BatchJournal, "record", record)
    resumed = _score(unit, model, cache)
    assert counts["replayed"] == 2  # the two batches committed before the interrupt
    assert counts["recorded"] >= 1  # the others ran
    assert resumed == straight  # bit for bit
    namespace = open_namespace(unit.scorer, cache, _handle(model).identity)
    assert namespace.db.execute("SELECT count(*) FROM batches").fetchone() == (0,)
    namespace.close()


def _refuse() -> LoadedModel:
    raise AssertionError("the model was loaded")


def test_a_read_only_cache_serves_a_complete_unit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests may run as root, whom chmod does not stop: the cache is made read-only by
    # telling the cache it cannot write (what os.access answers for a normal user).
    _build, unit = UNITS["aula"]
    cache = ScoreCache(tmp_path)
    entries = _score(unit, loaded(tiny_bert()), cache)
    monkeypatch.setattr(cache_db, "can_write", lambda _path: False)
    database = next(tmp_path.rglob("scores.sqlite"))
    before = database.read_bytes()
    handle = ModelHandle("m", "f" * 64, "cpu/float32", load=_refuse)
    outcome = score_unit(unit, model=handle, dataset=DATASET, cache=cache, display=SilentDisplay())
    assert (outcome.computed, outcome.cached) == (0, len(entries))
    assert read_entries(unit, dataset=DATASET, cache=cache, model=handle.identity) == entries
    # nothing written or set aside (SQLite may add its -wal/-shm files, as root can)
    assert database.read_bytes() == before
    assert not list(tmp_path.rglob("*corrupt*"))


def test_a_read_only_cache_refuses_a_unit_that_must_write_before_loading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_db, "can_write", lambda _path: False)
    monkeypatch.setattr(cache_db, "folder_writable", lambda _folder: False)
    monkeypatch.setattr("audit.scoring.cache.folder_writable", lambda _folder: False)
    _build, unit = UNITS["pll"]
    handle = ModelHandle("m", "f" * 64, "cpu/float32", load=_refuse)
    with pytest.raises(
        AuditUserError, match=r"cannot be written.*m/pairs/pll\[batch_tokens=64\] needs 18 scores"
    ):
        score_unit(
            unit, model=handle, dataset=DATASET, cache=ScoreCache(tmp_path), display=SilentDisplay()
        )
    assert not handle.is_loaded
    assert list(tmp_path.iterdir()) == []
