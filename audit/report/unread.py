"""What the report could not show: the sections and fields of a newer minor results.json
version that reading left out (`AuditResult.read_notes`), said on page 1."""

from __future__ import annotations

from audit.report.model import SummaryBlock
from audit.results import AuditResult


def unread_block(result: AuditResult) -> SummaryBlock | None:
    """A page-1 block naming every part left out on reading; None when none was."""
    notes = result.read_notes
    if notes is None or not notes.parts:
        return None
    return SummaryBlock(
        heading="This report could not show everything in its results.json.",
        text=f"The file was written as results_version {notes.version}, newer than this "
        f"bias-audit reads ({notes.reader_version}); upgrade bias-audit and run `audit "
        "render` again to see these parts. Not shown:",
        items=[part.describe() for part in notes.parts],
        emphasis="warn",
    )


def unread_lines(*results: AuditResult) -> list[str]:
    """One line per part left out on reading any of `results`, naming its file."""
    return [line for r in results if r.read_notes is not None for line in r.read_notes.warnings()]
