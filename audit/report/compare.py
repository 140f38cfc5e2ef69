"""`audit compare`: two runs side by side, with paired tests on the items both scored.

The first run is the baseline, the second the candidate (e.g. the newer model version).
What is compared, and how, is `audit.comparison`'s; this module lays it out as a report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from audit.comparison.paired import PairedTest
from audit.comparison.runs import RunComparison, compare_results
from audit.report.cards import MeasureCards
from audit.report.caveats import KANEKO
from audit.report.comparison_table import comparison_table
from audit.report.comparison_verdicts import moved_words, tally
from audit.report.formatting import fmt_date
from audit.report.index import unique
from audit.report.model import CardView, Caveat, SignOff, Table
from audit.report.recommendation import decisions, recommendation_line
from audit.report.unread import unread_lines
from audit.results import AuditResult
from audit.results_io import read_results, read_scores


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


class PairChangeView(BaseModel):
    """What changed between one paired model's runs, as the comparison opens with it."""

    model_config = ConfigDict(extra="forbid")

    title: str
    lines: list[str]
    items: list[str]


class ComparisonReport(BaseModel):
    """Everything the comparison report shows: first what changed, then the verdicts,
    then one recommendation line."""

    model_config = ConfigDict(extra="forbid")

    title: str
    runs: list[RunView]
    model_pairs: list[tuple[str, str]]
    changes: list[PairChangeView] = Field(default_factory=list)
    run_changes: list[str] = Field(
        default_factory=list, description="Differences of the runs' own settings."
    )
    unpaired: list[str] = Field(default_factory=list, description="Models left unpaired.")
    summary: list[str]
    recommendation: str = ""
    decision: str = Field(default="cannot tell", description="adopt, do not adopt, cannot tell")
    mismatches: list[str]
    unread: list[str] = Field(
        default_factory=list,
        description="What either results.json (a newer minor version) held that this "
        "version could not show, one line per part (audit/report/unread.py).",
    )
    tables: list[Table]
    caveats: list[Caveat]
    cards: list[CardView]
    signoff: SignOff


def _run_view(role: str, path: str, result: AuditResult) -> RunView:
    return RunView(
        role=role,
        path=path,
        audit_name=result.audit.name,
        created_at=fmt_date(result.created_at),
        spec_sha256=result.audit.spec_sha256,
        tool_version=result.tool_version,
        models=", ".join(f"{m.id} ({m.fingerprint[:12]})" for m in result.models),
    )


def _summary(comparison: RunComparison, cards: MeasureCards) -> list[str]:
    pairs, records = comparison.pairs, comparison.all_records()
    if not records:
        return [
            "Nothing was compared: no model pair has a measure on the same dataset with the "
            "same scorer in both runs, so this comparison supports no decision."
        ]
    lines = [
        "Compared "
        + "; ".join(f"candidate '{b}' with baseline '{a}'" for a, b in pairs)
        + f" on {len(records)} measure(s); the candidate against the baseline: "
        + tally(records)
        + "."
    ]
    lines += [f"Moved: {line}." for line in moved_words(records, cards)]
    n_mismatch = len(comparison.mismatches)
    lines.append(
        f"{n_mismatch} mismatch(es) of the data between the runs are listed below; read them "
        "before the numbers."
        if n_mismatch
        else "Every measure was compared on the items both runs scored; no data mismatch."
    )
    return lines


def _tested(comparison: RunComparison) -> int:
    """How many measures were compared by a paired test (a verdict other than undefined)."""
    return sum(r.verdict != "undefined" for r in comparison.all_records())


def _untested_note(comparison: RunComparison) -> list[str]:
    """A line saying that values shown side by side, untested, support no adoption."""
    if not comparison.all_records() or _tested(comparison):
        return []
    return [
        "No measure could be compared by a paired test (see each row's note): the values "
        "are shown side by side, and they support no decision to adopt the candidate."
    ]


def _change_views(comparison: RunComparison) -> list[PairChangeView]:
    views = []
    for pair in comparison.changes.pairs:
        same = ["weights: the same (the same fingerprint)"] if pair.same_weights else []
        lines = same + pair.lines
        if pair.same_weights and not pair.lines and not comparison.changes.runs:
            lines.append(
                "nothing else that determines the numbers differs: the runs should agree "
                "up to the resampling"
            )
        views.append(
            PairChangeView(
                title=f"Candidate '{pair.candidate}' against baseline '{pair.baseline}'",
                lines=lines,
                items=pair.items,
            )
        )
    return views


