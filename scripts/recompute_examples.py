"""Recompute the committed example audits from their caches and compare them with the
committed results.json field by field (issue 32: numbers unchanged by a refactor).

    python scripts/recompute_examples.py --data-dir ../shared/data \\
        --example posthoc-debiasing=/work/cache/ph --example debiasing=/work/cache/deb

Each example is `<folder under docs/examples>=<its cache dir>`; the spec is the one the
committed results.json names (`audit.spec_path`). `audit run` writes into a temporary
folder with that cache: with the caches the examples were made with, nothing is trained
or scored again, so a run takes seconds to minutes. Fields that describe the run rather
than its findings (created_at, environment, timings) are left out of the comparison;
so are the wall-clock `seconds` and the `cached`/`computed` counts of units, and the
spec's sha256 where the parsed spec is the same (only its comments changed since).
Every other field must be equal, floats to the last digit, and scores.parquet equal.
Pass --data-dir as the examples were made (`../shared/data`, relative to the
repository), since results.json keeps the paths.
Exit 0 when every example is equal, 1 otherwise (each difference is printed with its
JSON path).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
#: Fields about the run itself, not what it found: at the top of results.json, and in any
#: record the wall-clock seconds and how many entries were read from the cache or computed
#: (a warm cache turns "computed" into "cached").
RUN_FIELDS = frozenset({"created_at", "environment", "timings"})
TIMED_FIELDS = frozenset({"seconds", "cached", "computed"})


def differences(old: Any, new: Any, path: str = "$") -> Iterator[str]:
    """Every JSON path where `old` and `new` differ (dict keys, list items, values)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if (path == "$" and key in RUN_FIELDS) or key in TIMED_FIELDS:
                continue
            if key not in new:
                yield f"{path}.{key}: missing in the recomputed file"
            elif key not in old:
                yield f"{path}.{key}: only in the recomputed file"
            else:
                yield from differences(old[key], new[key], f"{path}.{key}")
    elif isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            yield f"{path}: {len(old)} items committed, {len(new)} recomputed"
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            yield from differences(a, b, f"{path}[{i}]")
    elif old != new or type(old) is not type(new):
        yield f"{path}: committed {old!r}, recomputed {new!r}"


def recompute(folder: str, cache: Path, data_dir: Path, audit: str) -> list[str]:
    """Run the example's spec with its cache into a temporary folder; the differences."""
    committed = json.loads((EXAMPLES / folder / "results.json").read_text())
    spec = committed["audit"]["spec_path"]
    with tempfile.TemporaryDirectory(prefix=f"recompute-{folder.replace('/', '-')}-") as tmp:
        out = Path(tmp) / "out"
        command = [audit, "run", spec, "--out", str(out), "--cache-dir", str(cache)]
        command += ["--data-dir", str(data_dir), "--device", "cpu"]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode not in (0, 3):  # 3: a gate failed or is inconclusive
            return [f"audit run exited {done.returncode}:\n{done.stderr[-3000:]}"]
        fresh = json.loads((out / "results.json").read_text())
        if committed["spec"] == fresh["spec"]:
            # the same parsed spec: only comments or layout of the file changed since
            fresh["audit"]["spec_sha256"] = committed["audit"]["spec_sha256"]
        found = list(differences(committed, fresh))
        old_scores = pd.read_parquet(EXAMPLES / folder / "scores.parquet")
        new_scores = pd.read_parquet(out / "scores.parquet")
        if not old_scores.equals(new_scores):
            found.append("scores.parquet: the recomputed scores differ from the committed ones")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--example", action="append", required=True, help="FOLDER=CACHE_DIR (repeatable)"
    )
    parser.add_argument("--audit", default=str(Path(sys.executable).parent / "audit"))
    args = parser.parse_args()
    failed = False
    for item in args.example:
        folder, _, cache = item.partition("=")
        found = recompute(folder, Path(cache).expanduser(), args.data_dir, args.audit)
        print(f"{folder}: {'equal' if not found else f'{len(found)} differences'}", flush=True)
        for line in found[:40]:
            print(f"  {line}")
        failed = failed or bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
