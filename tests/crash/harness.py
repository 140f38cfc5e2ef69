"""A small audit that scores, trains a variant, fine-tunes and writes a report, run as a
separate `audit run` process so that a crash test can SIGKILL it (`audit.faults`) at a
seeded moment and compare the rerun with an uninterrupted run, number by number."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit import faults
from tests.extrinsic.test_engine_extrinsic import make_spec_dir

#: Seed of the moments drawn; the moments are fault points (`audit.faults`), so they are
#: the same on every machine whatever its speed.
SEED = 19
#: What may differ between an uninterrupted run and a resumed one: clocks, durations,
#: the machine, and whether a unit, variant or fine-tune was found in the cache.
VOLATILE = {
    "created_at",
    "environment",
    "timings",
    "seconds",
    "cached",
    "computed",
    "resumed_from_step",
    "callback_seconds",
}

#: The stage of each fault point, by name (`audit.faults` callers).
STAGES = {
    "score-batch-before-commit": "scoring",
    "score-batch-committed": "scoring",
    "training-step": "variant training",
    "fine-tuning-step": "fine-tuning",
    "store-before-done": "writing",
    "store-done": "writing",
    "write-before-replace": "writing",
    "write-replaced": "writing",
}


@dataclass(frozen=True)
class AuditRun:
    returncode: int
    stdout: str
    stderr: str
    out: Path


def make_audit(root: Path, shared_data: Path) -> Path:
    """The spec folder: two tiny models, a dropout variant trained for six steps, STS-bias
    fine-tuning on each model, an HTML report."""
    make_spec_dir(root, shared_data)
    spec = root / "spec.yaml"
    text = spec.read_text().replace("formats: []", "formats: [html]")
    # six variant training steps, a checkpoint after the third: moments before and after it
    text = text.replace(
        "training: {steps: 2, batch_size: 4, max_length: 16}",
        "training: {steps: 6, batch_size: 4, max_length: 16, checkpoint_every: 3}",
    )
    spec.write_text(text)
    return root


def run_audit_process(
    root: Path, *, cache: Path, out: Path, env: dict[str, str] | None = None
) -> AuditRun:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AUDIT_FAULT")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from audit.cli import main; main()",
            "run",
            str(root / "spec.yaml"),
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
            "--data-dir",
            str(root / "data"),
        ],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    return AuditRun(done.returncode, done.stdout, done.stderr, out)


def logged_points(root: Path, *, cache: Path, out: Path) -> tuple[AuditRun, list[str]]:
    """An uninterrupted run, with the fault points it passed, in order."""
    log = root / "fault-points.txt"
    log.unlink(missing_ok=True)
    run = run_audit_process(root, cache=cache, out=out, env={faults.ENV_LOG: str(log)})
    return run, log.read_text().split()


def seeded_moments(points: list[str], per_stage: int) -> list[tuple[str, int]]:
    """`per_stage` seeded fault points of each stage, as (stage, 1-based index)."""
    rng = random.Random(SEED)
    chosen: list[tuple[str, int]] = []
    for stage in dict.fromkeys(STAGES.values()):
        indices = [i + 1 for i, name in enumerate(points) if STAGES.get(name) == stage]
        picked = sorted(rng.sample(indices, min(per_stage, len(indices))))
        chosen.extend((stage, i) for i in picked)
    return chosen


def comparable(results_json: Path) -> dict[str, Any]:
    """results.json without what may differ between an uninterrupted and a resumed run."""
    data: dict[str, Any] = json.loads(results_json.read_text())
    return _without(data)


def _without(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without(v) for k, v in node.items() if k not in VOLATILE}
    if isinstance(node, list):
        return [_without(v) for v in node]
    return node


def differences(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """Where two comparable results differ (NaN equals NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            yield from differences(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from differences(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return
    elif a != b:
        yield f"{path}: {str(a)[:80]} != {str(b)[:80]}"


def fresh_copy(src_cache: Path | None, dest: Path) -> Path:
    if src_cache is not None and src_cache.exists():
        shutil.copytree(src_cache, dest)
    return dest
