"""Does `torch.compile` bring causal `ll` on the CPU nearer the matmul peak? (issue 33)

The profile (docs/scoring.md, "Where causal scoring's time goes") left the transformer
body's elementwise operators (RMSNorm, rotary embeddings, the gated MLP's `silu` and
product, residual adds) as the part of the engine no better matrix product speeds up;
only fusing them would. This script measures that, in one process, on the same seeded
ToxiGen sentences (SmolLM2-135M, float32, the engine's own batching):

1. the CPU's float32 matmul peak;
2. the engine as it is (eager), timed;
3. the same engine with the base model wrapped by `torch.compile` (inductor, dynamic
   shapes): the first pass (which compiles, once per new batch shape) timed apart, then
   a second pass timed;
4. each round between two peak readings; the share of the peak against the higher one;
5. the largest per-sentence difference between the compiled and the eager scores (the
   fused kernels round differently: this is what the option would cost).

Writes benchmarks/results/causal_compile_cpu.json.

    .venv/bin/python benchmarks/causal_compile.py [--sample 1000] [--model-cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from causal import flops_per_token
from common import DTYPES, SMOLLM2, TOXIGEN, device_record, matmul_peak, results_path

from audit.models.load import load_model
from audit.scoring.causal import causal_log_likelihoods, causal_token_ids
from audit.spec.models import ModelSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=1000, help="ToxiGen sentences (seeded)")
    parser.add_argument("--model-cache", type=Path, default=None)
    parser.add_argument("--mode", default="default", help="torch.compile mode")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    device = torch.device("cpu")
    cache = args.model_cache or Path(tempfile.mkdtemp(prefix="audit-bench-"))
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model = load_model(spec, cache_dir=cache, device="cpu")
    texts = [item["text"] for item in json.loads(TOXIGEN.read_text())]
    sample = random.Random(0).sample(list(dict.fromkeys(texts)), args.sample)
    tokens = sum(len(ids) - 1 for ids in causal_token_ids(model, sample, reference=False)[0])
    per_token = flops_per_token(model)

    def score() -> tuple[list[float], float]:
        started = time.perf_counter()
        scores = causal_log_likelihoods(model, sample, reference=False, progress=lambda n: None)
        return [s.score for s in scores], time.perf_counter() - started

    def timed_round(label: str) -> dict[str, Any]:
        before = matmul_peak(device, DTYPES["float32"])
        values, seconds = score()
        after = matmul_peak(device, DTYPES["float32"])
        share = per_token * tokens / seconds / max(before, after)
        print(f"{label}: {seconds:.1f} s, {share:.1%} of the adjacent peak", flush=True)
        return {
            "label": label,
            "seconds": seconds,
            "peaks": [before, after],
            "share_of_adjacent_peak": share,
            "values": values,
        }

    causal_log_likelihoods(model, sample[:8], reference=False, progress=lambda n: None)
    eager = timed_round("eager")
    base = model.model.base_model
    prefix = model.model.base_model_prefix
    compiled_module = torch.compile(base, dynamic=True, mode=args.mode)
    setattr(model.model, prefix, compiled_module)
    first = timed_round("compiled, first pass (compiles)")
    second = timed_round("compiled, second pass")
    setattr(model.model, prefix, base)
    eager_again = timed_round("eager again")
    difference = max(abs(a - b) for a, b in zip(eager["values"], second["values"], strict=True))
    drift = max(abs(a - b) for a, b in zip(eager["values"], eager_again["values"], strict=True))
    print(f"largest per-sentence difference, compiled against eager: {difference:.3g}")
    rounds = [eager, first, second, eager_again]
    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "device": device_record(device, "float32", max(max(r["peaks"]) for r in rounds)),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "load_average": os.getloadavg(),
        "compile_mode": args.mode,
        "sentences": len(sample),
        "scored_tokens": tokens,
        "rounds": [{k: v for k, v in r.items() if k != "values"} for r in rounds],
        "compiled_over_eager_seconds": second["seconds"] / eager["seconds"],
        "max_abs_difference_compiled_vs_eager": difference,
        "max_abs_difference_eager_vs_eager": drift,
    }
    out = args.out or results_path("causal_compile", device)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