def _tables(comparison: RunComparison, cards: MeasureCards) -> list[Table]:
    tables: list[Table] = []
    for pair in comparison.pairs:
        records = comparison.records.get(pair, [])
        if records:
            tables.append(
                comparison_table(
                    records,
                    cards,
                    table_id=f"compare-{len(tables) + 1}",
                    title=f"Candidate '{pair[1]}' against baseline '{pair[0]}'",
                    label_a="Candidate",
                    label_b="Baseline",
                    pair_column=False,
                )
            )
    return tables


def build_comparison(
    comparison: RunComparison, *, baseline_path: str = "run 1", candidate_path: str = "run 2"
) -> ComparisonReport:
    """The comparison report of a candidate run against a baseline run
    (`audit.comparison.runs.compare_results` compares them)."""
    baseline, candidate = comparison.baseline, comparison.candidate
    cards = MeasureCards.of(baseline, candidate)
    measures = unique(r.measure for r in comparison.all_records())
    caveats = (
        [
            Caveat(
                id="intrinsic-only",
                title="Intrinsic measures alone must not decide a deployment",
                text="A candidate closer to the ideal on these intrinsic measures is not "
                "thereby fair in its downstream task (Kaneko et al. 2022: Kendall tau from "
                "-0.20 to 0.53).",
                trigger="measures compared: " + ", ".join(m.label for m in measures),
                citation=KANEKO,
            )
        ]
        if measures
        else []
    )
    return ComparisonReport(
        title=f"Comparison: {candidate.audit.name or 'candidate'} against "
        f"{baseline.audit.name or 'baseline'}",
        runs=[
            _run_view("Baseline", baseline_path, baseline),
            _run_view("Candidate", candidate_path, candidate),
        ],
        model_pairs=comparison.pairs,
        changes=_change_views(comparison),
        run_changes=comparison.changes.runs,
        unpaired=comparison.changes.unpaired,
        summary=_summary(comparison, cards) + _untested_note(comparison),
        recommendation=recommendation_line(comparison.recommendation, cards),
        decision=comparison.recommendation.decision,
        mismatches=comparison.mismatches,
        unread=unread_lines(baseline, candidate),
        tables=_tables(comparison, cards),
        caveats=caveats,
        cards=[c for m in measures if (c := cards.view(m)) is not None],
        signoff=SignOff(
            fields=["Reviewer (name, role)", "Date", "Signature"],
            decisions=decisions(comparison.recommendation),
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


def read_comparison(
    baseline_results: Path,
    candidate_results: Path,
    *,
    paired_test: PairedTest,
    pairs: Sequence[tuple[str, str]] = (),
    limits: Sequence[tuple[str, float]] = (),
) -> ComparisonReport:
    """Both runs read from their results.json (and the scores.parquet beside each, when
    there) and compared; `pairs`: (baseline, candidate) model ids to compare instead of
    the same ids. Raises a user error when nothing can be compared (naming the files)."""
    baseline = read_results(baseline_results)
    candidate = read_results(candidate_results)
    comparison = compare_results(
        baseline,
        candidate,
        baseline_scores=read_scores(baseline_results.parent, baseline),
        candidate_scores=read_scores(candidate_results.parent, candidate),
        paired_test=paired_test,
        requested_pairs=pairs,
        limits=limits,
        names=(f"the baseline run {baseline_results}", f"the candidate run {candidate_results}"),
    )
    return build_comparison(
        comparison,
        baseline_path=str(baseline_results),
        candidate_path=str(candidate_results),
    )


def compare_runs(
    baseline_results: Path,
    candidate_results: Path,
    out_dir: Path,
    *,
    formats: list[str],
    paired_test: PairedTest,
    pairs: Sequence[tuple[str, str]] = (),
    limits: Sequence[tuple[str, float]] = (),
) -> list[Path]:
    """`audit compare A/results.json B/results.json --out DIR`: compare and write the report."""
    report = read_comparison(
        baseline_results, candidate_results, paired_test=paired_test, pairs=pairs, limits=limits
    )
    return write_comparison(report, out_dir, formats=formats)
