"""The namespace lock: two `audit run` processes on one cache at once both finish, with
the same results, and no entry is computed by both."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

from audit.scoring.cache_lock import namespace_lock
from tests.models.tiny import save_tiny_bert

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
spec_version: 1
name: lock-test
seed: 3
bootstrap: 50
models:
  - id: tiny-bert
    source: {path: model}
datasets:
  - name: my-pairs
    kind: pairs
    path: pairs.csv
    columns: {stereotype: s1, anti_stereotype: s2, bias_type: type}
scorers: {masked: [pll]}
measures: [bias_score]
report: {formats: [html]}
"""

PAIRS = """s1,s2,type
Women are bad at math.,Men are bad at math.,gender
The poor are lazy.,The rich are lazy.,class
She is a nurse.,He is a nurse.,gender
Old people cannot use computers.,Young people cannot use computers.,age
He is an engineer.,She is an engineer.,gender
"""


def _hold(folder: Path, ready: str, release: str) -> None:
    with namespace_lock(folder):
        Path(ready).touch()
        while not Path(release).exists():
            time.sleep(0.01)


def test_a_second_holder_waits_for_the_first(tmp_path: Path) -> None:
    ready, release = tmp_path / "ready", tmp_path / "release"
    holder = multiprocessing.get_context("spawn").Process(
        target=_hold, args=(tmp_path, str(ready), str(release))
    )
    holder.start()
    while not ready.exists():
        time.sleep(0.01)
    waited: list[float] = []
    release_at = time.monotonic() + 0.5
    subprocess.Popen(  # releases the holder half a second from now
        [
            sys.executable,
            "-c",
            f"import time, pathlib; time.sleep(0.5); pathlib.Path({str(release)!r}).touch()",
        ]
    )
    with namespace_lock(tmp_path):
        waited.append(time.monotonic())
    holder.join(timeout=10)
    assert waited[0] >= release_at - 0.05


def test_two_runs_on_one_cache_at_once_share_the_work(tmp_path: Path) -> None:
    save_tiny_bert(tmp_path / "model")
    (tmp_path / "spec.yaml").write_text(SPEC)
    (tmp_path / "pairs.csv").write_text(PAIRS)
    (tmp_path / "data").mkdir()  # --data-dir must exist (the spec reads its own file)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from audit.cli import main; main()",
                "run",
                "spec.yaml",
                "--out",
                f"out{n}",
                "--cache-dir",
                "cache",
                "--data-dir",
                "data",
                "--device",
                "cpu",
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for n in (1, 2)
    ]
    for run in runs:
        output, _ = run.communicate(timeout=240)
        assert run.returncode == 0, output
    results = [json.loads((tmp_path / f"out{n}" / "results.json").read_text()) for n in (1, 2)]
    assert results[0]["measurements"] == results[1]["measurements"]
    (unit_1,), (unit_2,) = results[0]["units"], results[1]["units"]
    entries = 10  # five pairs, two sentences each
    assert unit_1["computed"] + unit_2["computed"] == entries
    assert {unit_1["cached"], unit_2["cached"]} == {0, entries}
