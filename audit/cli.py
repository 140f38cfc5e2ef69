"""The `audit` command. Subcommands only: the work happens in the modules they call.

User errors (bad spec, bad data file, unknown name, unreachable model, a path that cannot
be read or written) print a short message and exit 2; bugs keep their traceback. Ctrl-C
and SIGTERM print one line saying what was saved and exit 130 / 143 (`main`). `run` and
`compare` (`audit.cli_compare`) end with a summary: the verdict, what the exit code means
and which file to open (`audit.cli_output`); shared arguments are in `audit.cli_options`.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from audit.cli_compare import compare
from audit.cli_options import (
    CacheDirOpt,
    DataDirOpt,
    Device,
    DeviceOpt,
    ExecutorName,
    Kind,
    OutOpt,
    SpecArg,
    cache_folder,
)
from audit.cli_output import count, echo_summary, user_errors, writing_report
from audit.errors import AuditUserError

if TYPE_CHECKING:
    from audit.executor import Executor
    from audit.results import AuditResult
    from audit.spec.models import ExecutionSpec

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    # Plain click help: paragraphs reflowed as sentences, flags shown as flags.
    rich_markup_mode=None,
    help="Audit social bias in language models from a declarative spec (YAML): score "
    "sentences with each model, compute bias measures with confidence intervals, judge "
    "release gates and write a report.",
)


def _show_version(value: bool) -> None:
    if value:
        from audit import __version__

        typer.echo(f"bias-audit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the version of bias-audit and exit.",
        ),
    ] = False,
) -> None:
    """Audit social bias in language models from a declarative spec (YAML): score
    sentences with each model, compute bias measures with confidence intervals, judge
    release gates and write a report.

    Exit codes: 0 when all is well, 2 for a user error (spec, data file, model source, a
    path that cannot be read or written), 3 when `audit run` finds a gate that failed or
    was inconclusive, 130 after Ctrl-C and 143 after SIGTERM (what was done is kept:
    run the same command again to resume)."""


@app.command(short_help="Check a spec and report every problem in it.")
def validate(spec: SpecArg) -> None:
    """Check a spec without running it.

    Every problem is reported at once, each with its file, line and column; the exit
    code is 2 when there is any. Warnings (such as a measure that will compute nothing)
    are printed but do not fail the check."""
    from audit.spec.loader import load_spec

    loaded = user_errors(lambda: load_spec(spec))
    for warning in loaded.warnings:
        typer.echo(warning.format(), err=True)
    models, datasets = len(loaded.spec.models), len(loaded.spec.datasets)
    typer.echo(f"{spec}: ok ({count(models, 'model')}, {count(datasets, 'dataset')})")


@app.command(short_help="Print the JSON Schema of the spec.")
def schema() -> None:
    """Print the JSON Schema of the spec, for completion and checks in an editor."""
    from audit.spec.schema import spec_json_schema

    typer.echo(json.dumps(spec_json_schema(), indent=2))


@app.command("list", short_help="List the datasets, scorers, measures and other plug-ins.")
def list_plugins(
    kind: Annotated[
        Kind | None,
        typer.Argument(
            metavar="KIND",
            help="What to list: datasets, scorers, measures, variants, extrinsic or "
            "task-datasets (the extrinsic tasks' training and evaluation data; default: all "
            "of them).",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Also print each entry's card: for a dataset its size, source, licence and "
            "citation; for a scorer the models it scores, its input and version; for a "
            "measure what it computes, its ideal value and limitations; and the options "
            "each accepts.",
        ),
    ] = False,
) -> None:
    """List the registered datasets, scorers, measures, variants, extrinsic tasks or
    task datasets, or all of them (every plug-in kind, each under its heading), each with
    where it comes from: built-in, or the installed package and entry point that
    registered it (docs/plugins.md)."""
    from audit.listing import describe_registry

    text = user_errors(lambda: describe_registry(kind.value if kind else None, verbose=verbose))
    typer.echo(text)


@app.command(short_help="Show what a run would do, without loading models.")
def plan(
    spec: SpecArg,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    device: DeviceOpt = Device.auto,
    calibrate: Annotated[
        bool,
        typer.Option(
            "--calibrate/--no-calibrate",
            help="--calibrate: time what the cache holds no measurement of on the models "
            "themselves (loads each such model once, a GGUF file dequantised, for short "
            "timed samples). --no-calibrate (the default): loads no model; uses the "
            "measurements cached on this machine, else times the models' architectures "
            "built from their configs with random weights (no weights file read). A served "
            "model is timed through its endpoint either way; a `backend: llama_cpp` "
            "model's server is started to time it only with --calibrate.",
        ),
    ] = False,
) -> None:
    """Show what `audit run` would do, and how long it will take on this machine.

    Lists the datasets (pairs or sentences), the models, and each scoring unit with the
    sentences it scores (as the run's progress bars count them) and how many are already
    saved (in the score cache, or in batches a killed run journalled); then what is
    skipped, and which measures will compute nothing and why. Ends with a time estimate
    per stage (scoring, training, fine-tuning) from throughput measured on this machine
    (each line says what it is based on). Without --calibrate no model is loaded: a
    measurement not cached yet is taken on the model's architecture with random weights
    (its config and tokenizer; same shapes, same code). With --calibrate it is taken on
    the model itself, loaded once. A served model is timed through its endpoint. The
    measurements are cached (calibration/throughput.json in the cache folder), so a
    second plan times nothing."""
    from audit.data.data_dir import check_data_dir
    from audit.display import make_display
    from audit.pipeline.audit_plan import plan_audit
    from audit.pipeline.plan_text import describe_plan
    from audit.pipeline.settings import RunSettings
    from audit.pipeline.time_estimate import Calibrator, describe_times, estimate_times
    from audit.spec.loader import load_spec

    def action() -> str:
        loaded = load_spec(spec)
        settings = RunSettings(
            out_dir=Path("."),
            cache_dir=cache_folder(cache_dir),
            data_dir=check_data_dir(data_dir),
            device=device.value,
        )
        from audit.scoring.cache import ScoreCache

        # the very function `audit run` plans with: the plan printed is the plan run
        display = make_display()
        try:
            plan = plan_audit(loaded, settings, display)
            cache = ScoreCache(settings.cache_dir)
            calibrator = Calibrator(plan, display, mode="weights" if calibrate else "shape")
            estimates = estimate_times(plan, cache, calibrator)
        finally:
            display.close()
        times = describe_times(estimates, str(calibrator.cache.path))
        return "\n".join([describe_plan(plan, cache), *times])

    typer.echo(user_errors(action))


@app.command(short_help="Run an audit and write its results and report.")
def run(
    spec: SpecArg,
    out: OutOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    device: DeviceOpt = Device.auto,
    executor: Annotated[
        ExecutorName | None,
        typer.Option(
            "--executor",
            help="Where the scoring and variant training run: in-process, or ray (each "
            "model's scoring and each variant training as a Ray task; needs pip install "
            "'bias-audit[ray]'). Default: the spec's execution.executor, else in-process.",
            show_default=False,
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            metavar="ADDRESS",
            help="With --executor ray: the Ray cluster to join, auto or ray://HOST:PORT "
            "(default: the spec's execution.address, else $RAY_ADDRESS, else a local Ray).",
        ),
    ] = None,
) -> None:
    """Run an audit: score, measure, judge the gates and write the report.

    Writes results.json, scores.parquet and the report (HTML and/or PDF) into the output
    folder, prints a table of the results (each measure on the whole dataset per model,
    with its confidence interval and gate verdict) and one of each gate's verdicts, and
    ends with a summary. Exit code: 0 when every
    gate passes (or there is none), 3 when a gate fails or is inconclusive, 2 for a user
    error (spec, data file, model source)."""
    from audit.data.data_dir import check_data_dir
    from audit.display import make_display
    from audit.engine import RunSettings, run_audit
    from audit.gates import gate_exit_code
    from audit.listing import gate_summary
    from audit.output_check import check_output_dir
    from audit.report.render import write_reports
    from audit.run_progress import current, tracked
    from audit.run_tables import print_run_tables
    from audit.spec.loader import load_spec

    def action() -> tuple[list[Path], AuditResult, list[str], int]:
        loaded = load_spec(spec)
        out_dir = out or Path(loaded.spec.report.out_dir or Path("reports") / loaded.spec.name)
        settings = RunSettings(
            out_dir=out_dir.expanduser(),
            cache_dir=cache_folder(cache_dir),
            data_dir=check_data_dir(data_dir),
            device=device.value,
        )
        runs_on = _executor(loaded.spec.execution, executor, address)
        check_output_dir(settings.out_dir)  # before any model loads
        if (record := current()) is not None:
            record.cache_dir, record.out_dir = settings.cache_dir, settings.out_dir
        display = tracked(make_display())
        try:
            outcome = run_audit(loaded, settings, display, executor=runs_on)
            formats = list(loaded.spec.report.formats)
            if formats:
                display.stage("report")
                started = time.monotonic()
                display.step("report", f"writing the report ({', '.join(formats)})")
                written = write_reports(outcome.result, outcome.out_dir, formats=formats)
                display.end_step("report", f"report written in {time.monotonic() - started:.1f} s")
            else:
                written = []
        finally:
            display.close()
        verdicts = outcome.result.gate_verdicts
        paths = [outcome.out_dir / "results.json", outcome.out_dir / "scores.parquet", *written]
        code = gate_exit_code(verdicts)
        return paths, outcome.result, gate_summary(verdicts, code), code

    paths, result, summary, code = user_errors(action)
    typer.echo("Written:", err=True)
    for path in paths:
        typer.echo(str(path))
    # the numbers, then the gates, next to the verdict (stdout keeps only the paths)
    print_run_tables(result, sys.stderr)
    echo_summary(summary, paths)
    raise typer.Exit(code)


def _executor(execution: ExecutionSpec, name: ExecutorName | None, address: str | None) -> Executor:
    """The spec's execution settings with the command line's flags over them."""
    from audit.cluster import executor_for

    update: dict[str, str] = {}
    if name is not None:
        update["executor"] = name.value
    if address is not None:
        update["address"] = address
    execution = execution.model_copy(update=update)
    if address is not None and execution.executor != "ray":
        raise AuditUserError(f"--address {address} names a Ray cluster: add --executor ray")
    return executor_for(execution)


app.command(short_help="Compare two runs and write a comparison report.")(compare)


@app.command(short_help="Redraw the report of an earlier run.")
def render(
    results: Annotated[
        Path,
        typer.Argument(metavar="RESULTS", help="A results.json written by `audit run`."),
    ],
    out: OutOpt = None,
) -> None:
    """Redraw the report of an earlier run from its results.json, without scoring.

    The score-distribution charts read the scores.parquet beside results.json, wherever
    --out puts the report (default: the folder of results.json)."""
    from audit.output_check import check_output_dir
    from audit.report.render import write_reports
    from audit.results_io import read_results

    def action() -> list[Path]:
        result = read_results(results)
        for warning in result.read_notes.warnings() if result.read_notes else []:
            typer.echo(f"warning: {warning}", err=True)
        folder = out or results.parent
        check_output_dir(folder)
        writing_report()
        return write_reports(
            result,
            folder,
            formats=result.audit.report_formats,
            scores_dir=results.parent,
        )

    written = user_errors(action)
    for path in written:
        typer.echo(str(path))
    reports = [p for p in written if p.suffix in (".html", ".pdf")]
    if reports:
        typer.echo(f"Open {reports[0]} to read the report.", err=True)


def main() -> None:
    """Entry point of the `audit` script. Ctrl-C (SIGINT) and SIGTERM print one line
    saying what was saved and how to resume, and exit 130 / 143."""
    from audit.interrupts import Interrupted, signals_raise
    from audit.run_progress import begin

    record = begin(shlex.join(["audit", *sys.argv[1:]]))
    try:
        with signals_raise():
            app()
    except Interrupted as interrupt:
        typer.echo(record.interrupted_line(interrupt.signal_name), err=True)
        sys.exit(interrupt.exit_code)
