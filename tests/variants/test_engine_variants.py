"""Variants through the engine on tiny models: trained once and cached, audited beside
their base, compared with it only, meta-evaluated; a killed training resumes; bad input
stops the run before anything trains."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, plan_audit, run_audit
from audit.errors import AuditUserError
from audit.pipeline.plan_text import describe_plan
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2
from tests.variants.engine_runs import cpu_settings, first_audit, run_again_making_nothing

OCCUPATIONS = ["doctor", "nurse", "engineer", "teacher", "lawyer", "developer", "designer"]

SPEC = """\
spec_version: 1
name: variants-test
seed: 3
bootstrap: 50
models:
  - {id: tiny-gpt2, source: {path: models/gpt2}}
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 24}
scorers: {masked: [cps], causal: [ll]}
measures: [bias_score]
lm_quality: {text: {path: heldout.txt}}
variants:
  - id: gpt2-dropout
    base: tiny-gpt2
    method: dropout
    corpus: {path: corpus.txt}
    training: {steps: 3, batch_size: 4, max_length: 16, checkpoint_every: 1}
  - id: bert-cda
    base: tiny-bert
    method: cda
    corpus: {path: corpus.txt}
    training: {steps: 4, batch_size: 4, max_length: 16, checkpoint_every: 2}
  - id: bert-at
    base: tiny-bert
    method: at
    corpus: {path: corpus.txt}
    training: {steps: 3, batch_size: 4, max_length: 16}
    options: {target_words: targets.txt}
  - id: bert-bc
    base: tiny-bert
    method: bias_controlled
    corpus: {path: corpus.txt}
    training: {steps: 3, batch_size: 4, max_length: 16}
    options: {ratios: [0, 0.5, 1], n: 8}
