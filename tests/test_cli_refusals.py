"""Edge cases users met (issue 31, item 7): each ends with exit 2 and one line naming the
file, entry or spec line, the value, and what would be accepted; nothing computed is
lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from tests.mounts import fill_disk, tmpfs
from tests.spec.test_yaml_aliases import alias_bomb
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
def test_a_misspelt_data_dir_is_named_before_anything_is_read(tmp_path: Path, command: str) -> None:
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


def _failing_run(tmp_path: Path, out: Path) -> str:
    """`audit run` of the tiny spec whose pairs file has a malformed row (found after the
    output folder is checked): exit 2; its one error line."""
    spec = _tiny_spec(tmp_path, "{measure: bias_score, dataset: mine, within: [0, 100]}")
    (tmp_path / "pairs.csv").write_text("s1,s2\nHe is a nurse.,She is a nurse.,extra\n")
    result = runner.invoke(
        app, ["run", str(spec), "--out", str(out), "--cache-dir", str(tmp_path / "c")]
    )
    assert result.exit_code == 2, result.output
    line = _one_error_line(result.output)
    assert line.startswith(f"error: {tmp_path / 'pairs.csv'}:2: malformed row"), line
    return line


def test_a_failed_run_leaves_no_empty_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "nested" / "out"
    _failing_run(tmp_path, out)
    assert not (tmp_path / "new").exists()  # every folder the run created, and only those


def test_a_failed_run_keeps_an_output_folder_that_existed_or_holds_files(tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    _failing_run(tmp_path, existing)
    assert existing.is_dir() and list(existing.iterdir()) == []
    earlier = tmp_path / "earlier"
    (earlier / "sub").mkdir(parents=True)
    (earlier / "sub" / "results.json").write_text("{}")
    _failing_run(tmp_path, earlier / "sub" / "out")
    assert (earlier / "sub" / "results.json").read_text() == "{}"
    assert not (earlier / "sub" / "out").exists()


@pytest.mark.parametrize("existing", [True, False], ids=["existing-folder", "new-folder"])
def test_an_out_folder_on_a_read_only_mount_is_named_not_the_probe(
    tmp_path: Path, existing: bool
) -> None:
    spec = _tiny_spec(tmp_path, "{measure: bias_score, dataset: mine, within: [0, 100]}")
    mount = tmp_path / "ro"
    with tmpfs(mount, read_only=True):
        out = mount if existing else mount / "out"  # the mount's root exists; out does not
        result = runner.invoke(
            app, ["run", str(spec), "--out", str(out), "--cache-dir", str(tmp_path / "c")]
        )
        assert result.exit_code == 2, result.output
        assert _one_error_line(result.output) == (
            f"error: {out}: Read-only file system; the file system is read-only: choose a "
            "folder on a writable one"
        )


def test_a_cache_disk_that_fills_during_scoring_exits_2_and_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audit.scoring import runner as scoring_runner

    spec = _tiny_spec(tmp_path, "{measure: bias_score, dataset: mine, within: [0, 100]}")
    out = tmp_path / "out"
    with tmpfs(tmp_path / "cache", size_kb=16384) as cache:
        filled: list[Path] = []

        def disk_fills(point: str) -> None:  # the disk fills before the scores are written
            if point == "score-batch-before-commit" and not filled:
                filled.append(fill_disk(cache))

        monkeypatch.setattr(scoring_runner, "fault_point", disk_fills)
        args = ["run", str(spec), "--out", str(out), "--cache-dir", str(cache)]
        result = runner.invoke(app, args)
        assert filled and result.exit_code == 2, result.output
        line = _one_error_line(result.output)
        (database,) = cache.glob("scores/*/*/scores.sqlite")
        assert line == (
            f"error: {database}: No space left on device (SQLite: database or disk is full; "
            "the scores saved before it are kept, and the same command resumes from them); "
            "the disk is full: free some space or choose a folder on another disk"
        )
        assert not out.exists()
        filled[0].unlink()  # space is freed
        monkeypatch.undo()
        again = runner.invoke(app, args)
        assert again.exit_code == 0, again.output
        assert (out / "results.json").is_file()


def test_validate_refuses_a_yaml_alias_bomb_naming_file_and_line(tmp_path: Path) -> None:
    """In a subprocess with a time limit: without the limit the expansion grows without
    bound (9**9 values), and the test fails on the timeout instead of eating the memory."""
    spec = tmp_path / "bomb.yaml"
    spec.write_text("spec_version: 1\nname: bomb\n" + alias_bomb())
    done = subprocess.run(
        [sys.executable, "-c", "from audit.cli import app; app()", "validate",
         str(spec)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = _problem_lines(done.stderr, spec)
    assert line.startswith(f"{spec}:8:5: the aliases ('*name') expand the spec to more than ")


def test_run_refuses_a_nan_label_naming_file_line_and_value(tmp_path: Path) -> None:
    data = tmp_path / "toxic.jsonl"
    data.write_text(
        '{"text": "You are kind.", "label": "benign"}\n{"text": "You are awful.", "label": NaN}\n'
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "spec_version: 1\nname: x\nmodels: [{id: m, source: {hf: gpt2}}]\n"
        "datasets: [{name: mine, kind: labelled, path: toxic.jsonl,"
        " columns: {text: text, label: label}}]\n"
        "measures: [safety_score]\n"
    )
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(spec), "--out", str(out), "--cache-dir", str(tmp_path / "c")]
    )
    assert result.exit_code == 2, result.output
    assert _one_error_line(result.output).startswith(
        f"error: {data}:2: column 'label' holds NaN, which JSON does not allow (it has no NaN, "
        'Infinity or -Infinity); expected a label as text (e.g. "toxic" or "benign")'
    )
    assert not out.exists()


def test_a_cache_set_aside_as_corrupt_is_said_on_the_terminal(tmp_path: Path) -> None:
    spec = _tiny_spec(tmp_path, "{measure: bias_score, dataset: mine, within: [0, 100]}")
    cache = tmp_path / "c"
    first = runner.invoke(
        app, ["run", str(spec), "--out", str(tmp_path / "a"), "--cache-dir", str(cache)]
    )
    assert first.exit_code == 0, first.output
    (database,) = cache.glob("scores/*/*/scores.sqlite")
    for sidecar in ("-wal", "-shm"):
        Path(f"{database}{sidecar}").unlink(missing_ok=True)
    database.write_bytes(b"this is not a database" * 100)
    second = runner.invoke(
        app, ["run", str(spec), "--out", str(tmp_path / "b"), "--cache-dir", str(cache)]
    )
    assert second.exit_code == 0, second.output
    (aside,) = database.parent.glob("scores.corrupt-*.sqlite")
    warnings = [
        line.split("] ", 1)[-1] for line in second.output.splitlines() if "warning: " in line
    ]
    assert warnings == [
        f"warning: tiny · mine · ll: the score cache database failed its integrity check and "
        f"was set aside as {aside} (kept for inspection); its scores are computed again"
    ], second.output
