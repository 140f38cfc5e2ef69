"""What two runs share: matched models, and every difference between the runs' inputs.

Pairs are (baseline model, candidate model). `requested` (the `--pair CANDIDATE=BASELINE` of
`audit compare`) names some; every other model is matched with the model of the same id
in the other run (or, when each run holds one model and nothing is requested, with that
one). What changed between the paired models is `audit.comparison.what_changed`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.errors import AuditUserError
from audit.results import AuditResult


def parse_pair(text: str) -> tuple[str, str]:
    """`CANDIDATE=BASELINE` as (baseline, candidate); a malformed pair is a user error."""
    candidate, sep, baseline = text.partition("=")
    if not sep or not candidate.strip() or not baseline.strip() or "=" in baseline:
        raise AuditUserError(
            f"--pair {text!r}: expected CANDIDATE=BASELINE, a model id of the candidate run, "
            "'=' and a model id of the baseline run (e.g. --pair bert-cda=bert)"
        )
    return baseline.strip(), candidate.strip()


def _ids(result: AuditResult) -> str:
    return ", ".join(m.id for m in result.models) or "none"


def requested_model_pairs(
    baseline: AuditResult,
    candidate: AuditResult,
    requested: Sequence[tuple[str, str]],
    *,
    names: tuple[str, str] = ("the baseline run", "the candidate run"),
) -> list[tuple[str, str]]:
    """The requested (baseline, candidate) pairs, each id checked against its run; an
    unknown id is a user error naming the id and the ids the run holds."""
    pairs: list[tuple[str, str]] = []
    for base_id, cand_id in requested:
        for model_id, result, name, role in (
            (cand_id, candidate, names[1], "CANDIDATE"),
            (base_id, baseline, names[0], "BASELINE"),
        ):
            if model_id not in {m.id for m in result.models}:
                raise AuditUserError(
                    f"--pair {cand_id}={base_id}: {role} '{model_id}' is not a model of "
                    f"{name}; its models: {_ids(result)}"
                )
        if (base_id, cand_id) in pairs:
            raise AuditUserError(f"--pair {cand_id}={base_id} is given twice")
        pairs.append((base_id, cand_id))
    return pairs


def match_models(
    baseline: AuditResult,
    candidate: AuditResult,
    requested: Sequence[tuple[str, str]] = (),
    *,
    names: tuple[str, str] = ("the baseline run", "the candidate run"),
) -> list[tuple[str, str]]:
    """(baseline model, candidate model) pairs: the `requested` ones (checked), then every
    model neither pairs with the model of the same id in the other run; with no pair by
    either, the only model of each run."""
    pairs = requested_model_pairs(baseline, candidate, requested, names=names)
    taken_a, taken_b = {a for a, _ in pairs}, {b for _, b in pairs}
    ids_a = [m.id for m in baseline.models if m.id not in taken_a]
    ids_b = [m.id for m in candidate.models if m.id not in taken_b]
    pairs += [(m, m) for m in ids_a if m in ids_b]
    if not pairs and len(ids_a) == 1 and len(ids_b) == 1:
        return [(ids_a[0], ids_b[0])]
    return pairs


def dataset_mismatches(baseline: AuditResult, candidate: AuditResult) -> list[str]:
    """Datasets that are missing from one run or differ between the runs."""
    a = {d.name: d for d in baseline.datasets}
    b = {d.name: d for d in candidate.datasets}
    problems = [f"dataset '{n}' only in the baseline run" for n in a if n not in b]
    problems += [f"dataset '{n}' only in the candidate run" for n in b if n not in a]
    for name in a.keys() & b.keys():
        if a[name].sha256 != b[name].sha256:
            problems.append(
                f"dataset '{name}': different files (sha256 {a[name].sha256[:12]} vs "
                f"{b[name].sha256[:12]})"
            )
        if a[name].rows_kept != b[name].rows_kept:
            problems.append(
                f"dataset '{name}': {a[name].rows_kept} items kept in the baseline, "
                f"{b[name].rows_kept} in the candidate"
            )
    return problems
