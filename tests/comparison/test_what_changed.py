"""A comparison opens with what changed between the paired models' runs: the weights,
precision and device, the spec's model and dataset entries, the scorers, the endpoint
and chat template, the run's settings, and the items both runs scored; the same weights
are a fact, not a mismatch."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from audit.comparison.runs import RunComparison, compare_results
from audit.report.compare import build_comparison
from audit.results import AuditResult, ChatTemplateRecord
from audit.studies import RunComparisonTests
from tests.report.synthetic import synthetic_result, synthetic_scores

MODEL = "gpt2"


@pytest.fixture(scope="module")
def run() -> tuple[AuditResult, pd.DataFrame]:
    scores = synthetic_scores(seed=3)
    scores = scores[(scores["dataset"] == "crows_pairs") & (scores["model"] == MODEL)]
    scores = scores.reset_index(drop=True)
    return synthetic_result(scores), scores


def _with(result: AuditResult, **model: Any) -> AuditResult:
    models = [m.model_copy(update=model) if m.id == MODEL else m for m in result.models]
    return result.model_copy(update={"models": models})


def _compare(baseline: AuditResult, candidate: AuditResult, scores: pd.DataFrame) -> RunComparison:
    return compare_results(
        baseline,
        candidate,
        baseline_scores=scores,
        candidate_scores=scores,
        paired_test=RunComparisonTests(),
    )


def test_a_bfloat16_run_of_the_same_weights_says_so_and_is_no_mismatch(
    run: tuple[AuditResult, pd.DataFrame],
) -> None:
    baseline, scores = run
    candidate = _with(baseline, precision="cpu/bfloat16")
    report = build_comparison(_compare(baseline, candidate, scores))
    [pair] = report.changes
    assert pair.lines == [
        "weights: the same (the same fingerprint)",
        "precision: float32 → cpu/bfloat16",
    ]
    assert pair.items == ["crows_pairs: 1,508 items scored by both runs (of 1,508 in each run)"]
    assert not any("fingerprint" in m for m in report.mismatches)


def test_every_input_that_determines_the_numbers_is_listed(
    run: tuple[AuditResult, pd.DataFrame],
) -> None:
    baseline, scores = run
    chat = ChatTemplateRecord(source="auto: the model's own", sha256="ab" * 32)
    datasets = [
        d.model_copy(update={"filtered": {"sample": 908}, "rows_kept": 600})
        if d.name == "crows_pairs"
        else d
        for d in baseline.datasets
    ]
    candidate = _with(
        baseline,
        fingerprint="f" * 64,
        source="hf:gpt2@v2",
        device="cuda",
        chat_template=chat,
    ).model_copy(
        update={
            "tool_version": "9.9.9",
            "audit": baseline.audit.model_copy(update={"seed": 14}),
            "datasets": datasets,
        }
    )
    comparison = _compare(baseline, candidate, scores)
    lines = comparison.changes.pairs[0].lines
    assert lines[0].startswith("weights: fingerprint ") and lines[0].endswith("→ ffffffffffff")
    assert "source: path /models/gpt2 → hf:gpt2@v2" in lines
    assert "device: cpu → cuda" in lines
    assert (
        "chat template: none (raw prompts) → auto: the model's own (sha256 abababababab)" in lines
    )
    assert "crows_pairs rows left out by sample: 0 → 908" in lines
    assert comparison.changes.pairs[0].items == [
        "crows_pairs: 1,508 items scored by both runs (of 1,508 in the baseline and 600 in "
        "the candidate)"
    ]
    assert comparison.changes.runs == ["seed: 0 → 14", "tool version: 0.1.0 → 9.9.9"]
    assert build_comparison(comparison).run_changes == comparison.changes.runs


def test_the_comparison_reads_no_raw_spec(run: tuple[AuditResult, pd.DataFrame]) -> None:
    """What changed comes from the records: a spec dict that differs changes nothing."""
    baseline, scores = run
    candidate = baseline.model_copy(update={"spec": {**baseline.spec, "seed": 99, "x": 1}})
    [pair] = _compare(baseline, candidate, scores).changes.pairs
    assert pair.lines == []
