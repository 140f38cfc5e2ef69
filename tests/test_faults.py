"""The fault points count, log and kill only when asked to."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from audit import faults

SCRIPT = (
    "from audit.faults import fault_point\n"
    "for i in range(5):\n"
    "    fault_point(f'p{i}')\n"
    "    print(i, flush=True)\n"
)


def test_counts_without_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(faults.ENV_KILL_AT, raising=False)
    monkeypatch.delenv(faults.ENV_LOG, raising=False)
    before = faults.reached()
    faults.fault_point("x")
    assert faults.reached() == before + 1


def test_logs_and_kills_at_the_nth_point(tmp_path: Path) -> None:
    log = tmp_path / "points.txt"
    env = {faults.ENV_LOG: str(log), faults.ENV_KILL_AT: "3"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env={**_base_env(), **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL
    assert done.stdout.split() == ["0", "1"]
    assert log.read_text().split() == ["p0", "p1", "p2"]


def test_ignores_a_value_that_is_not_a_count(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env={**_base_env(), faults.ENV_KILL_AT: "soon"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.split() == ["0", "1", "2", "3", "4"]


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("AUDIT_FAULT")}
