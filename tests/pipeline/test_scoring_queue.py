"""The units the overall ETA counts are the bars the scoring stage starts."""

from __future__ import annotations

from pathlib import Path

from audit.display import SilentDisplay
from audit.engine import RunSettings, run_audit
from audit.run_progress import RunProgress, TrackingDisplay
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_gpt2


def _spec(tmp_path: Path) -> Path:
    save_tiny_gpt2(tmp_path / "gpt2")
    (tmp_path / "pairs.csv").write_text(
        "s1,s2\nWomen are bad at math.,Men are bad at math.\nHe is a nurse.,She is a nurse.\n"
    )
    (tmp_path / "more.csv").write_text("s1,s2\nThe poor are lazy.,The rich are lazy.\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "spec_version: 1\nname: queue-test\nbootstrap: 50\n"
        "models: [{id: tiny, source: {path: gpt2}}]\n"
        "datasets: [{name: pairs, kind: pairs, path: pairs.csv,"
        " columns: {stereotype: s1, anti_stereotype: s2}},"
        " {name: more, kind: pairs, path: more.csv,"
        " columns: {stereotype: s1, anti_stereotype: s2}}]\n"
        "measures: [bias_score]\nreport: {formats: []}\n"
    )
    return spec


def test_the_queued_units_are_the_bars_of_the_scoring_stage(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    settings = RunSettings(out_dir=tmp_path / "out", cache_dir=tmp_path / "cache")
    inner = SilentDisplay()
    record = RunProgress("audit run spec.yaml")
    run_audit(load_spec(spec), settings, TrackingDisplay(inner, record))
    queued = {u.key: u.size for u in inner.queued}
    bars = {key: bar.total for key, (training, bar) in record.bars.items() if not training}
    # on an empty cache every unit scores all its sentences: a bar each, of the queued size
    assert bars and queued == bars
    assert {u.queue for u in inner.queued} == {"tiny"}

    again = SilentDisplay()
    run_audit(load_spec(spec), settings, again)
    assert {u.key for u in again.queued} == set(queued) and not again.started  # all cached
