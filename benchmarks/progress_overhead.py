"""What the per-layer progress ticks cost: causal `ll` with and without them.

`audit/scoring/layer_ticks.py` hooks every transformer layer with a read-only forward
hook so that progress moves inside long CPU batches. This script scores the same seeded
ToxiGen sample with SmolLM2-135M, alternating runs with the hooks and with a no-op in
their place, checks the scores are identical, and prints the ratio of the median times.
Runs on `--device` (auto: CUDA when present, else the CPU). Writes
benchmarks/results/progress_overhead_<device>.json.

    .venv/bin/python benchmarks/progress_overhead.py [--device auto] [--sample 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from common import (
    SMOLLM2,
    TOXIGEN,
    add_device_arguments,
    choose_device,
    run_header,
    synchronize,
    write_record,
)

from audit.models.load import load_model
from audit.scoring import causal
from audit.scoring.layer_ticks import LayerTicks
from audit.spec.models import ModelSpec


class NoTicks:
    """LayerTicks' interface with nothing hooked: one progress call per batch."""

    def __init__(self, model: Any, progress: Any) -> None:
        self.progress = progress

    def __enter__(self) -> NoTicks:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    @contextlib.contextmanager
    def batch(self, n: int) -> Iterator[None]:
        yield
        self.progress(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    add_device_arguments(parser, dtype=False)
    args = parser.parse_args()
    device = choose_device(args.device)
    cache = Path(os.environ.get("AUDIT_CACHE_DIR", Path.home() / ".cache" / "bias-audit"))
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model = load_model(spec, cache_dir=cache, device=str(device))
    texts = [row["text"] for row in json.loads(TOXIGEN.read_text())]
    sample = random.Random(0).sample(texts, args.sample)

    def run(ticks: type) -> tuple[float, list[float]]:
        causal.LayerTicks = ticks  # type: ignore[attr-defined,misc]
        calls = [0]

        def progress(n: int) -> None:
            calls[0] += 1

        synchronize(device)
        started = time.perf_counter()
        scores = causal.causal_log_likelihoods(model, sample, reference=False, progress=progress)
        synchronize(device)
        return time.perf_counter() - started, [s.score for s in scores]

    times: dict[str, list[float]] = {"ticks": [], "no_ticks": []}
    scores: dict[str, list[float]] = {}
    run(LayerTicks)  # warm-up
    for _ in range(args.repeats):
        for name, ticks in (("ticks", LayerTicks), ("no_ticks", NoTicks)):
            seconds, values = run(ticks)
            times[name].append(seconds)
            scores[name] = values
    causal.LayerTicks = LayerTicks  # type: ignore[attr-defined,misc]
    median = {k: statistics.median(v) for k, v in times.items()}
    record = {
        **run_header(device),
        "sentences": len(sample),
        "seconds": times,
        "median_seconds": median,
        "ticks_over_no_ticks": median["ticks"] / median["no_ticks"],
        "identical_scores": scores["ticks"] == scores["no_ticks"],
    }
    write_record(record, "progress_overhead", device, args.out)


if __name__ == "__main__":
    main()
