"""Two runs compared: the model pairs, the mismatches, and each pair's comparison records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.comparison.detection_limits import stated_limits
from audit.comparison.matching import dataset_mismatches, match_models
from audit.comparison.nothing_comparable import nothing_comparable
from audit.comparison.paired import PairedTest, compare_pair
from audit.comparison.recommendation import Recommendation, recommend
from audit.comparison.what_changed import RunChanges, what_changed
from audit.finetune_copies import without_finetune_copies
from audit.results import AuditResult, ComparisonRecord

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class RunComparison:
    """A candidate run against a baseline run, before any presentation: the runs as given
    (fine-tune copies included), their matched model pairs, what changed between them,
    the mismatches of their data, the records and the recommendation they support."""

    baseline: AuditResult
    candidate: AuditResult
    pairs: list[tuple[str, str]]
    mismatches: list[str]
    records: dict[tuple[str, str], list[ComparisonRecord]] = field(default_factory=dict)
    limits: dict[str, float] = field(default_factory=stated_limits)
    changes: RunChanges = field(default_factory=lambda: RunChanges([], [], []))
    recommendation: Recommendation = field(default_factory=lambda: Recommendation("cannot tell"))

    def all_records(self) -> list[ComparisonRecord]:
        return [r for pair in self.pairs for r in self.records.get(pair, [])]


def compare_results(
    baseline: AuditResult,
    candidate: AuditResult,
    *,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
    paired_test: PairedTest,
    requested_pairs: Sequence[tuple[str, str]] = (),
    names: tuple[str, str] = ("the baseline run", "the candidate run"),
    limits: Sequence[tuple[str, float]] = (),
) -> RunComparison:
    """Match the runs' models (the `requested_pairs`, (baseline, candidate) ids, when
    given), list every mismatch, and compare each matched pair. When `paired_test` has a
    `judge` method, every record is then judged by it in one go (the comparison's family
    of tests, corrected together; `audit.studies.RunComparisonTests`). `limits`:
    (measure, smallest change) detection limits stated instead of the defaults
    (`audit.comparison.detection_limits`).

    Raises `NothingComparable` (a user error naming the runs by `names`, their models
    and why) when no pair has a single measure to compare, and `AuditUserError` for a
    requested id that is not in its run."""
    base, cand = without_finetune_copies(baseline), without_finetune_copies(candidate)
    pairs = match_models(base, cand, requested_pairs, names=names)
    mismatches = dataset_mismatches(base, cand)
    comparison = RunComparison(
        baseline, candidate, pairs=pairs, mismatches=mismatches, limits=stated_limits(limits)
    )
    for pair in pairs:
        comparison.records[pair] = compare_pair(
            base,
            cand,
            pair,
            baseline_scores=baseline_scores,
            candidate_scores=candidate_scores,
            paired_test=paired_test,
            mismatches=mismatches,
        )
    if not comparison.all_records():
        raise nothing_comparable(base, cand, pairs, names=names)
    judge = getattr(paired_test, "judge", None)
    if callable(judge):  # the tests of the comparison judged together, as one family
        judged = iter(judge(comparison.all_records()))
        comparison.records = {
            pair: [next(judged) for _ in comparison.records.get(pair, [])] for pair in pairs
        }
    comparison.changes = what_changed(base, cand, pairs, comparison.records)
    comparison.recommendation = recommend(comparison.all_records(), comparison.limits)
    return comparison
