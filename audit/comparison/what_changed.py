"""What changed between two runs: for each paired model, every difference in what
determines its numbers (weights, precision and device, its source with a revision, the
chat template, the endpoint's probe, the scorers and their options, each dataset's file
and selection, the chat template a dataset gives its prompts itself, and the items both
runs scored), and the differences of the runs themselves
(seed, level, resampling, tool version). Everything is read from the records of
results.json, never from the raw spec it keeps for provenance.

A comparison opens with these, before any verdict: a candidate that differs from the
baseline only in precision is a precision check, not a new model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from audit.results import (
    AuditResult,
    ChatTemplateRecord,
    ComparisonRecord,
    DatasetRecord,
    ModelRecord,
)


@dataclass
class PairChanges:
    """One paired model's differences, each a line in words, baseline first."""

    baseline: str
    candidate: str
    same_weights: bool
    lines: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)


@dataclass
class RunChanges:
    """Every difference between the runs, per pair and for the runs themselves."""

    pairs: list[PairChanges]
    runs: list[str]
    unpaired: list[str]

    def count(self) -> int:
        """How many differences there are (items in common are facts, not differences)."""
        return sum(len(p.lines) for p in self.pairs) + len(self.runs) + len(self.unpaired)


def _short(fingerprint: str) -> str:
    return fingerprint[:12]


def _arrow(name: str, before: object, after: object) -> str:
    return f"{name}: {before} → {after}"


def _chat_words(chat: ChatTemplateRecord | None) -> str:
    if chat is None:
        return "none (raw prompts)"
    system = ", with a system prompt" if chat.system_prompt is not None else ""
    return f"{chat.source.split(',')[0]} (sha256 {chat.sha256[:12]}){system}"


def _same_chat(a: ChatTemplateRecord | None, b: ChatTemplateRecord | None) -> bool:
    return (a and a.sha256, a and a.system_prompt) == (b and b.sha256, b and b.system_prompt)


def dataset_chat(dataset: DatasetRecord, model: ModelRecord) -> ChatTemplateRecord | None:
    """The chat template the model's prompts of the dataset were wrapped in: the
    dataset's own when it gives one, else the model's."""
    own = dataset.chat_template
    if own is not None and model.id in own.models:
        return own.models[model.id]
    return model.chat_template


def dataset_chat_change(
    name: str, pair: tuple[DatasetRecord, DatasetRecord], models: tuple[ModelRecord, ModelRecord]
) -> list[str]:
    """The line for a dataset whose own chat template (in either run) wrapped the pair's
    prompts differently; a difference of the models' own templates alone is their line."""
    da, db = pair
    if da.chat_template is None and db.chat_template is None:
        return []
    chat_a, chat_b = dataset_chat(da, models[0]), dataset_chat(db, models[1])
    if _same_chat(chat_a, chat_b):
        return []
    return [_arrow(f"{name} chat template", _chat_words(chat_a), _chat_words(chat_b))]


def how_run_differs(baseline: ModelRecord, candidate: ModelRecord) -> list[str]:
    """What besides the weights and the spec determines a model's numbers and differs
    between two runs of it: precision, device, the chat template of its prompts, the
    endpoint's probe."""
    out: list[str] = []
    if baseline.precision != candidate.precision:
        out.append(_arrow("precision", baseline.precision, candidate.precision))
    if baseline.device != candidate.device:
        out.append(_arrow("device", baseline.device, candidate.device))
    chat_a, chat_b = baseline.chat_template, candidate.chat_template
    if not _same_chat(chat_a, chat_b):
        out.append(_arrow("chat template", _chat_words(chat_a), _chat_words(chat_b)))
    end_a, end_b = baseline.endpoint, candidate.endpoint
    if (end_a is None) != (end_b is None):
        out.append(_arrow("served", "no" if end_a is None else "yes", "no" if end_b else "yes"))
    elif end_a is not None and end_b is not None:
        if end_a.server_model != end_b.server_model:
            out.append(_arrow("server model id", end_a.server_model, end_b.server_model))
        if end_a.probe_digest != end_b.probe_digest:
            out.append(_arrow("endpoint probe", end_a.probe_digest[:12], end_b.probe_digest[:12]))
    return out


def _scorers(result: AuditResult, model: str) -> list[str]:
    return sorted({u.scorer.label for u in result.units if u.model == model})


def _model(result: AuditResult, model_id: str) -> ModelRecord:
    return next(m for m in result.models if m.id == model_id)


