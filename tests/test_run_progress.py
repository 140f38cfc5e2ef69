"""The one line an interrupted run prints: what is saved, and the command that resumes."""

from __future__ import annotations

from pathlib import Path

from audit.display import SilentDisplay
from audit.overall_eta import QueuedUnit
from audit.run_progress import RunProgress, TrackingDisplay


def _record() -> tuple[RunProgress, TrackingDisplay]:
    record = RunProgress("audit run spec.yaml", cache_dir=Path("/c"), out_dir=Path("/o"))
    return record, TrackingDisplay(SilentDisplay(), record)


def _bar(display: TrackingDisplay, key: str, description: str, total: int, done: int) -> None:
    """A bar that counted `done` of `total` and finished (complete when done == total)."""
    display.start(key, description, total)
    display.advance(key, done)
    display.finish(key)


def test_scoring_units_done_and_in_progress() -> None:
    record, display = _record()
    display.stage("scoring")
    _bar(display, "m/a/ll", "m · a · ll", 10, 10)
    display.start("m/b/aul", "m · b · aul", 3014)
    display.advance("m/b/aul", 1024)
    display.advance("m/b/aul", 512)
    assert record.interrupted_line("SIGTERM") == (
        "interrupted (SIGTERM): the scores of 1 complete unit and 1,536 of 3,014 sentences "
        "of m · b · aul are saved in the score cache in /c; rerun `audit run spec.yaml` to "
        "resume"
    )


def test_a_training_keeps_its_checkpoint() -> None:
    record, display = _record()
    display.stage("variants")
    _bar(display, "train v1", "training v1 (cda of m)", 100, 100)
    record.checkpoint(20)  # resumed from step 20 before the bar started
    display.start("train v2", "training v2 (cda of m) (resuming)", 100)
    display.advance("train v2", 20)
    record.checkpoint(40)
    display.advance("train v2", 5)
    line = record.interrupted_line("SIGINT")
    assert line == (
        "interrupted (SIGINT): 1 finished training is stored in the cache; training v2 "
        "(cda of m) keeps its checkpoint at step 40 of 100; rerun `audit run spec.yaml` "
        "to resume"
    )


def test_a_training_without_a_checkpoint_starts_again() -> None:
    record, display = _record()
    display.start("extrinsic sts m", "fine-tuning sts on m", 50)
    display.advance("extrinsic sts m", 3)
    assert "fine-tuning sts on m had no checkpoint yet and starts again" in (
        record.interrupted_line("SIGINT")
    )


def test_after_scoring_every_score_is_saved() -> None:
    record, display = _record()
    display.stage("measures")
    assert record.interrupted_line("SIGINT") == (
        "interrupted (SIGINT): every score is saved in the score cache in /c; rerun "
        "`audit run spec.yaml` to resume"
    )


def test_while_writing_the_report() -> None:
    record, display = _record()
    display.stage("report")
    line = record.interrupted_line("SIGTERM")
    assert line.startswith("interrupted (SIGTERM) while writing the report: results.json")
    assert "a report written earlier stays whole" in line


def test_before_anything_is_done() -> None:
    record, _ = _record()
    assert record.interrupted_line("SIGINT") == (
        "interrupted (SIGINT): nothing new to save; rerun `audit run spec.yaml` to start again"
    )


def test_the_tracking_display_passes_the_stages_units_on() -> None:
    inner = SilentDisplay()
    display = TrackingDisplay(inner, RunProgress("audit run spec.yaml"))
    units = [QueuedUnit("m/a/ll", 10, "m")]
    display.overall(units)
    assert inner.queued == units
