"""INLP and SentenceDebias through the engine on a tiny masked LM: the projection is
computed once (no training step), the variant is audited beside its base with its
language-modelling cost, and a second run loads it from the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.engine import RunOutcome
from tests.models.tiny import save_tiny_bert
from tests.variants.engine_runs import cpu_settings, first_audit, run_again_making_nothing
from tests.variants.test_engine_variants import corpus_lines

SPEC = """\
spec_version: 1
name: posthoc-test
seed: 3
bootstrap: 50
models:
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 24}
scorers: {masked: [cps]}
measures: [bias_score]
lm_quality: {text: {path: heldout.txt}}
variants:
  - id: bert-sd
    base: tiny-bert
    method: sentence_debias
    corpus: {path: corpus.txt}
    training: {batch_size: 8, max_length: 16}
  - id: bert-inlp
    base: tiny-bert
    method: inlp
    corpus: {path: corpus.txt}
    training: {batch_size: 8, max_length: 16}
    options: {iterations: 3}
report: {formats: []}
"""


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("posthoc")
    save_tiny_bert(root / "models" / "bert")
    (root / "spec.yaml").write_text(SPEC)
    (root / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    (root / "heldout.txt").write_text("the cat sat on the mat .\nit rained all day .\n" * 6)
    return root


@pytest.fixture(scope="module")
def first_run(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, Path]:
    return first_audit(spec_dir, tmp_path_factory, shared_data)


def test_projected_variants_are_audited_beside_their_base(
    first_run: tuple[RunOutcome, Path],
) -> None:
    result = first_run[0].result
    assert [m.id for m in result.models] == ["tiny-bert", "bert-sd", "bert-inlp"]
    summaries = {v.id: v.summary for v in result.variants}
    assert {s.objective for s in summaries.values()} == {"sentence_debias", "inlp"}
    assert all(s.steps == 0 and s.examples > 0 for s in summaries.values())
    values = {m.model: m.value for m in result.measurements if m.measure.name == "bias_score"}
    assert values["bert-sd"] != values["tiny-bert"] and values["bert-inlp"] != values["tiny-bert"]
    assert result.lm_quality is not None
    costs = {r.variant: r for r in result.lm_quality.records}
    assert set(costs) == {"bert-sd", "bert-inlp"}
    assert all(r.base == "tiny-bert" and r.ratio != 1.0 for r in costs.values())


def test_the_projection_is_stored_with_the_variant(first_run: tuple[RunOutcome, Path]) -> None:
    from audit.models.projection import PROJECTION_FILE

    cache = first_run[1]
    stored = sorted(cache.glob(f"variants/*/model/{PROJECTION_FILE}"))
    assert len(stored) == 2
    fingerprints = {m.id: m.fingerprint for m in first_run[0].result.models}
    assert len(set(fingerprints.values())) == 3  # same weights, different projections


def test_second_run_computes_nothing(
    first_run: tuple[RunOutcome, Path],
    spec_dir: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, cache = first_run
    settings = cpu_settings(spec_dir / "out2", cache, shared_data)
    run_again_making_nothing(
        first, spec_dir / "spec.yaml", settings, monkeypatch, step="_project_one"
    )
