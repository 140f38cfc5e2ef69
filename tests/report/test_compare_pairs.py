"""`audit compare` pairs models across runs (`--pair CANDIDATE=BASELINE`), refuses with
exit 2 when nothing is comparable, and offers adoption only on tested comparisons."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.comparison.matching import parse_pair
from audit.comparison.nothing_comparable import NothingComparable
from audit.comparison.runs import RunComparison, compare_results
from audit.errors import AuditUserError
from audit.report.compare import build_comparison, render_comparison_html
from audit.results import AuditResult
from audit.studies import paired_test
from tests.report.synthetic import synthetic_result, synthetic_scores

runner = CliRunner()
ADOPT = "Adopt the candidate"


def _crows(scores: pd.DataFrame, models: set[str]) -> pd.DataFrame:
    keep = (scores["dataset"] == "crows_pairs") & scores["model"].isin(models)
    return scores[keep].reset_index(drop=True)


def _renamed(
    result: AuditResult, scores: pd.DataFrame, old: str, new: str
) -> tuple[AuditResult, pd.DataFrame]:
    """The run with model `old` called `new` (other weights: another fingerprint)."""
    text = result.model_dump_json().replace(f'"{old}"', f'"{new}"')
    renamed = AuditResult.model_validate_json(text)
    models = [
        m.model_copy(update={"fingerprint": hashlib.sha256(new.encode()).hexdigest()})
        if m.id == new
        else m
        for m in renamed.models
    ]
    scores = scores.assign(model=scores["model"].replace(old, new))
    return renamed.model_copy(update={"models": models}), scores


def _write_run(folder: Path, result: AuditResult, scores: pd.DataFrame) -> Path:
    folder.mkdir(parents=True)
    scores.to_parquet(folder / "scores.parquet", index=False)
    result.write(folder / "results.json")
    return folder / "results.json"


def _compare(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["compare", *args, "--out", str(tmp_path / "cmp")])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def variant_runs() -> tuple[AuditResult, pd.DataFrame, AuditResult, pd.DataFrame]:
    """Baseline: bert and roberta; candidate: a variant 'bert-cda' of bert, and roberta."""
    models = {"bert-base-uncased", "roberta-base"}
    base_scores = _crows(synthetic_scores(seed=7), models)
    cand_scores = _crows(synthetic_scores(seed=8), models)
    candidate, cand_scores = _renamed(
        synthetic_result(cand_scores), cand_scores, "bert-base-uncased", "bert-cda"
    )
    return synthetic_result(base_scores), base_scores, candidate, cand_scores


def test_a_masked_run_against_a_causal_run_exits_2_naming_runs_models_and_why(
    tmp_path: Path,
) -> None:
    scores = synthetic_scores(seed=7)
    masked = _crows(scores, {"bert-base-uncased"})
    causal = _crows(scores, {"gpt2"})
    assert set(masked["item_id"]) == set(causal["item_id"])  # the same items
    a = _write_run(tmp_path / "masked", synthetic_result(masked), masked)
    b = _write_run(tmp_path / "causal", synthetic_result(causal), causal)
    code, output = _compare(tmp_path, str(a), str(b))
    assert code == 2, output
    assert f"nothing to compare between the baseline run {a}" in output
    assert f"the candidate run {b}" in output
    assert "bert-base-uncased (masked)" in output and "gpt2 (causal)" in output
    assert "different scorers for masked and causal models" in output
    assert "scored with aul" in output and "(causal LM) with ll" in output
    assert "--pair CANDIDATE=BASELINE" in output
    assert ADOPT not in output and "Traceback" not in output
    assert not (tmp_path / "cmp" / "comparison.html").exists()


def test_runs_without_a_paired_model_are_refused(
    variant_runs: tuple[AuditResult, pd.DataFrame, AuditResult, pd.DataFrame],
) -> None:
    baseline, base_scores, candidate, cand_scores = variant_runs
    only_cda = candidate.model_copy(
        update={"models": [m for m in candidate.models if m.id == "bert-cda"]}
    )
    with pytest.raises(NothingComparable) as caught:
        compare_results(
            baseline,
            only_cda,
            baseline_scores=base_scores,
            candidate_scores=cand_scores,
            paired_test=paired_test,
        )
    assert caught.value.exit_code == 2
    message = str(caught.value)
    assert "bert-base-uncased (masked), roberta-base (masked)" in message
    assert "('release-2024-q3': bert-cda (masked))" in message
    assert "no model was paired" in message


def test_a_variant_in_one_run_is_compared_with_its_base_in_another(
    tmp_path: Path,
    variant_runs: tuple[AuditResult, pd.DataFrame, AuditResult, pd.DataFrame],
) -> None:
    baseline, base_scores, candidate, cand_scores = variant_runs
    a = _write_run(tmp_path / "a", baseline, base_scores)
    b = _write_run(tmp_path / "b", candidate, cand_scores)
    # default: same id only, the variant is listed as unmatched
    default = compare_results(
        baseline,
        candidate,
        baseline_scores=base_scores,
        candidate_scores=cand_scores,
        paired_test=paired_test,
    )
    assert default.pairs == [("roberta-base", "roberta-base")]
    assert default.changes.unpaired == [
        "left unpaired in the baseline run (not compared): bert-base-uncased",
        "left unpaired in the candidate run (not compared): bert-cda",
    ]
    paired = compare_results(
        baseline,
        candidate,
        baseline_scores=base_scores,
        candidate_scores=cand_scores,
        paired_test=paired_test,
        requested_pairs=[parse_pair("bert-cda=bert-base-uncased")],
    )
    # --pair names one pair; the ids it leaves are still paired by id, none dropped
    assert paired.pairs == [("bert-base-uncased", "bert-cda"), ("roberta-base", "roberta-base")]
    records = paired.records[("bert-base-uncased", "bert-cda")]
    assert records and all(r.p_value is not None for r in records)
    assert {r.measure.name for r in records} >= {"bias_score", "kls", "jss"}
    assert paired.changes.unpaired == []
    code, output = _compare(tmp_path, str(a), str(b), "--pair", "bert-cda=bert-base-uncased")
    assert code == 0, output
    assert "Compared candidate 'bert-cda' with baseline 'bert-base-uncased'" in output
    html = (tmp_path / "cmp" / "comparison.html").read_text()
    assert "Candidate &#39;bert-cda&#39; against baseline &#39;bert-base-uncased&#39;" in html
    both = [
        "--pair",
        "bert-cda=bert-base-uncased",
        "--pair",
        "roberta-base=roberta-base",
    ]
    code, output = _compare(tmp_path, str(a), str(b), *both)
    assert code == 0 and "candidate 'roberta-base' with baseline 'roberta-base'" in output


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        (
            "bert=bert-base-uncased",
            "--pair bert=bert-base-uncased: CANDIDATE 'bert' is not a model of the candidate "
            "run {b}; its models: bert-cda, roberta-base",
        ),
        (
            "bert-cda=bert-cda",
            "--pair bert-cda=bert-cda: BASELINE 'bert-cda' is not a model of the baseline "
            "run {a}; its models: bert-base-uncased, roberta-base",
        ),
        ("bert-cda", "--pair 'bert-cda': expected CANDIDATE=BASELINE"),
        ("=roberta-base", "--pair '=roberta-base': expected CANDIDATE=BASELINE"),
    ],
)
def test_a_bad_pair_names_the_id_and_the_ids_available(
    tmp_path: Path,
    variant_runs: tuple[AuditResult, pd.DataFrame, AuditResult, pd.DataFrame],
    pair: str,
    message: str,
) -> None:
    baseline, base_scores, candidate, cand_scores = variant_runs
    a = _write_run(tmp_path / "a", baseline, base_scores)
    b = _write_run(tmp_path / "b", candidate, cand_scores)
    code, output = _compare(tmp_path, str(a), str(b), "--pair", pair)
    assert code == 2
    assert message.format(a=a, b=b) in " ".join(output.split())


def test_adopting_is_never_offered_without_a_tested_comparison(
    variant_runs: tuple[AuditResult, pd.DataFrame, AuditResult, pd.DataFrame],
) -> None:
    baseline, base_scores, candidate, cand_scores = variant_runs
    tested = build_comparison(
        compare_results(
            baseline,
            candidate,
            baseline_scores=base_scores,
            candidate_scores=cand_scores,
            paired_test=paired_test,
        )
    )
    # adopting is offered exactly when the recommendation is to adopt
    assert (ADOPT in tested.signoff.decisions) == (tested.decision == "adopt")
    assert (ADOPT in render_comparison_html(tested)) == (tested.decision == "adopt")
    # no scores.parquet: values side by side, no paired test
    untested = build_comparison(
        compare_results(
            baseline,
            candidate,
            baseline_scores=None,
            candidate_scores=None,
            paired_test=paired_test,
        )
    )
    assert untested.tables and ADOPT not in render_comparison_html(untested)
    assert "support no decision to adopt the candidate" in " ".join(untested.summary)
    # zero comparisons (built by hand: compare_results refuses them)
    empty = build_comparison(
        RunComparison(baseline, candidate, pairs=[("roberta-base", "roberta-base")], mismatches=[])
    )
    html = render_comparison_html(empty)
    assert ADOPT not in html and "Adopt" not in " ".join(empty.signoff.decisions)
    assert empty.summary[0].startswith("Nothing was compared")
    assert "on 0 measure" not in html


def test_parse_pair_reads_candidate_then_baseline() -> None:
    assert parse_pair(" v = base ") == ("base", "v")
    with pytest.raises(AuditUserError, match="expected CANDIDATE=BASELINE"):
        parse_pair("a=b=c")
