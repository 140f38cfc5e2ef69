"""What two runs share: matched models, and every difference between the runs' inputs."""

from __future__ import annotations

from audit.results import AuditResult


def match_models(baseline: AuditResult, candidate: AuditResult) -> list[tuple[str, str]]:
    """(baseline model, candidate model) pairs: same id, or the only model of each run."""
    ids_a = [m.id for m in baseline.models]
    ids_b = [m.id for m in candidate.models]
    same = [(m, m) for m in ids_a if m in ids_b]
    if same:
        return same
    if len(ids_a) == 1 and len(ids_b) == 1:
        return [(ids_a[0], ids_b[0])]
    return []


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


def model_mismatches(
    baseline: AuditResult, candidate: AuditResult, pairs: list[tuple[str, str]]
) -> list[str]:
    """Models without a match, matched models with the same weights, and differing
    statistical settings (seed, alpha)."""
    problems: list[str] = []
    unmatched_a = [m.id for m in baseline.models if m.id not in {a for a, _ in pairs}]
    unmatched_b = [m.id for m in candidate.models if m.id not in {b for _, b in pairs}]
    if unmatched_a:
        problems.append(f"baseline model(s) without a match: {', '.join(unmatched_a)}")
    if unmatched_b:
        problems.append(f"candidate model(s) without a match: {', '.join(unmatched_b)}")
    for a, b in pairs:
        fa = next(m.fingerprint for m in baseline.models if m.id == a)
        fb = next(m.fingerprint for m in candidate.models if m.id == b)
        if fa == fb:
            problems.append(f"'{a}' and '{b}' have the same fingerprint: the same weights")
    for setting, value_a, value_b in (
        ("seed", baseline.audit.seed, candidate.audit.seed),
        ("alpha", baseline.audit.alpha, candidate.audit.alpha),
    ):
        if value_a != value_b:
            problems.append(f"{setting} differs: {value_a} (baseline) vs {value_b} (candidate)")
    return problems
