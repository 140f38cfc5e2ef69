"""What every `audit` subcommand does around its work: a user error as one line and exit
2, the closing summary (the verdict, the exit code's meaning, the file to open), counts in
words, and telling the run's record that the report is being written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer

from audit.errors import AuditUserError

T = TypeVar("T")


def user_errors(action: Callable[[], T]) -> T:
    """Run a command's work; a user error, or an operating-system error on a path
    (`audit.path_errors`), prints one line and exits 2. A command that fails leaves no
    output folder it created empty behind (`audit.output_check`)."""
    from audit.output_check import unused_output_dirs_removed
    from audit.path_errors import user_error

    try:
        with unused_output_dirs_removed():
            return action()
    except AuditUserError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(error.exit_code) from None
    except OSError as os_error:
        translated = user_error(os_error)
        if translated is None:
            raise
        typer.echo(f"error: {translated}", err=True)
        raise typer.Exit(translated.exit_code) from None


def echo_summary(summary: list[str], paths: list[Path]) -> None:
    """The closing lines: the verdict, the exit code's meaning, the file to open."""
    reports = [p for p in paths if p.suffix in (".html", ".pdf")]
    typer.echo("", err=True)
    for line in summary:
        typer.echo(line, err=True)
    if reports:
        typer.echo(f"Open {reports[0]} to read the report.", err=True)


def count(n: int, noun: str) -> str:
    plural = "es" if noun.endswith(("s", "sh", "ch", "x")) else "s"
    return f"{n} {noun}{'' if n == 1 else plural}"


def writing_report() -> None:
    """Tell the run's record that the report is being written (for an interrupt's line)."""
    from audit.run_progress import current

    if (record := current()) is not None:
        record.stage = "report"
