"""`audit plan`'s time estimate: throughput timed on first use and cached (a second plan
times nothing and loads no model), and an estimate that scales with the work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import audit.calibration
from audit.cli import app
from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.pipeline.time_estimate import Calibrator, estimate_times
from audit.scoring.cache import ScoreCache
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_gpt2

runner = CliRunner()


class FakeClock:
    """A clock that moves 1 s a reading, and counts its readings."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(audit.calibration, "clock", fake)
    return fake


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("model") / "gpt2"
    save_tiny_gpt2(folder)
    return folder


def _spec(folder: Path, model: Path, n_pairs: int, scorers: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"Person {i} is bad at math.,Someone {i} is bad at math." for i in range(n_pairs)]
    (folder / "pairs.csv").write_text("s1,s2\n" + "\n".join(rows) + "\n")
    spec = folder / "spec.yaml"
    spec.write_text(
        "spec_version: 1\nname: time-test\n"
        f"models: [{{id: tiny, source: {{path: {model}}}}}]\n"
        "datasets: [{name: mine, kind: pairs, path: pairs.csv,"
        " columns: {stereotype: s1, anti_stereotype: s2}}]\n"
        f"scorers: {{causal: [{', '.join(scorers)}]}}\n"
        "measures: [bias_score]\n"
    )
    return spec


def _scoring_seconds(spec: Path, cache: Path) -> float:
    settings = RunSettings(out_dir=cache / "out", cache_dir=cache, device="cpu")
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    estimates = estimate_times(plan, ScoreCache(cache), Calibrator(plan, SilentDisplay()))
    assert estimates and all(e.stage == "scoring" for e in estimates)
    assert all(e.seconds is not None for e in estimates)
    return sum(e.seconds or 0.0 for e in estimates)


def test_the_estimate_scales_with_items_times_scorers(
    tmp_path: Path, model_dir: Path, clock: FakeClock
) -> None:
    # 20 pairs: 40 sentences; each unit times a sample of 16 of them (1 s on the clock)
    one = _scoring_seconds(_spec(tmp_path / "a", model_dir, 20, ["ll"]), tmp_path / "ca")
    assert one == pytest.approx(40 / 16)
    two = _scoring_seconds(_spec(tmp_path / "b", model_dir, 40, ["ll", "ppl"]), tmp_path / "cb")
    assert two == pytest.approx(4 * one)


def test_calibration_is_cached_and_a_second_plan_measures_nothing(
    tmp_path: Path, model_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tmp_path, model_dir, 20, ["ll", "ppl"])
    cache = tmp_path / "cache"
    first = runner.invoke(app, ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu"])
    assert first.exit_code == 0, first.output
    assert clock.readings == 4  # two units, each timed once (start, end)
    stored = json.loads((cache / "calibration" / "throughput.json").read_text())
    assert len(stored) == 2 and all(k.startswith("score|") for k in stored)
    assert all("|cpu/float32|" in k for k in stored)
    text = first.output.split("Time estimate", 1)[1]
    assert "scoring: about 5 s" in text
    assert "tiny x mine x ll: 40 sentences, about 2 s (0.0625 s a sentence: ll timed on 16 " in (
        text
    )
    assert "sentences of mine with tiny on cpu" in text

    import audit.models.load

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cached calibration loads no model")

    monkeypatch.setattr(audit.models.load, "load_model", no_load)
    again = runner.invoke(app, ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu"])
    assert again.exit_code == 0, again.output
    assert clock.readings == 4  # nothing timed again
    assert again.output.split("Time estimate", 1)[1] == text


def test_without_calibration_nothing_is_timed_and_the_plan_says_so(
    tmp_path: Path, model_dir: Path, clock: FakeClock
) -> None:
    spec = _spec(tmp_path, model_dir, 3, ["ll"])
    args = ["plan", str(spec), "--cache-dir", str(tmp_path / "c"), "--no-calibrate"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert clock.readings == 0 and not (tmp_path / "c" / "calibration").exists()
    assert "scoring: not estimated (not measured yet)" in result.output
    assert "without --no-calibrate times it" in result.output


def test_a_self_debias_variant_is_timed_as_its_base_times_its_rows(
    tmp_path: Path, model_dir: Path, clock: FakeClock
) -> None:
    spec = _spec(tmp_path / "sd", model_dir, 20, ["ll"])
    spec.write_text(
        spec.read_text()
        + "lm_quality: {enabled: false}\n"
        + "variants: [{id: tiny-sd, base: tiny, method: self_debias,"
        + " options: {prefixes: ['a: ', 'b: ']}}]\n"
    )
    settings = RunSettings(out_dir=tmp_path / "out", cache_dir=tmp_path / "c", device="cpu")
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    estimates = estimate_times(plan, ScoreCache(tmp_path / "c"), Calibrator(plan, SilentDisplay()))
    assert [e.stage for e in estimates] == ["scoring", "scoring"]  # nothing to train
    base, variant = (e.seconds or 0.0 for e in estimates)
    assert variant == pytest.approx(3 * base)
    assert "x 3 for Self-Debias's prefixed copies" in estimates[1].basis


def test_pieces_with_no_estimate_are_counted_on_one_line_per_stage() -> None:
    from audit.pipeline.calibrator import NOT_MEASURED, StageEstimate
    from audit.pipeline.time_estimate import describe_times

    pieces = [
        StageEstimate("scoring", f"m{i} x crows_pairs x cps", None, NOT_MEASURED) for i in range(5)
    ]
    timed = StageEstimate("scoring", "base x crows_pairs x cps", 90.0, "0.1 s a pair: measured")
    lines = describe_times([timed, *pieces], "throughput.json")
    assert lines[1] == "  scoring: about 1:30, more for 5 not measured"
    assert lines[2].startswith("    base x crows_pairs x cps, about 1:30")
    assert lines[3] == (
        "    not estimated, 5 pieces: m0 x crows_pairs x cps; m1 x crows_pairs x cps; "
        f"m2 x crows_pairs x cps; and 2 more ({NOT_MEASURED})"
    )
    assert len(lines) == 5  # the stage's lines, then "in all"
