"""How close `audit plan`'s time estimate is to the run it describes, on this machine.

For one spec: the plan's estimate from an empty cache (no `--calibrate`: nothing
loaded, architectures timed), then `audit run` from another empty cache, for at most
`--seconds`. A run that finishes gives its whole wall time (against the plan's "in
all"); a run cut short gives, per scoring unit it reached, its own progress lines' rate
(seconds a sentence from the unit's first progress line to its last), against the
plan's seconds a sentence for that unit. The load average before and after each step is
recorded: other work on the machine slows both.

    .venv/bin/python benchmarks/plan_accuracy.py SPEC [--data-dir ../shared/data]
        [--seconds 600] [--calibrate] [--json OUT.json]
    .venv/bin/python benchmarks/plan_accuracy.py SPEC --json OUT.json --reread
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: A progress line of `audit run`: "[10:02:03] model · dataset · scorer: 60/3014 (...)",
#: "[10:02:03] training minilm-cda (cda of minilm-mlm): loss 6.0: 20/200 (...)".
PROGRESS = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\] (.+?): (?:loss [^:]+: )?(\d+)/(\d+)")


@dataclass
class UnitRate:
    unit: str
    estimate_s_per_sentence: float | None
    measured_s_per_sentence: float | None
    sentences_measured: int


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def plan_estimate(spec: Path, data_dir: Path | None, cache: Path, calibrate: bool) -> dict:
    """The plan's estimates: per piece (what, seconds, basis), and its wall time."""
    from audit.display import SilentDisplay
    from audit.engine import RunSettings, plan_audit
    from audit.pipeline.time_estimate import Calibrator, estimate_times
    from audit.scoring.cache import ScoreCache
    from audit.spec.loader import load_spec

    started = time.monotonic()
    settings = RunSettings(out_dir=Path("."), cache_dir=cache, data_dir=data_dir)
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    mode = "weights" if calibrate else "shape"
    calibrator = Calibrator(plan, SilentDisplay(), mode=mode)
    estimates = estimate_times(plan, ScoreCache(cache), calibrator)
    pieces = [
        {"stage": e.stage, "what": e.what, "seconds": e.seconds, "basis": e.basis}
        for e in estimates
    ]
    total = sum(e.seconds or 0.0 for e in estimates)
    return {"pieces": pieces, "total_s": total, "plan_wall_s": time.monotonic() - started}


def run_for(spec: Path, data_dir: Path | None, cache: Path, out: Path, seconds: float) -> dict:
    """`audit run` for at most `seconds`: its wall time, whether it finished, its stderr."""
    audit = str(Path(sys.executable).parent / "audit")
    command = [audit, "run", str(spec), "--cache-dir", str(cache)]
    command += ["--out", str(out)]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, stderr = process.communicate(timeout=seconds)
        finished = True
    except subprocess.TimeoutExpired:
        process.terminate()
        _, stderr = process.communicate()
        finished = False
    return {
        "wall_s": time.monotonic() - started,
        "finished": finished,
        "returncode": process.returncode,
        "stderr": stderr,
    }


def unit_rates(stderr: str) -> dict[str, tuple[float, int]]:
    """Per unit label: (seconds a sentence, sentences) from its first to last progress line."""
    seen: dict[str, list[tuple[int, int]]] = {}
    for line in stderr.replace("\r", "\n").splitlines():
        match = PROGRESS.match(line.strip())
        if match:
            h, m, s, label, done, _total = match.groups()
            clock = int(h) * 3600 + int(m) * 60 + int(s)
            seen.setdefault(label, []).append((clock, int(done)))
    rates = {}
    for label, points in seen.items():
        (t0, d0), (t1, d1) = points[0], points[-1]
        if d1 > d0 and t1 > t0:
            rates[label] = ((t1 - t0) / (d1 - d0), d1 - d0)
    return rates


def per_sentence(piece: dict) -> float | None:
    """The plan's seconds a unit of work for a piece ("...: 3,014 sentences...", "...:
    200 steps")."""
    match = re.search(r": ([\d,]+) (?:sentences|steps)", piece["what"])
    if piece["seconds"] is None or match is None:
        return None
    return float(piece["seconds"]) / int(match.group(1).replace(",", ""))


def units_of(pieces: list[dict], stderr: str) -> list[UnitRate]:
    """Each estimated piece beside the run's own rate for it (its progress lines)."""
    rates = unit_rates(stderr)
    units = []
    for piece in pieces:
        # "what" reads "<unit>: <work>"; a unit's name may hold a colon itself
        # ("minilm-mlm x lm-quality:held-out x pll: 500 sentences")
        head = piece["what"].split(": ")[0]
        if piece["stage"] == "scoring":
            label = " · ".join(head.split(" x "))
            if label not in rates:  # a served model's units: "<unit> · via endpoint"
                label += " · via endpoint"
        elif piece["stage"] == "training":
            label = next((k for k in rates if k.startswith(f"training {head.split()[0]} ")), "")
        elif piece["stage"] == "fine-tuning":
            label = next((k for k in rates if k.startswith(f"fine-tuning {head}")), "")
        else:
            continue
        measured = rates.get(label)
        units.append(
            UnitRate(
                head,
                per_sentence(piece),
                measured[0] if measured else None,
                measured[1] if measured else 0,
            )
        )
    return units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", type=Path)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--reread",
        action="store_true",
        help="plan and run nothing: match the units again in the record `--json` names "
        "(from its stored plan and stderr) and write it back",
    )
    args = parser.parse_args()
    if args.reread and args.json is None:
        parser.error("--reread needs --json: the record to match again")
    record = json.loads(args.json.read_text()) if args.reread else measure(args)
    units = units_of(record["plan"]["pieces"], record["stderr"])
    record["units"] = [asdict(u) for u in units]
    report(record, units)
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1))


def measure(args: argparse.Namespace) -> dict:
    """The plan's estimate, then the run, from two empty caches (the run's stderr kept)."""
    with tempfile.TemporaryDirectory(prefix="plan-accuracy-") as work:
        root = Path(work)
        record: dict = {"spec": str(args.spec), "cpus": os.cpu_count()}
        record["load_before_plan"] = load()
        record["plan"] = plan_estimate(args.spec, args.data_dir, root / "plan", args.calibrate)
        record["load_before_run"] = load()
        run = run_for(args.spec, args.data_dir, root / "run", root / "out", args.seconds)
        record["load_after_run"] = load()
        record["stderr"] = run.pop("stderr")
        record["run"] = run
    return record


def report(record: dict, units: list[UnitRate]) -> None:
    print(
        f"{record['spec']}: plan {record['plan']['total_s']:.0f} s (plan took "
        f"{record['plan']['plan_wall_s']:.0f} s, load {record['load_before_plan']})"
    )
    state = "finished" if record["run"]["finished"] else "stopped"
    print(
        f"run {state} after {record['run']['wall_s']:.0f} s (load {record['load_before_run']}"
        f" -> {record['load_after_run']})"
    )
    for u in units:
        ratio = ""
        if u.estimate_s_per_sentence and u.measured_s_per_sentence:
            ratio = f" ratio {u.estimate_s_per_sentence / u.measured_s_per_sentence:.2f}"
        print(
            f"  {u.unit}: estimate {u.estimate_s_per_sentence} s/sentence, measured "
            f"{u.measured_s_per_sentence} over {u.sentences_measured}{ratio}"
        )


if __name__ == "__main__":
    main()
