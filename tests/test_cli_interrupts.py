"""Ctrl-C and SIGTERM on `audit run`: one line saying what was saved and how to resume,
exit 130 / 143, and the rerun resumes from what was saved.

The entry point (`audit.cli.main`) runs in this process and the signal is sent by the
process to itself at a chosen moment (after a cache commit, before a file is put in
place), so the moment is the same on every machine; one test sends SIGTERM from outside
to a real `audit` subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import audit.atomic_write as atomic_write
from audit.cli import app, main
from audit.scoring import runner
from tests.test_cli import _tiny_spec

REPO = Path(__file__).resolve().parents[1]
GATE = "{measure: bias_score, dataset: mine, within: [0, 100]}"


def _argv(tmp_path: Path) -> list[str]:
    spec = _tiny_spec(tmp_path, GATE)
    return ["run", str(spec), "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "c")]


def _main(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "argv", ["audit", *argv])
    with pytest.raises(SystemExit) as exited:
        main()
    return int(exited.value.code or 0)


def _signal_after_first_commit(monkeypatch: pytest.MonkeyPatch, sig: int) -> None:
    real_put = runner.ScoreNamespace.put_many

    def put_then_signal(self: runner.ScoreNamespace, entries: Any) -> None:
        real_put(self, entries)
        os.kill(os.getpid(), sig)

    monkeypatch.setattr(runner, "CHUNK", 2)
    monkeypatch.setattr(runner.ScoreNamespace, "put_many", put_then_signal)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_while_scoring_keeps_the_scores_and_the_rerun_resumes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    sig: int,
    code: int,
) -> None:
    argv = _argv(tmp_path)
    with monkeypatch.context() as patched:
        _signal_after_first_commit(patched, sig)
        assert _main(argv, patched) == code
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        f"interrupted ({signal.Signals(sig).name}): 2 of 6 sentences of tiny · mine · ll are "
        f"saved in the score cache in {tmp_path / 'c'}; rerun `audit {' '.join(argv)}` to resume"
    )
    assert not (tmp_path / "out" / "results.json").exists()
    again = CliRunner().invoke(app, argv)
    assert again.exit_code == 0, again.output
    (unit,) = json.loads((tmp_path / "out" / "results.json").read_text())["units"]
    assert unit["cached"] == 2 and unit["computed"] == unit["sentences"] - 2


def test_an_interrupt_while_writing_the_report_keeps_the_earlier_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("the earlier complete report")
    seen: list[str] = []

    def point(name: str) -> None:
        # the first file written after results.json is in place: the report (cache files
        # written while scoring come before and are not counted)
        seen.append(name)
        if name == "write-before-replace" and (out / "results.json").exists():
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(atomic_write, "fault_point", point)
    assert _main(argv, monkeypatch) == 143
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(
        f"interrupted (SIGTERM) while writing the report: results.json and scores.parquet "
        f"in {out} are complete, a report written earlier stays whole"
    )
    assert (out / "report.html").read_text() == "the earlier complete report"
    assert sorted(p.name for p in out.iterdir()) == [
        "report.html",
        "results.json",
        "scores.parquet",
    ]
    json.loads((out / "results.json").read_text())  # whole


#: `audit run` through the entry point, waiting after its first cache commit (a marker
#: file says so) for the test to send SIGTERM from outside.
WRAPPER = """
import sys, time
from pathlib import Path
from audit.scoring import runner
runner.CHUNK = 2
real_put = runner.ScoreNamespace.put_many
def put_then_wait(self, entries):
    real_put(self, entries)
    Path({marker!r}).touch()
    time.sleep(60)
runner.ScoreNamespace.put_many = put_then_wait
from audit.cli import main
sys.argv = ["audit", *{argv!r}]
main()
"""


def test_sigterm_from_outside_stops_a_real_audit_process(tmp_path: Path) -> None:
    argv = _argv(tmp_path)
    marker = tmp_path / "committed"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUDIT_FAULT")}
    script = WRAPPER.format(marker=str(marker), argv=argv)
    with subprocess.Popen(
        [sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    ) as process:
        deadline = time.monotonic() + 120
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith("interrupted (SIGTERM): 2 of 6 sentences of tiny · mine · ll are saved")
    )
    assert "Traceback" not in err


VARIANT = """\
variants:
  - id: gpt2-dropout
    base: tiny
    method: dropout
    corpus: {path: corpus.txt}
    training: {steps: 4, batch_size: 4, max_length: 16, checkpoint_every: 10}
lm_quality: {enabled: false}
"""


def test_an_interrupt_while_training_checkpoints_the_last_step_and_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import audit.training.loop as loop

    argv = _argv(tmp_path)
    spec = Path(argv[1])
    spec.write_text(spec.read_text() + VARIANT)
    corpus = [f"{w} is a {job} ." for w in ("he", "she") for job in ("doctor", "nurse", "cook")]
    (tmp_path / "corpus.txt").write_text("\n".join(corpus * 2) + "\n")
    steps: list[str] = []

    def point(name: str) -> None:
        steps.append(name)
        if len(steps) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with monkeypatch.context() as patched:
        patched.setattr(loop, "fault_point", point)
        assert _main(argv, patched) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        "interrupted (SIGINT): training gpt2-dropout (dropout of tiny) keeps its checkpoint "
        f"at step 2 of 4; rerun `audit {' '.join(argv)}` to resume"
    )
    again = CliRunner().invoke(app, argv)
    assert again.exit_code == 0, again.output
    (variant,) = json.loads((tmp_path / "out" / "results.json").read_text())["variants"]
    assert variant["summary"]["resumed_from_step"] == 2 and variant["summary"]["steps"] == 4
