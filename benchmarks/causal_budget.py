"""Benchmark of the causal engine's token budget on the CPU: SmolLM2-135M `ll` on the same
seeded ToxiGen sentences with the budget (padded tokens per forward pass) at each of
`--budgets` (default 2,048, 4,096, 8,192, 16,384), in turns, `--rounds` times; the best
round of each, its share of the matmul peak read in the same process, and each budget's
largest per-sentence difference from the 4,096 one's, else the first's (batches of
other sizes round differently). Writes benchmarks/results/causal_budget_cpu[_<budgets>].json.

    .venv/bin/python benchmarks/causal_budget.py [--sample 1500] [--rounds 2]
        [--budgets 2048,4096,8192,16384] [--model-cache ~/.cache/bias-audit-tests]
"""

from __future__ import annotations

import argparse
import json
import os
import random
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

BUDGETS = "2048,4096,8192,16384"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--model-cache", type=Path, default=Path.home() / ".cache" / "bias-audit-tests"
    )
    parser.add_argument("--budgets", default=BUDGETS)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model = load_model(spec, cache_dir=args.model_cache, device="cpu")
    texts = list(dict.fromkeys(item["text"] for item in json.loads(TOXIGEN.read_text())))
    sample = random.Random(0).sample(texts, args.sample)
    ids, _ = engine.causal_token_ids(model, sample, reference=False)
    tokens = sum(len(x) - 1 for x in ids)
    per_token = flops_per_token(model)
    peak = matmul_peak(torch.device("cpu"), torch.float32)

    def score(budget: int) -> tuple[list[float], float]:
        engine.CPU_TOKEN_BUDGET = budget
        start = time.perf_counter()
        out = engine.causal_log_likelihoods(model, sample, reference=False, progress=lambda n: None)
        return [s.score for s in out], time.perf_counter() - start

    score(budgets[0])  # warm-up
    seconds: dict[int, list[float]] = {b: [] for b in budgets}
    values: dict[int, list[float]] = {}
    for _ in range(args.rounds):
        for budget in budgets:
            values[budget], took = score(budget)
            seconds[budget].append(took)
            print(f"budget {budget:6d}: {took:.1f} s", flush=True)
    peak = max(peak, matmul_peak(torch.device("cpu"), torch.float32))
    base = 4096 if 4096 in budgets else budgets[0]  # the engine's CPU budget before 2026-11-29
    reference = values[base]
    record: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": args.note,
        "load_average": os.getloadavg(),
        "threads": torch.get_num_threads(),
        "sentences": len(sample),
        "scored_tokens": tokens,
        "matmul_peak_flops": peak,
        "budgets": {
            str(b): {
                "best_seconds": min(seconds[b]),
                "all_seconds": seconds[b],
                "sentences_per_second": len(sample) / min(seconds[b]),
                "share_of_matmul_peak": per_token * tokens / min(seconds[b]) / peak,
                f"max_abs_difference_from_{base}": max(
                    abs(a - r) for a, r in zip(values[b], reference, strict=True)
                ),
            }
            for b in budgets
        },
    }
    suffix = "" if args.budgets == BUDGETS else "_" + args.budgets.replace(",", "_")
    target = RESULTS / f"causal_budget_cpu{suffix}.json"
    target.write_text(json.dumps(record, indent=2))
    print(json.dumps(record["budgets"], indent=2))


if __name__ == "__main__":
    main()
