"""`audit plan` for the work that encodes sentences: a post-hoc projection (INLP,
SentenceDebias) says what it is computed from instead of "0 steps" and has a time
estimate (encoding measured on a sample of its sentences, plus its method's own
computation timed on random vectors of the real shape); SEAT and BBQ are in the scoring
estimate. Timed with a fake clock (1 s a reading), so every estimate is exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import audit.calibration
from audit.cli import app
from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.pipeline.time_estimate import Calibrator, StageEstimate, estimate_times
from audit.scoring.cache import ScoreCache
from audit.spec.loader import load_spec
from tests.data.test_bbq import bbq_row, write_release
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2
from tests.pipeline.test_seat_stage import MINE, WEAT6
from tests.pipeline.test_time_estimate import FakeClock
from tests.variants.test_engine_variants import corpus_lines

runner = CliRunner()

POSTHOC = """\
spec_version: 1
name: posthoc-plan
seed: 3
models:
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: mine, kind: pairs, path: pairs.csv, columns: {stereotype: s1, anti_stereotype: s2}}
scorers: {masked: [cps]}
measures: [bias_score]
variants:
  - {id: bert-sd, base: tiny-bert, method: sentence_debias, corpus: {path: corpus.txt},
     training: {batch_size: 8, max_length: 16}}
  - {id: bert-inlp, base: tiny-bert, method: inlp, corpus: {path: corpus.txt},
     training: {batch_size: 8, max_length: 16}, options: {iterations: 3}}
"""
SEAT_AND_BBQ = """\
spec_version: 1
name: seat-bbq-plan
models:
  - {id: tiny-gpt2, source: {path: models/gpt2}}
datasets:
  - {name: bbq, path: BBQ}
