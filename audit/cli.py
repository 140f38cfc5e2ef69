"""The `audit` command. Subcommands only: the work happens in the modules they call.

User errors (bad spec, bad data file, unknown name, unreachable model) print a short
message and exit 2; bugs keep their traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from audit.errors import AuditUserError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Audit social bias in language models from a declarative spec.",
)

T = TypeVar("T")


class Device(StrEnum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class Kind(StrEnum):
    datasets = "datasets"
    scorers = "scorers"
    measures = "measures"
    variants = "variants"


SpecArg = Annotated[Path, typer.Argument(help="The audit spec (YAML).", show_default=False)]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Output folder (default: the spec's report.out_dir or reports/<name>)."
    ),
]
DataDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="AUDIT_DATA_DIR",
        help="Folder with the built-in datasets laid out like shared/data; else cache/download.",
    ),
]
CacheDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir", envvar="AUDIT_CACHE_DIR", help="Cache (default ~/.cache/bias-audit)."
    ),
]
DeviceOpt = Annotated[Device, typer.Option("--device", help="Where models run.")]


def _user_errors(action: Callable[[], T]) -> T:
    try:
        return action()
    except AuditUserError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(error.exit_code) from None


def _cache_dir(value: Path | None) -> Path:
    if value is not None:
        return value.expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "bias-audit"


@app.command()
def validate(spec: SpecArg) -> None:
    """Check a spec and report every problem at once (exit 2 when there is any)."""
    from audit.spec.loader import load_spec

    loaded = _user_errors(lambda: load_spec(spec))
    for warning in loaded.warnings:
        typer.echo(warning.format(), err=True)
    typer.echo(
        f"{spec}: ok ({len(loaded.spec.models)} models, {len(loaded.spec.datasets)} datasets)"
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of the spec (for editor completion)."""
    from audit.spec.schema import spec_json_schema

    typer.echo(json.dumps(spec_json_schema(), indent=2))


@app.command("list")
def list_plugins(
    kind: Annotated[Kind, typer.Argument(help="What to list.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show measure cards.")] = False,
) -> None:
    """List the registered datasets, scorers, measures or variants."""
    from audit.listing import describe_registry

    typer.echo(describe_registry(kind.value, verbose=verbose))


@app.command()
def plan(
    spec: SpecArg,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
) -> None:
    """Show what `audit run` would score and measure, without loading any weights."""
    from audit.display import make_display
    from audit.engine import RunSettings, prepare
    from audit.listing import describe_plan
    from audit.spec.loader import load_spec

    def action() -> str:
        loaded = load_spec(spec)
        settings = RunSettings(
            out_dir=Path("."), cache_dir=_cache_dir(cache_dir), data_dir=data_dir
        )
        from audit.scoring.cache import ScoreCache

        prepared = prepare(loaded, settings, make_display())
        return describe_plan(prepared, ScoreCache(settings.cache_dir))

    typer.echo(_user_errors(action))


@app.command()
def run(
    spec: SpecArg,
    out: OutOpt = None,
    data_dir: DataDirOpt = None,
    cache_dir: CacheDirOpt = None,
    device: DeviceOpt = Device.auto,
) -> None:
    """Run an audit: scores, measures, results.json, scores.parquet and the report.

    Exit code: 0 when every gate passes (or there are none), 3 when any gate fails or
    is inconclusive, 2 for a user error (spec, data, model source)."""
    from audit.display import make_display
    from audit.engine import RunSettings, run_audit
    from audit.gates import describe_verdict, gate_exit_code
    from audit.report.render import write_reports
    from audit.spec.loader import load_spec

    def action() -> tuple[list[Path], int]:
        loaded = load_spec(spec)
        out_dir = out or Path(loaded.spec.report.out_dir or Path("reports") / loaded.spec.name)
        settings = RunSettings(
            out_dir=out_dir.expanduser(),
            cache_dir=_cache_dir(cache_dir),
            data_dir=data_dir,
            device=device.value,
        )
        display = make_display()
        outcome = run_audit(loaded, settings, display)
        written = write_reports(
            outcome.result, outcome.out_dir, formats=list(loaded.spec.report.formats)
        )
        verdicts = outcome.result.gate_verdicts
        for verdict in verdicts:
            typer.echo(describe_verdict(verdict), err=True)
        paths = [outcome.out_dir / "results.json", outcome.out_dir / "scores.parquet", *written]
        return paths, gate_exit_code(verdicts)

    paths, code = _user_errors(action)
    for path in paths:
        typer.echo(str(path))
    raise typer.Exit(code)


@app.command()
def compare(
    baseline: Annotated[Path, typer.Argument(help="results.json of the baseline run.")],
    candidate: Annotated[Path, typer.Argument(help="results.json of the candidate run.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Output folder (default reports/compare).")
    ] = None,
) -> None:
    """Compare two runs side by side: per measure both values, the paired difference with
    its CI and test, and better / worse / not distinguishable for the candidate."""
    from audit.report.compare import compare_runs
    from audit.studies import paired_test

    def action() -> list[Path]:
        return compare_runs(
            baseline,
            candidate,
            out or Path("reports/compare"),
            formats=["html", "pdf"],
            paired_test=paired_test,
        )

    for path in _user_errors(action):
        typer.echo(str(path))


@app.command()
def render(
    results: Annotated[Path, typer.Argument(help="A results.json written by `audit run`.")],
    out: OutOpt = None,
) -> None:
    """Redraw the report of an earlier run from its results.json, without scoring (the
    distribution charts read the scores.parquet beside it)."""
    from audit.report.render import write_reports
    from audit.results_io import read_results

    def action() -> list[Path]:
        result = read_results(results)
        return write_reports(
            result,
            out or results.parent,
            formats=result.audit.report_formats,
            scores_dir=results.parent,
        )

    for path in _user_errors(action):
        typer.echo(str(path))


def main() -> None:
    """Entry point of the `audit` script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted: scores computed so far are in the cache", err=True)
        sys.exit(130)