def pair_changes(
    baseline: AuditResult,
    candidate: AuditResult,
    pair: tuple[str, str],
    records: Sequence[ComparisonRecord],
) -> PairChanges:
    """Every difference between the baseline's and the candidate's runs of one pair, and
    per dataset the items both runs scored."""
    base_id, cand_id = pair
    ma, mb = _model(baseline, base_id), _model(candidate, cand_id)
    same = ma.fingerprint == mb.fingerprint
    changes = PairChanges(base_id, cand_id, same_weights=same)
    if not same:
        changes.lines.append(
            _arrow("weights", f"fingerprint {_short(ma.fingerprint)}", _short(mb.fingerprint))
        )
    if ma.source != mb.source:  # where the weights came from, with a revision or a pin
        changes.lines.append(_arrow("source", ma.source, mb.source))
    changes.lines += how_run_differs(ma, mb)
    scorers_a, scorers_b = _scorers(baseline, base_id), _scorers(candidate, cand_id)
    if scorers_a != scorers_b:
        changes.lines.append(
            _arrow("scorers", ", ".join(scorers_a) or "none", ", ".join(scorers_b) or "none")
        )
    datasets_a = {d.name: d for d in baseline.datasets}
    datasets_b = {d.name: d for d in candidate.datasets}
    compared = sorted({r.dataset for r in records})
    for name in compared:
        da, db = datasets_a.get(name), datasets_b.get(name)
        if da is None or db is None:
            continue
        if da.source != db.source:
            changes.lines.append(_arrow(f"{name} file", da.source, db.source))
        for reason in sorted(da.filtered.keys() | db.filtered.keys()):
            before, after = da.filtered.get(reason, 0), db.filtered.get(reason, 0)
            if before != after:
                changes.lines.append(_arrow(f"{name} rows left out by {reason}", before, after))
        if da.sha256 != db.sha256:
            changes.lines.append(
                _arrow(f"{name} file", f"sha256 {_short(da.sha256)}", _short(db.sha256))
            )
        changes.lines += dataset_chat_change(name, (da, db), (ma, mb))
        common = max(r.n_items for r in records if r.dataset == name)
        kept = (
            f"{da.rows_kept:,} in each run"
            if da.rows_kept == db.rows_kept
            else f"{da.rows_kept:,} in the baseline and {db.rows_kept:,} in the candidate"
        )
        changes.items.append(f"{name}: {common:,} items scored by both runs (of {kept})")
    return changes


def run_differences(baseline: AuditResult, candidate: AuditResult) -> list[str]:
    """The differences between the runs' own settings: seed, level, resampling, the
    correction and power of the comparisons, the tool version."""
    a, b = baseline.audit, candidate.audit
    settings: list[tuple[str, object, object]] = [
        ("seed", a.seed, b.seed),
        ("alpha", a.alpha, b.alpha),
        ("bootstrap resamples", a.bootstrap.resamples, b.bootstrap.resamples),
        ("bootstrap interval", a.bootstrap.method, b.bootstrap.method),
        (
            "correction",
            a.comparisons.correction if a.comparisons else "none",
            b.comparisons.correction if b.comparisons else "none",
        ),
        ("tool version", baseline.tool_version, candidate.tool_version),
    ]
    return [_arrow(name, x, y) for name, x, y in settings if x != y]


def unpaired_models(
    baseline: AuditResult, candidate: AuditResult, pairs: Sequence[tuple[str, str]]
) -> list[str]:
    """The models no pair holds, per run: they are left out of the comparison."""
    lines: list[str] = []
    for result, role, side in ((baseline, "baseline", 0), (candidate, "candidate", 1)):
        paired = {pair[side] for pair in pairs}
        left = [m.id for m in result.models if m.id not in paired]
        if left:
            lines.append(f"left unpaired in the {role} run (not compared): {', '.join(left)}")
    return lines


def what_changed(
    baseline: AuditResult,
    candidate: AuditResult,
    pairs: Sequence[tuple[str, str]],
    records: Mapping[tuple[str, str], Sequence[ComparisonRecord]],
) -> RunChanges:
    """Every difference between two runs that determines their numbers."""
    return RunChanges(
        pairs=[
            pair_changes(baseline, candidate, pair, records.get(pair, []))
            for pair in pairs
            if records.get(pair)
        ],
        runs=run_differences(baseline, candidate),
        unpaired=unpaired_models(baseline, candidate, pairs),
    )
