"""`audit plan`'s time estimate: throughput timed on first use (on the model's
architecture unless --calibrate asks for its weights) and cached (a second plan times
nothing and loads no model), and an estimate that scales with the work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import audit.calibration
from audit.cli import app
from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.pipeline.time_estimate import Calibrator, estimate_times
from audit.scoring import causal
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
    # every pass "takes" 1 s; the first slice size (8 entries) is enough
    monkeypatch.setattr(audit.calibration, "SLICE_TOKENS", 1)
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
    # 20 pairs: 40 sentences; each unit times 3 slices of 8 (1 s each on the clock, after
    # an untimed warm-up): 3 s for 24 sentences, 0.125 s a sentence, 5 s for the 40
    one = _scoring_seconds(_spec(tmp_path / "a", model_dir, 20, ["ll"]), tmp_path / "ca")
    assert one == pytest.approx(40 * 3 / 24)
    two = _scoring_seconds(_spec(tmp_path / "b", model_dir, 40, ["ll", "ppl"]), tmp_path / "cb")
    assert two == pytest.approx(4 * one)


def test_calibration_is_cached_and_a_second_plan_measures_nothing(
    tmp_path: Path, model_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tmp_path, model_dir, 20, ["ll", "ppl"])
    cache = tmp_path / "cache"
    first = runner.invoke(app, ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu"])
    assert first.exit_code == 0, first.output
    assert clock.readings == 16  # two units, each: a warm-up and 3 slices (start, end)
    stored = json.loads((cache / "calibration" / "throughput.json").read_text())
    # timed on the architecture (the default): stored apart from a --calibrate measurement
    assert len(stored) == 2 and all(k.startswith("shape|score|") for k in stored)
    assert all("|cpu/float32|" in k for k in stored)
    text = first.output.split("Time estimate", 1)[1]
    assert "scoring: about 10 s" in text
    assert "tiny x mine x ll: 40 sentences, about 5 s (0.125 s a sentence: ll timed on " in text
    assert "slices of mine sorted by length, with tiny on cpu, its architecture with " in text
    assert "random weights (config and tokenizer; no weights read)" in text

    import audit.models.load

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cached calibration loads no model")

    monkeypatch.setattr(audit.models.load, "load_model", no_load)
    again = runner.invoke(app, ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu"])
    assert again.exit_code == 0, again.output
    assert clock.readings == 16  # nothing timed again
    assert again.output.split("Time estimate", 1)[1] == text


def _unreadable_weights(model_dir: Path, folder: Path) -> Path:
    """A copy of the tiny model whose weights file is not a weights file: loading it
    fails, hashing it (the fingerprint) does not."""
    shutil.copytree(model_dir, folder)
    for weights in folder.glob("*.safetensors"):
        weights.write_bytes(b"not a safetensors file" * 100)
    return folder


@pytest.mark.parametrize("flag", [[], ["--no-calibrate"]])
def test_without_calibrate_the_plan_reads_no_weights(
    tmp_path: Path, model_dir: Path, clock: FakeClock, flag: list[str]
) -> None:
    model = _unreadable_weights(model_dir, tmp_path / "broken")
    spec = _spec(tmp_path, model, 20, ["ll"])
    args = ["plan", str(spec), "--cache-dir", str(tmp_path / "c"), "--device", "cpu", *flag]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "tiny x mine x ll: 40 sentences, about 5 s (0.125 s a sentence" in result.output
    assert "its architecture with random weights" in result.output


def test_calibrate_times_the_model_itself(
    tmp_path: Path, model_dir: Path, clock: FakeClock
) -> None:
    # the same plan with --calibrate loads the weights: the unreadable file stops it
    model = _unreadable_weights(model_dir, tmp_path / "broken")
    spec = _spec(tmp_path, model, 20, ["ll"])
    cache = tmp_path / "c"
    args = ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu", "--calibrate"]
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert "broken" in result.output
    # on readable weights it measures them, under its own key, and says so
    good = _spec(tmp_path / "good", model_dir, 20, ["ll"])
    result = runner.invoke(app, ["plan", str(good), *args[2:]])
    assert result.exit_code == 0, result.output
    stored = json.loads((cache / "calibration" / "throughput.json").read_text())
    assert [k.split("|")[0] for k in stored] == ["score"]
    assert "ll timed on slices of mine sorted by length, with tiny on cpu, 20" in result.output


def test_a_measurement_on_the_weights_is_preferred_to_one_on_the_architecture(
    tmp_path: Path, model_dir: Path, clock: FakeClock
) -> None:
    from audit.calibration import ThroughputCache, measured

    spec = _spec(tmp_path, model_dir, 20, ["ll"])
    cache = tmp_path / "c"
    plain = ["plan", str(spec), "--cache-dir", str(cache), "--device", "cpu"]
    assert runner.invoke(app, plain).exit_code == 0
    stored = ThroughputCache(cache)
    (key,) = json.loads(stored.path.read_text())
    stored.put(key.removeprefix("shape|"), measured(4.0, 40, "on the weights"))
    readings = clock.readings
    result = runner.invoke(app, plain)
    assert clock.readings == readings  # nothing timed
    assert "40 sentences, about 4 s (0.1 s a sentence: on the weights" in result.output


def test_a_self_debias_variant_is_timed_on_its_base_with_its_prefixes(
    tmp_path: Path, model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Self-Debias variant is timed as it scores: its base with the variant's prefixes
    (each row once more per prefix, each copy longer by its prefix). Timed as its base
    times its rows, the estimate was 0.59-0.83 of the run on posthoc-debiasing."""
    import audit.pipeline.time_estimate as time_estimate

    seen: list[int | None] = []

    def fake_time_scoring(scorer: object, jobs: object, loaded: object, work: object) -> tuple:
        debias = getattr(loaded, "self_debias", None)
        seen.append(None if debias is None else debias.groups)
        return (1.0, 10) if debias is None else (5.0, 10)  # the variant: 5x slower here

    monkeypatch.setattr(time_estimate, "time_scoring", fake_time_scoring)
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
    assert seen == [None, 3]  # the base alone, then with the variant's two prefixes
    base, variant = (e.seconds or 0.0 for e in estimates)
    assert variant == pytest.approx(5 * base)
    assert "tiny-sd's 2 Self-Debias prefixes" in estimates[1].basis


