"""SEAT run by `audit run`: planned with the others (a missing folder stops the plan),
run on tiny saved models after scoring, written to results.json's `seat` section, shown
in the report, and read back from the cache on a second run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, run_audit
from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.pipeline.audit_plan import plan_audit
from audit.pipeline.plan_text import describe_plan
from audit.pipeline.seat_plan import CAUSAL_FIRST_REASON
from audit.report.build import build_report
from audit.report.render import render_html
from audit.results_io import read_results
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2

SPEC = """\
spec_version: 1
name: seat-test
seed: 7
bootstrap: 50
models:
  - id: tiny-bert
    source: {path: models/bert}
  - id: tiny-gpt2
    source: {path: models/gpt2}
datasets:
  - name: my-pairs
    kind: pairs
    path: pairs.csv
    columns: {stereotype: s1, anti_stereotype: s2, bias_type: type}
scorers: {masked: [cps], causal: [ll]}
measures:
  - bias_score
  - {name: seat, tests: [sent-weat6, my-test]}
  - {name: seat, tests: [my-test], pooling: first, n_samples: 10}
report: {formats: [html]}
"""

PAIRS = """s1,s2,type
Women are bad at math.,Men are bad at math.,gender
She is a nurse.,He is a nurse.,gender
"""


def _test_file(x: list[str], y: list[str], a: list[str], b: list[str]) -> str:
    sets = {"targ1": x, "targ2": y, "attr1": a, "attr2": b}
    return json.dumps({k: {"category": k.upper(), "examples": v} for k, v in sets.items()})


# a small test under a name of bias-bench's gender list (its content is not the release's,
# so it is not verified) and one of the user's own
WEAT6 = _test_file(
    ["This is John.", "This is Paul.", "This is Mike."],
    ["This is Amy.", "This is Joan.", "This is Lisa."],
    ["This is a career.", "This is a salary.", "This is an office."],
    ["This is a home.", "This is a family.", "These are children."],
)
MINE = _test_file(
    ["He is here.", "The man is here.", "A boy is here."],
    ["She is here.", "The woman is here.", "A girl is here."],
    ["It is strong.", "It is loud."],
    ["It is gentle.", "It is quiet."],
)


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seat-engine")
    save_tiny_bert(root / "models" / "bert")
    save_tiny_gpt2(root / "models" / "gpt2")
    (root / "spec.yaml").write_text(SPEC)
    (root / "pairs.csv").write_text(PAIRS)
    seat = root / "data" / "seat"
    seat.mkdir(parents=True)
    (seat / "sent-weat6.jsonl").write_text(WEAT6)
    (seat / "my-test.jsonl").write_text(MINE)
    return root


def _settings(spec_dir: Path, cache: Path, out: str, data: Path | None = None) -> RunSettings:
    return RunSettings(
        out_dir=spec_dir / out,
        cache_dir=cache,
        data_dir=spec_dir / "data" if data is None else data,
        device="cpu",
    )


@pytest.fixture(scope="module")
def first_run(spec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[RunOutcome, Path]:
    cache = tmp_path_factory.mktemp("cache")
    settings = _settings(spec_dir, cache, "out1")
    return run_audit(load_spec(spec_dir / "spec.yaml"), settings, SilentDisplay()), cache


MEAN = PluginId.of("seat", {"tests": ["sent-weat6", "my-test"]})
FIRST = PluginId.of("seat", {"tests": ["my-test"], "pooling": "first", "n_samples": 10})


def test_spec_naming_seat_is_not_warned(spec_dir: Path) -> None:
    loaded = load_spec(spec_dir / "spec.yaml")
    assert not [w for w in loaded.warnings if "compute nothing" in str(w)]


def test_results_hold_a_record_per_model_and_test(first_run: tuple[RunOutcome, Path]) -> None:
    seat = first_run[0].result.seat
    assert seat is not None
    assert [(r.measure, r.model, r.test) for r in seat.tests] == [
        (MEAN, "tiny-bert", "sent-weat6"),
        (MEAN, "tiny-bert", "my-test"),
        (MEAN, "tiny-gpt2", "sent-weat6"),
        (MEAN, "tiny-gpt2", "my-test"),
        (FIRST, "tiny-bert", "my-test"),
    ]
    weat6 = seat.tests[0]
    assert (weat6.n_x, weat6.n_y, weat6.n_a, weat6.n_b) == (3, 3, 3, 3)
    assert weat6.bias_type == "gender" and not weat6.verified
    assert weat6.exact and weat6.n_partitions == 20 and weat6.n_samples == 100_000
    assert weat6.pooling == "mean" and weat6.effect_size is not None
    assert 0 < weat6.p_value <= 1
    mine = seat.tests[1]
    assert mine.bias_type is None and (mine.n_a, mine.n_b) == (2, 2)
    sampled = seat.tests[4]
    assert not sampled.exact and sampled.n_partitions == 10 and sampled.pooling == "first"
    assert sampled.p_value >= 1 / 10  # the partition counted without drawing
    assert seat.tests[1].seed == seat.tests[3].seed == sampled.seed != weat6.seed
    # the mean |d| of a bias type over its tests: here sent-weat6 alone
    assert [(b.model, b.bias_type, b.n_tests) for b in seat.bias_types] == [
        ("tiny-bert", "gender", 1),
        ("tiny-gpt2", "gender", 1),
    ]
    assert seat.bias_types[0].mean_abs_effect == pytest.approx(abs(weat6.effect_size))
    assert [(s.measure, s.model, s.reason) for s in seat.skipped] == [
        (FIRST, "tiny-gpt2", CAUSAL_FIRST_REASON)
    ]
    assert seat.alpha == 0.05 and seat.folder.endswith("seat")


def test_what_ran_is_what_was_planned(first_run: tuple[RunOutcome, Path], spec_dir: Path) -> None:
    outcome, cache = first_run
    plan = plan_audit(
        load_spec(spec_dir / "spec.yaml"), _settings(spec_dir, cache, "plan"), SilentDisplay()
    )
    assert outcome.executed == plan.steps()
    assert f"measure {MEAN.label} on tiny-gpt2 (2 SEAT tests)" in plan.steps()
    text = describe_plan(plan)
    assert "SEAT (tests from" in text and "tiny-bert: in the cache" in text
    assert "tiny-gpt2: left out: pooling 'first' on a causal LM" in text
    assert "Computes nothing" not in text


def test_report_shows_the_section_and_page_one_says_it(
    first_run: tuple[RunOutcome, Path],
) -> None:
    result = read_results(first_run[0].out_dir / "results.json")
    assert result.seat == first_run[0].result.seat
    report = build_report(result, None)
    assert report.seat is not None
    assert [t.id for t in report.seat.tables] == ["seat-bias-types", "seat-tests"]
    assert len(report.seat.tables[1].rows) == 5
    assert len(report.seat.charts) == 1
    (block,) = [b for b in report.summary.findings if b.heading == "SEAT."]
    below = sum(r.p_value < 0.05 for r in result.seat.tests)  # type: ignore[union-attr]
    assert f"{below} of 5 tests on 2 models had" in block.text and "not corrected" in block.text
    assert "for gender on tiny-bert (seat[" in block.text
    assert any(card.name.startswith("seat") for card in report.cards)
    html = render_html(report)
    assert 'id="seat"' in html and "SEAT: effect size per test" in html


def test_second_run_reads_seat_from_the_cache(
    first_run: tuple[RunOutcome, Path], spec_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome, cache = first_run

    def no_loading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm rerun must not load model weights")

    monkeypatch.setattr("audit.models.load.load_model", no_loading)
    settings = _settings(spec_dir, cache, "out2")
    again = run_audit(load_spec(spec_dir / "spec.yaml"), settings, SilentDisplay())
    assert again.result.seat == outcome.result.seat


def test_results_without_the_section_still_load(
    first_run: tuple[RunOutcome, Path], tmp_path: Path
) -> None:
    data = json.loads((first_run[0].out_dir / "results.json").read_text())
    del data["seat"]
    (tmp_path / "results.json").write_text(json.dumps(data))
    result = read_results(tmp_path / "results.json")
    assert result.seat is None
    report = build_report(result, None)
    assert report.seat is None
    assert not [b for b in report.summary.findings if b.heading == "SEAT."]
    assert 'id="seat"' not in render_html(report)


def test_a_missing_seat_folder_stops_the_plan(spec_dir: Path, tmp_path: Path) -> None:
    loaded = load_spec(spec_dir / "spec.yaml")
    with pytest.raises(AuditUserError, match=r"no SEAT folder .*seat; .*--data-dir"):
        plan_audit(loaded, _settings(spec_dir, tmp_path, "x", data=tmp_path), SilentDisplay())
    no_data = RunSettings(out_dir=tmp_path / "y", cache_dir=tmp_path, device="cpu")
    with pytest.raises(AuditUserError, match=r"<data dir>/seat/: pass --data-dir"):
        plan_audit(loaded, no_data, SilentDisplay())


def test_a_raised_seat_version_is_computed_again_and_the_plan_says_why(
    first_run: tuple[RunOutcome, Path], spec_dir: Path
) -> None:
    from audit.measures.catalog import MEASURES
    from audit.pipeline.plan_text import describe_seat
    from tests.plugin_versions import registered_as

    _, cache = first_run
    settings = _settings(spec_dir, cache, "out-plan")
    same = describe_seat(plan_audit(load_spec(spec_dir / "spec.yaml"), settings, SilentDisplay()))
    assert "    tiny-bert: in the cache" in same
    with registered_as(MEASURES, "seat", version="2"):
        plan = plan_audit(load_spec(spec_dir / "spec.yaml"), settings, SilentDisplay())
        raised = describe_seat(plan)
    assert (
        "    tiny-bert: to compute (the cached copy was made by measure 'seat' version 1, "
        "now version 2)"
    ) in raised
