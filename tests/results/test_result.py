"""AuditResult: strict within a version, read notes never written, and the package at the
bottom of the tool (it imports pydantic, `audit.ids` and `audit.cards` only)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from audit.results import AuditResult, ReadNotes, UnreadPart
from tests.report.synthetic import synthetic_result

PACKAGE = Path(__file__).resolve().parents[2] / "audit" / "results"
ALLOWED = ("audit.ids", "audit.cards", "audit.results")


def test_records_forbid_unknown_fields_within_a_version() -> None:
    data = synthetic_result().model_dump(mode="json")
    data["measurements"][0]["calibration"] = 0.5
    with pytest.raises(ValidationError, match="calibration"):
        AuditResult.model_validate(data)
    with pytest.raises(ValidationError, match="fairness"):
        AuditResult.model_validate({**synthetic_result().model_dump(mode="json"), "fairness": []})


def test_read_notes_travel_with_the_result_but_are_never_written(tmp_path: Path) -> None:
    result = synthetic_result()
    notes = ReadNotes("r.json", "2.7", "2.1", (UnreadPart("fairness"),))
    noted = result.with_read_notes(notes)
    assert result.read_notes is None and noted.read_notes == notes
    assert noted.model_copy(update={"tool_version": "9"}).read_notes == notes
    assert noted.model_dump_json() == result.model_dump_json()
    assert notes.warnings() == [
        "r.json: results_version 2.7 is newer than this bias-audit reads (2.1); not read: "
        "section `fairness`"
    ]


def test_the_package_imports_only_ids_and_cards() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                continue
            inside = [m for m in modules if m == "audit" or m.startswith("audit.")]
            assert all(m.startswith(ALLOWED) for m in inside), f"{path.name}: {inside}"


def test_importing_it_loads_nothing_else_of_the_tool() -> None:
    script = (
        "import sys, audit.results\n"
        "print(sorted(m for m in sys.modules if m.startswith('audit')"
        " and not m.startswith('audit.results')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['audit', 'audit.cards', 'audit.ids']"
