"""A/B benchmark of the causal engine with and without the retained heap
(`audit.scoring.retained_heap`), on the CPU, with SmolLM2-135M.

Scores the same seeded ToxiGen sentences with `ll`, in turns, `--rounds` times each, each
round in a fresh process (the heap's thresholds, once raised, stay raised in a process):
the engine as it is (freed memory kept in the process during the batch loop) and the
engine with the loop's `retained_heap` replaced by a no-op (glibc's malloc as it starts:
large blocks handed back to the kernel when freed). Per round, after a warm-up pass on
the first 32 sentences: seconds, minor page faults and system CPU seconds
(`getrusage`), the process's peak RSS, and the share of the matmul peak read before and
after it. Checks that the two give the same per-sentence values bit for bit. Writes
benchmarks/results/causal_heap_cpu.json.

    .venv/bin/python benchmarks/causal_heap.py [--sample 600] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from causal import flops_per_token
from common import RESULTS, SMOLLM2, TOXIGEN, matmul_peak

import audit.scoring.causal as engine
from audit.models.load import load_model
from audit.spec.models import ModelSpec

MODES = ("retained heap (the engine)", "glibc defaults")


def one_round(args: argparse.Namespace) -> dict[str, Any]:
    """One mode's round in this process: load, warm up, score the sample, report."""
    if args.mode == "glibc defaults":
        # the loop without the retained heap: glibc's malloc as it starts
        engine.retained_heap = lambda _device: contextlib.nullcontext(False)  # type: ignore[assignment]
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model = load_model(spec, cache_dir=args.model_cache, device="cpu")
    texts = list(dict.fromkeys(item["text"] for item in json.loads(TOXIGEN.read_text())))
    sample = random.Random(0).sample(texts, args.sample)
    ids, _ = engine.causal_token_ids(model, sample, reference=False)
    tokens = sum(len(x) - 1 for x in ids)
    engine.causal_log_likelihoods(model, sample[:32], reference=False, progress=lambda n: None)
    before = resource.getrusage(resource.RUSAGE_SELF)
    peak_before = matmul_peak()
    start = time.perf_counter()
    out = engine.causal_log_likelihoods(model, sample, reference=False, progress=lambda n: None)
    seconds = time.perf_counter() - start
    peak = max(peak_before, matmul_peak())
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "seconds": seconds,
        "minor_page_faults": after.ru_minflt - before.ru_minflt,
        "system_cpu_seconds": after.ru_stime - before.ru_stime,
        "user_cpu_seconds": after.ru_utime - before.ru_utime,
        "share_of_adjacent_peak": tokens * flops_per_token(model) / seconds / peak,
        "process_peak_rss_mb": after.ru_maxrss / 1024,
        "scored_tokens": tokens,
        "values": [s.score for s in out],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--model-cache", type=Path, default=Path.home() / ".cache" / "bias-audit-tests"
    )
    parser.add_argument("--note", default="")
    parser.add_argument("--out", type=Path, default=RESULTS / "causal_heap_cpu.json")
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)  # one round
    args = parser.parse_args()
    if args.mode:
        print(json.dumps(one_round(args)))
        return

    rounds: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            command = [sys.executable, __file__, "--mode", mode, "--sample", str(args.sample)]
            command += ["--model-cache", str(args.model_cache)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            rounds[mode].append(result)
            print(
                f"{mode:28s} {result['seconds']:6.1f} s  faults {result['minor_page_faults']:7d}"
                f"  sys {result['system_cpu_seconds']:4.1f} s"
                f"  rss {result['process_peak_rss_mb']:5.0f} MB"
                f"  share {result['share_of_adjacent_peak']:.0%}",
                flush=True,
            )
    values = [r.pop("values") for mode in MODES for r in rounds[mode]]
    identical = all(v == values[0] for v in values)
    a, b = (statistics.median(r["seconds"] for r in rounds[mode]) for mode in MODES)
    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": args.note,
        "load_average": os.getloadavg(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "sentences": args.sample,
        "token_budget": engine.cpu_token_budget(),
        "rounds": rounds,
        "median_seconds": dict(zip(MODES, (a, b), strict=True)),
        "speedup_of_retained_heap": b / a,
        "values_identical_bit_for_bit": identical,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2))
    print(f"retained heap: {b / a:.2f}x (median of {args.rounds}); identical: {identical}")


if __name__ == "__main__":
    main()
