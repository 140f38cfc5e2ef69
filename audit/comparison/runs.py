"""Two runs compared: the model pairs, the mismatches, and each pair's comparison records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.comparison.matching import dataset_mismatches, match_models, model_mismatches
from audit.comparison.paired import PairedTest, compare_pair
from audit.finetune_copies import without_finetune_copies
from audit.results import AuditResult, ComparisonRecord

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class RunComparison:
    """A candidate run against a baseline run, before any presentation."""

    pairs: list[tuple[str, str]]
    mismatches: list[str]
    records: dict[tuple[str, str], list[ComparisonRecord]] = field(default_factory=dict)

    def all_records(self) -> list[ComparisonRecord]:
        return [r for pair in self.pairs for r in self.records.get(pair, [])]


def compare_results(
    baseline: AuditResult,
    candidate: AuditResult,
    *,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
    paired_test: PairedTest,
) -> RunComparison:
    """Match the runs' models, list every mismatch, and compare each matched pair."""
    baseline, candidate = without_finetune_copies(baseline), without_finetune_copies(candidate)
    pairs = match_models(baseline, candidate)
    mismatches = dataset_mismatches(baseline, candidate)
    mismatches += model_mismatches(baseline, candidate, pairs)
    comparison = RunComparison(pairs=pairs, mismatches=mismatches)
    for pair in pairs:
        comparison.records[pair] = compare_pair(
            baseline,
            candidate,
            pair,
            baseline_scores=baseline_scores,
            candidate_scores=candidate_scores,
            paired_test=paired_test,
            mismatches=mismatches,
        )
    return comparison