scorers: {causal: [choice_ll]}
measures: [bbq_accuracy_ambig, {name: seat, tests: [sent-weat6, my-test]}]
"""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(audit.calibration, "clock", fake)
    return fake


@pytest.fixture(scope="module")
def posthoc_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("posthoc-plan")
    save_tiny_bert(root / "models" / "bert")
    (root / "spec.yaml").write_text(POSTHOC)
    (root / "pairs.csv").write_text("s1,s2\nWomen are bad at math.,Men are bad at math.\n")
    (root / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    return root


@pytest.fixture(scope="module")
def seat_bbq_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seat-bbq-plan")
    save_tiny_gpt2(root / "models" / "gpt2")
    (root / "spec.yaml").write_text(SEAT_AND_BBQ)
    write_release(root / "BBQ", {"Age": [bbq_row(i) for i in range(5)]})
    seat = root / "data" / "seat"
    seat.mkdir(parents=True)
    (seat / "sent-weat6.jsonl").write_text(WEAT6)
    (seat / "my-test.jsonl").write_text(MINE)
    return root


def _estimates(spec: Path, cache: Path, data_dir: Path) -> list[StageEstimate]:
    settings = RunSettings(out_dir=cache / "out", cache_dir=cache, data_dir=data_dir, device="cpu")
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    return estimate_times(plan, ScoreCache(cache), Calibrator(plan, SilentDisplay()))


def test_a_projection_is_described_and_estimated(
    posthoc_dir: Path, shared_data: Path, tmp_path: Path, clock: FakeClock
) -> None:
    args = ["plan", str(posthoc_dir / "spec.yaml"), "--cache-dir", str(tmp_path), "--device"]
    args += ["cpu", "--data-dir", str(shared_data)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "0 steps" not in text
    inlp = next(line for line in text.splitlines() if "bert-inlp: inlp[iterations=3] of" in line)
    assert inlp.endswith(
        ": to compute: projection from 42 corpus sentences (male 14, female 14, neutral 14), "
        "3 INLP iterations, no training on cpu"
    )
    sd = next(line for line in text.splitlines() if "bert-sd: sentence_debias of" in line)
    assert sd.endswith(
        ": to compute: projection from 84 corpus sentences (42 counterfactual sets of 2), "
        "PCA of 1 component, no training on cpu"
    )
    assert "2 of 2 to train or compute; their scoring units run once they are made" in text
    estimate = text.split("Time estimate", 1)[1]
    # 16 sentences encoded in 1 s on the fake clock; each timed unit 1 s
    assert "  projection: about 14 s" in estimate
    assert "no training, about 8 s (0.0625 s a sentence: 16 of its sentences encoded" in estimate
    assert "an INLP iteration: one INLP iteration timed on random vectors" in estimate
    assert "a PCA: one PCA timed on random vectors of its shape on cpu" in estimate
    stored = json.loads((tmp_path / "calibration" / "throughput.json").read_text())
    # timed on the architectures (no --calibrate)
    assert sum(k.startswith("shape|encode|") for k in stored) == 2
    assert sum(k.startswith("shape|fit|") for k in stored) == 2


def test_a_projections_estimate_is_its_sentences_and_its_iterations(
    posthoc_dir: Path, shared_data: Path, tmp_path: Path, clock: FakeClock
) -> None:
    estimates = _estimates(posthoc_dir / "spec.yaml", tmp_path, shared_data)
    projection = {e.what.split(" ", 1)[0]: e for e in estimates if e.stage == "projection"}
    assert set(projection) == {"bert-sd", "bert-inlp"}
    # each encoding sample of 16 sentences takes 1 s on the clock, each timed unit 1 s
    inlp_sentences = int(projection["bert-inlp"].what.split("projection from ")[1].split()[0])
    assert projection["bert-inlp"].seconds == pytest.approx(inlp_sentences / 16 + (3 + 2))
    sd_sentences = int(projection["bert-sd"].what.split("projection from ")[1].split()[0])
    assert projection["bert-sd"].seconds == pytest.approx(sd_sentences / 16 + 1)
    readings = clock.readings
    again = _estimates(posthoc_dir / "spec.yaml", tmp_path, shared_data)
    assert clock.readings == readings  # cached: nothing timed again
    assert [e.seconds for e in again] == [e.seconds for e in estimates]


def test_seat_and_bbq_are_in_the_scoring_estimate(
    seat_bbq_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    estimates = _estimates(seat_bbq_dir / "spec.yaml", tmp_path, seat_bbq_dir / "data")
    scoring = {e.what: e for e in estimates if e.stage == "scoring"}
    bbq = next(e for what, e in scoring.items() if what.startswith("tiny-gpt2 x bbq x choice_ll"))
    assert bbq.seconds is not None and bbq.seconds > 0
    seat = next(e for what, e in scoring.items() if "seat" in what)
    texts = {
        t for test in (WEAT6, MINE) for one in json.loads(test).values() for t in one["examples"]
    }
    assert len(texts) == 22
    assert seat.what == "tiny-gpt2 x seat[tests=[sent-weat6, my-test]]: 22 sentences, 2 SEAT tests"
    # a sample of 16 sentences encoded in 1 s on the clock; the two permutation tests 1 s
    assert seat.seconds == pytest.approx(22 / 16 + 1)
    assert "SEAT's encoder timed on 16 of its sentences" in seat.basis
    assert "its 2 permutation tests timed on random vectors" in seat.basis


def test_seat_results_in_the_cache_are_not_estimated(
    seat_bbq_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    from audit.pipeline.seat_stage import cache_path, seat_cache_key

    settings = RunSettings(
        out_dir=tmp_path / "out", cache_dir=tmp_path, data_dir=seat_bbq_dir / "data", device="cpu"
    )
    plan = plan_audit(load_spec(seat_bbq_dir / "spec.yaml"), settings, SilentDisplay())
    assert plan.seat is not None
    (run,) = plan.seat.runs
    path = cache_path(
        tmp_path, seat_cache_key(run, plan.models["tiny-gpt2"], plan.loaded.spec.seed)
    )
    path.parent.mkdir(parents=True)
    path.write_text("[]")
    estimates = estimate_times(plan, ScoreCache(tmp_path), Calibrator(plan, SilentDisplay()))
    assert not [e for e in estimates if "SEAT test" in e.what]
    assert [e for e in estimates if "x bbq x choice_ll" in e.what]
