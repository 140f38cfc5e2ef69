"""One recommendation line closes a comparison: do not adopt on a detected move away from
the ideal, cannot tell whenever the items in common are too few for the stated detection
limit (adopting is never offered then), adopt only when every measure could have shown
the change that matters."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.comparison.detection_limits import DEFAULT_LIMITS, parse_limit, stated_limits
from audit.comparison.recommendation import recommend
from audit.comparison.runs import compare_results
from audit.errors import AuditUserError
from audit.report.compare import build_comparison
from audit.results import AuditResult, ComparisonRecord
from audit.studies import RunComparisonTests
from tests.report.synthetic import synthetic_result, synthetic_scores

ADOPT = "Adopt the candidate"
MODEL = "gpt2"


def _crows(seed: int) -> tuple[AuditResult, pd.DataFrame]:
    scores = synthetic_scores(seed=seed)
    keep = (scores["dataset"] == "crows_pairs") & (scores["model"] == MODEL)
    scores = scores[keep].reset_index(drop=True)
    return synthetic_result(scores), scores


@pytest.fixture(scope="module")
def records() -> list[ComparisonRecord]:
    (baseline, a), (candidate, b) = _crows(3), _crows(4)
    comparison = compare_results(
        baseline, candidate, baseline_scores=a, candidate_scores=b, paired_test=RunComparisonTests()
    )
    found = comparison.all_records()
    assert {r.measure.name for r in found} >= {"bias_score", "kls", "jss"}
    return found


def _as(record: ComparisonRecord, verdict: str, detectable: float | None) -> ComparisonRecord:
    return record.model_copy(
        update={"verdict": verdict, "detectable_difference": detectable, "same_test_as": ""}
    )


def test_a_move_away_from_the_ideal_is_do_not_adopt(records: list[ComparisonRecord]) -> None:
    worse = [_as(records[0], "further from the ideal", 1.0)]
    rest = [_as(r, "no detectable change", 1.0) for r in records[1:]]
    found = recommend(worse + rest, DEFAULT_LIMITS)
    assert found.decision == "do not adopt" and found.worse == worse


def test_too_few_items_for_the_limit_is_cannot_tell(records: list[ComparisonRecord]) -> None:
    limits = stated_limits()
    powered = [_as(r, "no detectable change", 0.01) for r in records]
    assert recommend(powered, limits).decision == "adopt"
    bias = next(i for i, r in enumerate(records) if r.measure.name == "bias_score")
    short = list(powered)
    short[bias] = _as(records[bias], "no detectable change", DEFAULT_LIMITS["bias_score"] + 0.1)
    found = recommend(short, limits)
    assert found.decision == "cannot tell"
    assert [u.record.measure.name for u in found.underpowered] == ["bias_score"]
    # a larger stated limit makes the same comparison conclusive
    assert recommend(short, stated_limits([("bias_score", 6.0)])).decision == "adopt"
    # no detectable difference at all: cannot tell
    short[bias] = _as(records[bias], "no detectable change", None)
    assert recommend(short, limits).decision == "cannot tell"
    # a measure without a stated limit (score_gap, a plug-in's) is not weighed, and said
    no_limit = {k: v for k, v in limits.items() if k != "bias_score"}
    found = recommend(powered, no_limit)
    assert found.decision == "adopt"
    assert {r.measure.name for r in found.unweighed} == {"bias_score", "score_gap"}
    # with none weighed there is nothing to adopt on
    assert recommend(powered, {}).decision == "cannot tell"


def test_a_change_not_known_to_be_towards_the_ideal_is_cannot_tell(
    records: list[ComparisonRecord],
) -> None:
    moved = [
        _as(records[0], "changed", 0.01),
        *(_as(r, "no detectable change", 0.01) for r in records[1:]),
    ]
    found = recommend(moved, DEFAULT_LIMITS)
    assert found.decision == "cannot tell" and found.unclear == moved[:1]
    closer = [_as(records[0], "closer to the ideal", 0.01), *moved[1:]]
    assert recommend(closer, DEFAULT_LIMITS).decision == "adopt"


def test_four_items_in_common_never_offer_adoption(tmp_path: Path) -> None:
    (baseline, a), (candidate, b) = _crows(3), _crows(4)
    items = sorted(set(a["item_id"]))[:4]
    b = b[b["item_id"].isin(items)].reset_index(drop=True)
    report = build_comparison(
        compare_results(
            baseline,
            candidate,
            baseline_scores=a,
            candidate_scores=b,
            paired_test=RunComparisonTests(),
        )
    )
    assert report.decision == "cannot tell", report.recommendation
    assert report.recommendation.startswith("Recommendation: cannot tell.")
    assert ADOPT not in report.signoff.decisions
    assert "crows_pairs: 4 items scored by both runs" in report.changes[0].items[0]


def test_the_cli_prints_the_recommendation_and_refuses_a_bad_limit(tmp_path: Path) -> None:
    runner = CliRunner()
    for name, seed in (("a", 3), ("b", 4)):
        result, scores = _crows(seed)
        (tmp_path / name).mkdir()
        scores.to_parquet(tmp_path / name / "scores.parquet", index=False)
        result.write(tmp_path / name / "results.json")
    args = ["compare", str(tmp_path / "a/results.json"), str(tmp_path / "b/results.json")]
    args += ["--out", str(tmp_path / "cmp")]
    done = runner.invoke(app, [*args, "--detect", "bias_score=20"])
    assert done.exit_code == 0, done.output
    line = next(x for x in done.output.splitlines() if x.startswith("Recommendation: "))
    changed = next(x for x in done.output.splitlines() if x.startswith("What changed, "))
    assert changed.startswith("What changed, candidate 'gpt2' against baseline 'gpt2': ")
    html = (tmp_path / "cmp" / "comparison.html").read_text()
    assert 'id="what-changed"' in html and 'id="recommendation"' in html
    assert html.index('id="what-changed"') < html.index('id="recommendation"')
    assert line.split(".")[0] in html
    bad = runner.invoke(app, [*args, "--detect", "bias_score=-1"])
    assert bad.exit_code == 2
    assert "--detect 'bias_score=-1': expected MEASURE=CHANGE" in bad.output


@pytest.mark.parametrize("text", ["bias_score", "=3", "bias_score=nan", "bias_score=inf"])
def test_parse_limit_refuses_what_is_not_a_positive_change(text: str) -> None:
    with pytest.raises(AuditUserError, match="expected MEASURE=CHANGE"):
        parse_limit(text)
    assert parse_limit(" ss = 2.5 ") == ("ss", 2.5)
    with pytest.raises(AuditUserError, match="given twice"):
        stated_limits([("ss", 1.0), ("ss", 2.0)])
