"""`audit compare`: two runs side by side, with paired tests on the items both scored.

The first run is the baseline, the second the candidate (e.g. the newer model version).
Models are matched by id; when each run audited exactly one model, those two are matched
whatever their ids. Datasets are matched by name and checked by checksum, items by id:
every mismatch is listed in the report, and paired tests use the items both runs scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict

from audit.errors import AuditUserError
from audit.report.cards import base_name, card_view, ideal_value
from audit.report.formatting import fmt_date
from audit.report.model import CardView, Caveat, SignOff, Table
from audit.report.studies import comparison_table
from audit.results import AuditResult
from audit.spec.models import PluginRef

BASELINE = "baseline"
CANDIDATE = "candidate"


class RunView(BaseModel):
    """One of the two runs, as the comparison's cover shows it."""

    model_config = ConfigDict(extra="forbid")

    role: str
    path: str
    audit_name: str
    created_at: str
    spec_sha256: str
    tool_version: str
    models: str


class ComparisonReport(BaseModel):
    """Everything the comparison report shows."""

    model_config = ConfigDict(extra="forbid")

    title: str
    runs: list[RunView]
    model_pairs: list[tuple[str, str]]
    summary: list[str]
    mismatches: list[str]
    tables: list[Table]
    caveats: list[Caveat]
    cards: list[CardView]
    signoff: SignOff


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


def _measure_options(result: AuditResult) -> dict[str, tuple[str, dict[str, Any]]]:
    """Measure label -> (name, options), from the run's spec."""

    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for raw in result.spec.get("measures", []):
        ref = PluginRef.model_validate({"name": raw} if isinstance(raw, str) else raw)
        out[ref.label] = (ref.name, ref.options)
    return out


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


def _frame(scores: pd.DataFrame, model: str, dataset: str, scorer: str) -> pd.DataFrame:
    rows = scores[
        (scores["model"] == model) & (scores["dataset"] == dataset) & (scores["scorer"] == scorer)
    ]
    return rows.reset_index(drop=True)


