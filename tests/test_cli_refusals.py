"""Edge cases users met (issue 31, item 7): each ends with exit 2 and one line naming the
file, entry or spec line, the value, and what would be accepted; nothing computed is
lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from tests.test_cli import _one_error_line, _tiny_spec

runner = CliRunner()


def _problem_lines(output: str, spec: Path) -> list[str]:
    """The lines of `output` that name a place in `spec` (one per problem)."""
    assert "Traceback" not in output
    return [line for line in output.splitlines() if line.startswith(f"{spec}:")]


def test_validate_refuses_a_dataset_file_that_does_not_exist(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "spec_version: 1\nname: x\nmodels: [{id: m, source: {hf: gpt2}}]\n"
        "datasets:\n"
        "  - crows_pairs\n"
        "  - name: mine\n"
        "    kind: pairs\n"
        "    path: data/pairs.csv\n"
        "    columns: {stereotype: s1, anti_stereotype: s2}\n"
    )
    result = runner.invoke(app, ["validate", str(spec)])
    assert result.exit_code == 2, result.output
    (line,) = _problem_lines(result.output, spec)
    assert line == (
        f"{spec}:8:5: datasets[1].path: dataset 'mine': {tmp_path / 'data' / 'pairs.csv'} does "
        "not exist (got 'data/pairs.csv'; expected an existing .csv, .tsv, .jsonl or .json "
        "file; a relative path is read from the spec's folder)"
    )
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "pairs.csv").write_text("s1,s2\nHe is.,She is.\n")
    assert runner.invoke(app, ["validate", str(spec)]).exit_code == 0


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_misspelt_data_dir_is_named_before_anything_is_read(
    tmp_path: Path, command: str
) -> None:
    spec = _tiny_spec(tmp_path, "{measure: bias_score, dataset: mine, within: [0, 100]}")
    wrong = tmp_path / "shraed" / "data"
    out = tmp_path / "out"
    args = [command, str(spec), "--data-dir", str(wrong), "--cache-dir", str(tmp_path / "c")]
    result = runner.invoke(app, [*args, *(["--out", str(out)] if command == "run" else [])])
    assert result.exit_code == 2, result.output
    assert _one_error_line(result.output) == (
        f"error: the data folder {wrong} (--data-dir or $AUDIT_DATA_DIR) does not exist; "
        "expected a folder holding the built-in datasets, one subfolder each (as in "
        "shared/data), or no --data-dir to read them from the cache or download them"
    )
    assert not out.exists() and not (tmp_path / "c").exists()
