"""Install tests/plugins/tiny_plugin_pkg for real, outside the shared environment, and run
the `audit` command (or pytest) in a subprocess that sees it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(__file__).resolve().parent / "tiny_plugin_pkg"
#: The origin `audit list` gives the tiny plug-in's entries.
TINY_ORIGIN = "tiny-audit-plugin 0.1.0 (entry point tiny)"


def install_tiny_plugin(work: Path) -> Path:
    """Build and install the tiny plug-in package into `work`/site (pip --target, no
    dependencies, no index); returns that folder, to put on PYTHONPATH."""
    source = work / "src"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    site = work / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--disable-pip-version-check",
            "--target",
            str(site),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return site


def environment_with(site: Path) -> dict[str, str]:
    """This process's environment with `site` and this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO)])
    return env


def run_audit_command(site: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """`audit <args>` in a fresh interpreter that sees the plug-in installed in `site`."""
    code = "import sys; from audit.cli import main; sys.argv[0] = 'audit'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=environment_with(site),
        capture_output=True,
        text=True,
        timeout=600,
    )