report: {formats: []}
"""


def corpus_lines() -> list[str]:
    lines = []
    for job in OCCUPATIONS:
        lines += [
            f"he is a {job} .",
            f"she is a {job} .",
            f"the {job} went home .",
            f"a {job} worked late .",
            f"my brother was a {job} .",
            f"her sister was a {job} .",
        ]
    return lines


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("variants")
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    (root / "spec.yaml").write_text(SPEC)
    (root / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    (root / "targets.txt").write_text("\n".join(OCCUPATIONS) + "\n")
    (root / "heldout.txt").write_text("the cat sat on the mat .\nit rained all day .\n" * 6)
    return root


@pytest.fixture(scope="module")
def first_run(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, Path]:
    return first_audit(spec_dir, tmp_path_factory, shared_data)


def test_variants_follow_their_base_in_the_results(first_run: tuple[RunOutcome, Path]) -> None:
    result = first_run[0].result
    assert [m.id for m in result.models] == [
        "tiny-gpt2",
        "gpt2-dropout",
        "tiny-bert",
        "bert-cda",
        "bert-at",
        "bert-bc-r0",
        "bert-bc-r0.5",
        "bert-bc-r1",
    ]
    assert [v.id for v in result.variants] == [
        m.id for m in result.models if m.id not in ("tiny-gpt2", "tiny-bert")
    ]
    measured = {m.model for m in result.measurements if m.measure.name == "bias_score"}
    assert measured == {m.id for m in result.models}
    assert all(not v.cached and v.summary.steps >= 3 for v in result.variants)
    assert all(v.probe is not None for v in result.variants)


def test_variants_are_compared_with_their_base_only(first_run: tuple[RunOutcome, Path]) -> None:
    result = first_run[0].result
    bases = {v.id: v.base for v in result.variants}
    pairs = {(c.model_a, c.model_b) for c in result.comparisons}
    assert ("bert-cda", "tiny-bert") in pairs and ("bert-bc-r1", "tiny-bert") in pairs
    for a, b in pairs:
        assert bases.get(a) == b or (a not in bases and b not in bases)


def test_meta_evaluation_and_corpus_records(first_run: tuple[RunOutcome, Path]) -> None:
    result = first_run[0].result
    (meta,) = result.meta_evaluations
    assert meta.entry == "bert-bc" and meta.ratios == [0, 0.5, 1]
    assert meta.models == ["bert-bc-r0", "bert-bc-r0.5", "bert-bc-r1"]
    assert len(meta.control.he_share) == 3
    (corpus,) = result.corpora
    # "he is a", "my brother": male-only; "she is a", "her sister": female-only
    assert (corpus.male_only, corpus.female_only, corpus.sentences) == (14, 14, 42)
    assert corpus.used_by == ["gpt2-dropout", "bert-cda", "bert-at", "bert-bc"]


def test_second_run_trains_nothing(
    first_run: tuple[RunOutcome, Path],
    spec_dir: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, cache = first_run
    loaded = load_spec(spec_dir / "spec.yaml")
    plan_text = describe_plan(
        plan_audit(loaded, cpu_settings(spec_dir / "o", cache, shared_data), SilentDisplay())
    )
    assert plan_text.count("trained, in the cache") == 6
    settings = cpu_settings(spec_dir / "out2", cache, shared_data)
    run_again_making_nothing(
        first, spec_dir / "spec.yaml", settings, monkeypatch, step="_train_one"
    )


def test_plan_before_training_lists_what_to_train(
    spec_dir: Path, tmp_path: Path, shared_data: Path
) -> None:
    loaded = load_spec(spec_dir / "spec.yaml")
    text = describe_plan(
        plan_audit(loaded, cpu_settings(tmp_path / "o", tmp_path, shared_data), SilentDisplay())
    )
    assert "bert-cda: cda of tiny-bert on corpus.txt: to train: 4 steps x 4" in text
    assert "6 of 6 to train; their scoring units run once they are trained" in text
    # the units of variants not trained yet are planned with the others
    assert "  bert-cda: masked LM, a variant of tiny-bert trained by this run" in text
    assert "bert-cda x crows_pairs x cps -> bias_score" in text


def test_killed_training_resumes(spec_dir: Path, tmp_path: Path, shared_data: Path) -> None:
    from audit.training.status import TrainingInterrupted

    text = (spec_dir / "spec.yaml").read_text()
    one_variant = text[: text.index("  - id: bert-cda")] + "report: {formats: []}\n"
    path = tmp_path / "spec.yaml"
    path.write_text(one_variant.replace("path: models/", f"path: {spec_dir}/models/"))
    for name in ("corpus.txt", "heldout.txt"):
        (tmp_path / name).write_text((spec_dir / name).read_text())
    loaded = load_spec(path)
    with pytest.raises(TrainingInterrupted):
        run_audit(
            loaded,
            cpu_settings(tmp_path / "o1", tmp_path / "cache", shared_data, stop_training_after=2),
            SilentDisplay(),
        )
    text = describe_plan(
        plan_audit(
            loaded, cpu_settings(tmp_path / "o", tmp_path / "cache", shared_data), SilentDisplay()
        )
    )
    assert "gpt2-dropout: dropout of tiny-gpt2 on corpus.txt: to train, resuming" in text
    outcome = run_audit(
        loaded, cpu_settings(tmp_path / "o2", tmp_path / "cache", shared_data), SilentDisplay()
    )
    first = outcome.result.variants[0]
    assert first.id == "gpt2-dropout" and first.summary.resumed_from_step == 2
    assert first.summary.steps == 3


def _write(spec_dir: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = (spec_dir / "spec.yaml").read_text()
    assert old in text
    path = tmp_path / "spec.yaml"
    path.write_text(text.replace(old, new).replace("path: models/", f"path: {spec_dir}/models/"))
    for name in ("corpus.txt", "targets.txt"):
        (tmp_path / name).write_text((spec_dir / name).read_text())
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "n: 8",
            "n: 20",
            "20 sentences per ratio model asked, but corpus 'corpus.txt' has 14 "
            "female-only and 14 male-only sentences",
        ),
        (
            "corpus: {path: corpus.txt}\n    training: {steps: 4",
            "corpus: {path: gone.txt}\n    training: {steps: 4",
            "gone.txt",
        ),
    ],
)
def test_bad_input_stops_before_any_training(
    spec_dir: Path, tmp_path: Path, shared_data: Path, old: str, new: str, message: str
) -> None:
    path = _write(spec_dir, tmp_path, old, new)
    cache = tmp_path / "cache"
    with pytest.raises(AuditUserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_audit(
            load_spec(path), cpu_settings(tmp_path / "o", cache, shared_data), SilentDisplay()
        )
    assert not (cache / "variants").exists()
