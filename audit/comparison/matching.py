"""What two runs share: matched models, and every difference between the runs' inputs.

Pairs are (baseline model, candidate model). By default a model is matched with the model
of the same id in the other run (or, when each run holds one model, with that one);
`requested` (the `--pair CANDIDATE=BASELINE` of `audit compare`) names them instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.errors import AuditUserError
from audit.results import AuditResult, ChatTemplateRecord, ModelRecord


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
    """(baseline model, candidate model) pairs: the `requested` ones when any are given
    (checked), else same id, or the only model of each run."""
    if requested:
        return requested_model_pairs(baseline, candidate, requested, names=names)
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
        ma = next(m for m in baseline.models if m.id == a)
        mb = next(m for m in candidate.models if m.id == b)
        run_as = how_run_differs(ma, mb)
        if ma.fingerprint == mb.fingerprint and not run_as:
            problems.append(f"'{a}' and '{b}' have the same fingerprint: the same weights")
        elif run_as:
            same = " (the same weights)" if ma.fingerprint == mb.fingerprint else ""
            problems.append(f"'{a}' and '{b}'{same} were run differently: " + "; ".join(run_as))
    for setting, value_a, value_b in (
        ("seed", baseline.audit.seed, candidate.audit.seed),
        ("alpha", baseline.audit.alpha, candidate.audit.alpha),
    ):
        if value_a != value_b:
            problems.append(f"{setting} differs: {value_a} (baseline) vs {value_b} (candidate)")
    return problems


def how_run_differs(baseline: ModelRecord, candidate: ModelRecord) -> list[str]:
    """What besides the weights determines a model's numbers and differs between two
    runs of it: precision, the chat template of its prompts, the endpoint's probe."""
    out: list[str] = []
    if baseline.precision != candidate.precision:
        out.append(f"precision {baseline.precision} (baseline) vs {candidate.precision}")
    chat_a, chat_b = baseline.chat_template, candidate.chat_template
    if (chat_a and chat_a.sha256, chat_a and chat_a.system_prompt) != (
        chat_b and chat_b.sha256,
        chat_b and chat_b.system_prompt,
    ):
        out.append(f"chat template {_chat_words(chat_a)} (baseline) vs {_chat_words(chat_b)}")
    end_a, end_b = baseline.endpoint, candidate.endpoint
    if end_a is not None and end_b is not None and end_a.probe_digest != end_b.probe_digest:
        out.append(
            f"endpoint probe {end_a.probe_digest[:12]} (baseline) vs {end_b.probe_digest[:12]}"
        )
    return out


def _chat_words(chat: ChatTemplateRecord | None) -> str:
    if chat is None:
        return "none (raw prompts)"
    system = ", with a system prompt" if chat.system_prompt is not None else ""
    return f"{chat.source.split(',')[0]} (sha256 {chat.sha256[:12]}){system}"