def _common_items(
    frame_a: pd.DataFrame, frame_b: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    ids_a, ids_b = set(frame_a["item_id"]), set(frame_b["item_id"])
    common = ids_a & ids_b
    if ids_a == ids_b:
        return frame_a, frame_b, ""
    problem = (
        f"{len(ids_a - ids_b)} item(s) only in the baseline, {len(ids_b - ids_a)} only in the "
        f"candidate; compared on the {len(common)} common item(s)"
    )
    keep_a = frame_a[frame_a["item_id"].isin(common)].reset_index(drop=True)
    keep_b = frame_b[frame_b["item_id"].isin(common)].reset_index(drop=True)
    return keep_a, keep_b, problem


def _unpaired_record(m_a: Any, m_b: Any, why: str) -> dict[str, Any]:
    """A row with the two recorded values and no paired test (no scores to pair)."""
    return {
        "measure": m_a.measure,
        "dataset": m_a.dataset,
        "scorer": m_a.scorer,
        "group": m_a.group,
        "n_items": min(m_a.n, m_b.n),
        "value_a": m_b.value,
        "value_b": m_a.value,
        "difference": None if m_a.value is None or m_b.value is None else m_b.value - m_a.value,
        "verdict": "undefined",
        "note": why,
    }


def compare_pair(
    baseline: AuditResult,
    candidate: AuditResult,
    pair: tuple[str, str],
    *,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
    mismatches: list[str],
) -> list[dict[str, Any]]:
    """Comparison records (as dicts) of one matched model pair on every shared measure."""
    from audit.scoring.catalog import scorer_info
    from audit.stats.comparison import compare_models
    from audit.stats.inputs import StatisticsInputError

    model_a, model_b = pair
    found_b = {
        (m.dataset, m.scorer, m.measure, m.group): m
        for m in candidate.measurements
        if m.model == model_b
    }
    options = _measure_options(candidate)
    n_bootstrap = int(candidate.spec.get("bootstrap", 1000)) or 1000
    records: list[dict[str, Any]] = []
    item_notes: dict[tuple[str, str], str] = {}
    for m_a in baseline.measurements:
        if m_a.model != model_a or m_a.group != "all":
            continue
        key = (m_a.dataset, m_a.scorer, m_a.measure, m_a.group)
        m_b = found_b.get(key)
        if m_b is None:
            mismatches.append(
                f"{m_a.measure} on {m_a.dataset} ({m_a.scorer}) measured for baseline "
                f"'{model_a}' but not for candidate '{model_b}'"
            )
            continue
        if ideal_value(m_a.measure) is None:
            continue
        if baseline_scores is None or candidate_scores is None:
            records.append(_unpaired_record(m_a, m_b, "no scores.parquet: no paired test"))
            continue
        frame_a = _frame(baseline_scores, model_a, m_a.dataset, m_a.scorer)
        frame_b = _frame(candidate_scores, model_b, m_a.dataset, m_a.scorer)
        frame_a, frame_b, problem = _common_items(frame_a, frame_b)
        if problem:
            item_notes[(m_a.dataset, m_a.scorer)] = problem
        name, opts = options.get(m_a.measure, (base_name(m_a.measure), {}))
        try:
            from audit.measures.catalog import measure_options_model

            record = compare_models(
                frame_b,
                frame_a,
                measure=name,
                scorer=scorer_info(m_a.scorer.split("[", 1)[0]),
                options=measure_options_model(name).model_validate(opts),
                model_a=f"{model_b} ({CANDIDATE})",
                model_b=f"{model_a} ({BASELINE})",
                alpha=candidate.alpha,
                n_bootstrap=n_bootstrap,
                seed=candidate.seed,
            )
        except (StatisticsInputError, AuditUserError) as error:
            records.append(_unpaired_record(m_a, m_b, f"no paired test: {error}"))
            continue
        row = record.model_dump()
        row["measure"] = m_a.measure
        if problem:
            row["note"] = "; ".join(n for n in (row.get("note", ""), problem) if n)
        records.append(row)
    mismatches += [f"{d} ({s}): {p}" for (d, s), p in item_notes.items()]
    return records


def _run_view(role: str, path: str, result: AuditResult) -> RunView:
    return RunView(
        role=role,
        path=path,
        audit_name=str(result.spec.get("name", "")),
        created_at=fmt_date(result.created_at),
        spec_sha256=result.spec_sha256,
        tool_version=result.tool_version,
        models=", ".join(f"{m.id} ({m.fingerprint[:12]})" for m in result.models),
    )


def _summary(
    pairs: list[tuple[str, str]], records: list[dict[str, Any]], n_mismatch: int
) -> list[str]:
    if not pairs:
        return [
            "No model of the candidate run could be matched with one of the baseline run "
            "(match by identical id, or one model per run), so nothing was compared."
        ]
    counts = {
        v: sum(r["verdict"] == v for r in records)
        for v in ("better", "worse", "not distinguishable", "undefined")
    }
    lines = [
        "Compared "
        + "; ".join(f"candidate '{b}' with baseline '{a}'" for a, b in pairs)
        + f" on {len(records)} measure(s): the candidate is significantly better on "
        f"{counts['better']}, worse on {counts['worse']}, not distinguishable on "
        f"{counts['not distinguishable']}"
        + (f", untested on {counts['undefined']}" if counts["undefined"] else "")
        + "."
    ]
    lines.append(
        f"{n_mismatch} mismatch(es) between the runs are listed below; read them before the "
        "numbers."
        if n_mismatch
        else "The runs used the same datasets and items."
    )
    return lines


def build_comparison(
    baseline: AuditResult,
    candidate: AuditResult,
    *,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
    baseline_path: str = "run 1",
    candidate_path: str = "run 2",
) -> ComparisonReport:
    """The comparison of a candidate run against a baseline run."""
    from audit.report.caveats import KANEKO

    pairs = match_models(baseline, candidate)
    mismatches = dataset_mismatches(baseline, candidate)
    unmatched_a = [m.id for m in baseline.models if m.id not in {a for a, _ in pairs}]
    unmatched_b = [m.id for m in candidate.models if m.id not in {b for _, b in pairs}]
    if unmatched_a:
        mismatches.append(f"baseline model(s) without a match: {', '.join(unmatched_a)}")
    if unmatched_b:
        mismatches.append(f"candidate model(s) without a match: {', '.join(unmatched_b)}")
    for a, b in pairs:
        fa = next(m.fingerprint for m in baseline.models if m.id == a)
        fb = next(m.fingerprint for m in candidate.models if m.id == b)
        if fa == fb:
            mismatches.append(f"'{a}' and '{b}' have the same fingerprint: the same weights")
    for setting in ("seed", "alpha"):
        if getattr(baseline, setting) != getattr(candidate, setting):
            mismatches.append(
                f"{setting} differs: {getattr(baseline, setting)} (baseline) vs "
                f"{getattr(candidate, setting)} (candidate)"
            )
    tables: list[Table] = []
    records: list[dict[str, Any]] = []
    for pair in pairs:
        mine = compare_pair(
            baseline,
            candidate,
            pair,
            baseline_scores=baseline_scores,
            candidate_scores=candidate_scores,
            mismatches=mismatches,
        )
        records += mine
        if mine:
            tables.append(
                comparison_table(
                    mine,
                    table_id=f"compare-{len(tables) + 1}",
                    title=f"Candidate '{pair[1]}' against baseline '{pair[0]}'",
                    label_a="Candidate",
                    label_b="Baseline",
                )
            )
    labels = list(dict.fromkeys(r["measure"] for r in records))
    caveats = (
        [
            Caveat(
                id="intrinsic-only",
                title="Intrinsic measures alone must not decide a deployment",
                text="A candidate that is better on these intrinsic measures is not thereby fair "
                "in its downstream task (Kaneko et al. 2022: Kendall tau from -0.20 to 0.53).",
                trigger="measures compared: " + ", ".join(labels),
                citation=KANEKO,
            )
        ]
        if labels
        else []
    )
    return ComparisonReport(
        title=f"Comparison: {candidate.spec.get('name', 'candidate')} against "
        f"{baseline.spec.get('name', 'baseline')}",
        runs=[
            _run_view("Baseline", baseline_path, baseline),
            _run_view("Candidate", candidate_path, candidate),
        ],
        model_pairs=pairs,
        summary=_summary(pairs, records, len(mismatches)),
        mismatches=mismatches,
        tables=tables,
        caveats=caveats,
        cards=[c for label in labels if (c := card_view(label)) is not None],
        signoff=SignOff(
            fields=["Reviewer (name, role)", "Date", "Signature"],
            decisions=["Adopt the candidate", "Adopt with conditions", "Keep the baseline"],
        ),
    )


def render_comparison_html(report: ComparisonReport) -> str:
    """The self-contained HTML of a comparison report."""
    from markupsafe import Markup

    from audit.report.templating import environment, read_asset

    page = environment().get_template("compare.html.j2")
    return page.render(report=report, css=Markup(read_asset("report.css")))


def write_comparison(report: ComparisonReport, out_dir: Path, *, formats: list[str]) -> list[Path]:
    """Write comparison.html and/or comparison.pdf into out_dir; returns the paths."""
    from audit.report.render import check_formats, write_html_and_pdf

    return write_html_and_pdf(
        render_comparison_html(report), out_dir, "comparison", check_formats(formats)
    )


def compare_runs(
    baseline_results: Path, candidate_results: Path, out_dir: Path, *, formats: list[str]
) -> list[Path]:
    """`audit compare A/results.json B/results.json --out DIR`: read both runs (and their
    scores.parquet when present), build the comparison and write it."""
    from audit.report.render import load_results, load_scores

    baseline = load_results(baseline_results)
    candidate = load_results(candidate_results)
    report = build_comparison(
        baseline,
        candidate,
        baseline_scores=load_scores(baseline_results.parent),
        candidate_scores=load_scores(candidate_results.parent),
        baseline_path=str(baseline_results),
        candidate_path=str(candidate_results),
    )
    return write_comparison(report, out_dir, formats=formats)
