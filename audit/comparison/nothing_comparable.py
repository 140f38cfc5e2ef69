"""Why two runs have nothing to compare: the refusal `audit compare` exits 2 with.

A measure is compared only when both models of a pair have it (group `all`) on the same
dataset with the same scorer, and its card gives an ideal value. When no pair has one,
`nothing_comparable` names the runs, the models of each and, per pair, the first of
these that is missing: a measurement, a shared dataset, a shared scorer (for a masked
and a causal model: their scorers differ by kind), a shared measure, an ideal value.
"""

from __future__ import annotations

from audit.comparison.paired import ideal_value
from audit.errors import AuditUserError
from audit.results import AuditResult, Measurement


class NothingComparable(AuditUserError):
    """No measure of any matched model pair can be compared. Exit code 2."""


def _models(result: AuditResult) -> str:
    return ", ".join(f"{m.id} ({m.model_type})" for m in result.models) or "no model"


def _listed(values: set[str]) -> str:
    return ", ".join(sorted(values)) or "nothing"


def _measured(result: AuditResult, model: str) -> list[Measurement]:
    return [m for m in result.measurements if m.model == model and m.group == "all"]


def _model_type(result: AuditResult, model: str) -> str:
    return next((m.model_type for m in result.models if m.id == model), "unknown")


def why_not_comparable(baseline: AuditResult, candidate: AuditResult, pair: tuple[str, str]) -> str:
    """Why the (baseline, candidate) model pair has no measure to compare."""
    base_id, cand_id = pair
    type_a, type_b = _model_type(baseline, base_id), _model_type(candidate, cand_id)
    a, b = _measured(baseline, base_id), _measured(candidate, cand_id)
    if not a or not b:
        run, model = ("baseline", base_id) if not a else ("candidate", cand_id)
        return f"the {run} run holds no measurement of '{model}'"
    datasets = {m.dataset for m in a} & {m.dataset for m in b}
    if not datasets:
        return (
            f"no shared dataset: the baseline measured {_listed({m.dataset for m in a})}, "
            f"the candidate {_listed({m.dataset for m in b})}"
        )
    scorers_a = {m.scorer.label for m in a if m.dataset in datasets}
    scorers_b = {m.scorer.label for m in b if m.dataset in datasets}
    if not scorers_a & scorers_b:
        if type_a != type_b:
            return (
                f"different scorers for masked and causal models: the baseline ({type_a} LM) "
                f"was scored with {_listed(scorers_a)}, the candidate ({type_b} LM) with "
                f"{_listed(scorers_b)}, so no item has a score of both by the same scorer"
            )
        return (
            f"no shared scorer on {_listed(datasets)}: the baseline was scored with "
            f"{_listed(scorers_a)}, the candidate with {_listed(scorers_b)}"
        )
    keys_a = {(m.dataset, m.scorer.label, m.measure.label) for m in a}
    keys_b = {(m.dataset, m.scorer.label, m.measure.label) for m in b}
    shared = keys_a & keys_b
    if not shared:
        return (
            f"no shared measure on the same dataset and scorer: the baseline has "
            f"{_listed({k[2] for k in keys_a})}, the candidate {_listed({k[2] for k in keys_b})}"
        )
    measures = {m.measure for m in a if (m.dataset, m.scorer.label, m.measure.label) in shared}
    no_ideal = {m.label for m in measures if ideal_value(m, baseline, candidate) is None}
    return f"the shared measure(s) {_listed(no_ideal)} have no ideal value to compare against"


def nothing_comparable(
    baseline: AuditResult,
    candidate: AuditResult,
    pairs: list[tuple[str, str]],
    *,
    names: tuple[str, str] = ("the baseline run", "the candidate run"),
) -> NothingComparable:
    """The refusal of a comparison without a single compared measure: the runs, the
    models of each and why each pair (or the lack of any) gives nothing to compare."""
    runs = (
        f"nothing to compare between {names[0]} ('{baseline.audit.name}': "
        f"{_models(baseline)}) and {names[1]} ('{candidate.audit.name}': {_models(candidate)})"
    )
    if not pairs:
        reasons = [
            "no model is in both runs under the same id, and the runs do not hold one model "
            "each, so no model was paired"
        ]
    else:
        reasons = [
            f"candidate '{b}' with baseline '{a}': "
            + why_not_comparable(baseline, candidate, (a, b))
            for a, b in pairs
        ]
    hint = (
        "A measure is compared when both models of a pair have it on the same dataset with "
        "the same scorer. Pair models yourself with --pair CANDIDATE=BASELINE (repeatable)."
    )
    return NothingComparable("\n".join([f"{runs}:", *[f"  - {r}" for r in reasons], hint]))
