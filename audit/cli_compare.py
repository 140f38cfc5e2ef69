"""`audit compare`: two runs side by side, written as a comparison report, and the
summary lines it ends with."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from audit.cli_output import count, echo_summary, user_errors, writing_report


def compare(
    baseline: Annotated[
        Path, typer.Argument(metavar="BASELINE", help="The results.json of the baseline run.")
    ],
    candidate: Annotated[
        Path, typer.Argument(metavar="CANDIDATE", help="The results.json of the candidate run.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="The folder to write into (default: reports/compare)."
        ),
    ] = None,
    pair: Annotated[
        list[str] | None,
        typer.Option(
            "--pair",
            metavar="CANDIDATE=BASELINE",
            help="Compare the candidate run's model CANDIDATE with the baseline run's model "
            "BASELINE (e.g. a variant with its base); repeat for more pairs. Default: each "
            "model with the model of the same id (or the only model of each run); models "
            "no --pair names are still paired by id.",
            show_default=False,
        ),
    ] = None,
    detect: Annotated[
        list[str] | None,
        typer.Option(
            "--detect",
            metavar="MEASURE=CHANGE",
            help="The smallest change of MEASURE (in its own units) the comparison must be "
            "able to detect before 'no detectable change' counts towards adopting; repeat "
            "for more measures. Default: 5 points for the percentage measures, 0.05 for the "
            "safety score and BBQ, 0.2 for SEAT; none for a plug-in measure.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Compare a candidate run with a baseline run, side by side.

    For each measure both runs computed for a model pair: both values, the paired
    difference with its confidence interval and test (on the items both runs scored,
    read from the scores.parquet beside each results.json), and what moved: closer to
    the ideal, further from the ideal, changed (not detectably closer or further) or no
    detectable change. It opens with what changed between the paired models' runs and
    ends with one recommendation: adopt, do not adopt, or cannot tell (when the items in
    common are too few to detect the stated change). Writes comparison.html and
    comparison.pdf and ends with a summary; the exit code is 0 (compare judges no
    gates), 2 for a user error or when nothing can be compared (no model pair measured
    on a shared dataset with a shared scorer and measure)."""
    from audit.comparison.detection_limits import parse_limit
    from audit.comparison.matching import parse_pair
    from audit.output_check import check_output_dir
    from audit.report.compare import read_comparison, write_comparison
    from audit.studies import RunComparisonTests

    def action() -> tuple[list[Path], list[str]]:
        pairs = [parse_pair(text) for text in pair or []]
        limits = [parse_limit(text) for text in detect or []]
        tests = RunComparisonTests()
        report = read_comparison(baseline, candidate, paired_test=tests, pairs=pairs, limits=limits)
        folder = out or Path("reports/compare")
        check_output_dir(folder)
        for warning in report.unread:
            typer.echo(f"warning: {warning}", err=True)
        writing_report()
        written = write_comparison(report, folder, formats=["html", "pdf"])
        summary = [
            f"What changed, {change.title[0].lower()}{change.title[1:]}: "
            + "; ".join(change.lines or ["nothing listed"])
            + "."
            for change in report.changes
        ]
        summary += [f"The runs: {'; '.join(report.run_changes)}."] if report.run_changes else []
        summary += report.summary[:1]
        if report.mismatches:
            n = len(report.mismatches)
            summary.append(
                f"{count(n, 'mismatch')} between the runs (datasets, items or settings): "
                "read them in the report before the numbers."
            )
        if report.unpaired:
            summary += [f"{line[:1].upper()}{line[1:]}." for line in report.unpaired]
        summary.append(report.recommendation)
        return written, summary

    written, summary = user_errors(action)
    typer.echo("Written:", err=True)
    for path in written:
        typer.echo(str(path))
    echo_summary(
        [*summary, "Exit code 0: the comparison was written (compare judges no gates)."], written
    )