def test_the_held_out_text_of_the_language_modelling_cost_is_estimated(
    tmp_path: Path, model_dir: Path, clock: FakeClock, shared_data: Path
) -> None:
    """A run scores the held-out text for a base with variants and for each variant in
    its scoring stage; the plan estimated only the datasets' units (on
    specs/posthoc-debiasing.yaml, 3.5 minutes of a 22-minute run were missing)."""
    spec = _spec(tmp_path / "lm", model_dir, 20, ["ll"])
    spec.write_text(
        spec.read_text()
        + "variants: [{id: tiny-sd, base: tiny, method: self_debias,"
        + " options: {prefixes: ['a: ']}}]\n"
    )
    settings = RunSettings(
        out_dir=tmp_path / "out", cache_dir=tmp_path / "c", data_dir=shared_data, device="cpu"
    )
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    assert plan.lm_quality_units
    estimates = estimate_times(plan, ScoreCache(tmp_path / "c"), Calibrator(plan, SilentDisplay()))
    held_out = {u.dataset for u in plan.lm_quality_units}
    planned = [e for e in estimates if any(f" x {name} x " in e.what for name in held_out)]
    assert len(planned) == len(plan.lm_quality_units) == 2  # the base and its variant
    assert all(e.seconds is not None and e.seconds > 0 for e in planned)


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


def _time_slices(budget: int) -> tuple[list[int], float, int]:
    """`time_scoring` of `ll` on 100 short sentences (about 9 tokens each) with slices of
    500 tokens and the causal CPU budget `budget`: the rows of every forward batch, the
    seconds and the entries timed. (The caller patches SLICE_TOKENS and the clock.)"""
    from audit.calibration import time_scoring
    from audit.ids import PluginId
    from audit.scoring.runner import Job
    from tests.scoring.tiny_models import loaded, tiny_gpt2

    model = loaded(tiny_gpt2())
    jobs = [Job(f"k{i}", (f"Person {i} is bad at math.",)) for i in range(100)]
    batches: list[int] = []
    hook = model.model.get_input_embeddings().register_forward_pre_hook(
        lambda _m, args: batches.append(int(args[0].shape[0]))
    )
    causal.CPU_TOKEN_BUDGET = budget
    try:
        seconds, units = time_scoring(PluginId.of("ll"), jobs, model, lambda job: 1)
    finally:
        hook.remove()
        causal.CPU_TOKEN_BUDGET = None
    return batches, seconds, units


def test_a_scoring_slice_grows_until_its_batch_is_large(
    model_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # about 9 tokens a sentence: 8 entries make 72 tokens, 24 make 216, 72 make 648
    monkeypatch.setattr(audit.calibration, "SLICE_TOKENS", 500)
    batches, seconds, units = _time_slices(4096)  # each slice one batch
    # warm-up 8, then the middle slice at 8, 24 and 72 entries, then two more slices of 72
    assert batches == [8, 8, 24, 72, 72, 72]
    assert (seconds, units) == (3.0, 216)  # the last middle slice and the two others


def test_a_slice_counts_the_tokens_of_all_its_batches(
    model_dir: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scorer whose batches are smaller than a slice (the causal CPU budget) splits it;
    the slice stops growing once its batches hold SLICE_TOKENS in all, as with one batch
    (counting only the largest batch grew it to the whole unit)."""
    monkeypatch.setattr(audit.calibration, "SLICE_TOKENS", 500)
    batches, _seconds, units = _time_slices(100)  # about 11 sentences a batch
    assert units == 216  # slices of 72 entries, three of them (not the whole unit of 100)
    assert max(batches) < 72 and len(batches) > 6  # the slices ran as several batches
