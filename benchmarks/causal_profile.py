"""Where causal `ll` scoring's time goes, on the CPU, with SmolLM2-135M.

Runs the engine's own steps (`audit.scoring.causal`) one by one on a seeded sample of
the demo's ToxiGen sentences (the sample of benchmarks/causal.py), timing each:
tokenisation, packing by length, building the padded batch, the transformer body (the
base model's forward pass), picking the scored rows, the LM head's matrix product over
the vocabulary, the log-normaliser and target gather (`logsumexp`, or, for comparison,
a full float32 `log_softmax` row), the per-sequence sum, and the batch journal (batch key,
host copy and an SQLite commit, as a run's unit does). Then `torch.profiler` over one
more pass of the body splits it into matrix products, attention and the rest
(normalisation, activations, rotary embeddings, copies). Also counts padding: padded
tokens over real ones.

Shares are measured within one process, so a busy machine slows every section alike;
absolute seconds are context only. Writes benchmarks/results/causal_profile_cpu.json.

    .venv/bin/python benchmarks/causal_profile.py [--sample 300] [--budget 4096]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import RESULTS, SMOLLM2, TOXIGEN, matmul_peak

from audit.models.load import load_model
from audit.scoring.batch_journal import journal_batches, journaled
from audit.scoring.batching import pack_by_length
from audit.scoring.cache_db import SCHEMA
from audit.scoring.causal import (
    HEAD_CHUNK_ROWS,
    _forward,
    _logsumexp_in_place,
    causal_token_ids,
    cpu_token_budget,
)
from audit.scoring.causal_batch import padded_causal_batch
from audit.spec.models import ModelSpec

CACHE = Path(os.environ.get("AUDIT_TEST_CACHE", Path.home() / ".cache" / "bias-audit-tests"))


class Sections:
    """Seconds per named section, accumulated."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.seconds[name] += time.perf_counter() - start


def engine_pass(
    model: Any, texts: list[str], budget: int, journal_db: Any, head_rows: int, in_place: bool
) -> dict[str, Any]:
    """The engine's steps on `texts`, timed one by one (float32 CPU, plain LM head)."""
    s = Sections()
    with s("tokenise"):
        ids, _ = causal_token_ids(model, texts, reference=False)
    with s("pack"):
        batches = pack_by_length([len(x) for x in ids], budget)
    head = model.model.get_output_embeddings()
    real = padded = 0
    full_softmax_s = 0.0
    with torch.inference_mode():
        for batch in batches:
            batch_ids = [ids[i] for i in batch]
            with s("pad_build"):
                built = padded_causal_batch(batch_ids, [1] * len(batch_ids), 0)
            real += sum(len(x) for x in batch_ids)
            padded += built.input_ids.size
            input_ids = torch.from_numpy(built.input_ids)
            attention = torch.from_numpy(built.attention)
            rows = torch.from_numpy(built.rows)
            cols = torch.from_numpy(built.cols)
            targets = torch.from_numpy(built.targets)
            with s("body"):
                states = _forward(model, input_ids, attention, full=False)
            with s("pick_rows"):
                hidden = states[rows, cols]
            out = torch.empty(len(targets), dtype=torch.float32)
            for start in range(0, len(targets), head_rows):
                chunk = slice(start, start + head_rows)
                with s("head_matmul"):
                    logits = head(hidden[chunk])
                wanted = targets[chunk].unsqueeze(-1)
                t0 = time.perf_counter()
                torch.log_softmax(logits, dim=-1).gather(-1, wanted)
                full_softmax_s += time.perf_counter() - t0
                with s("logsumexp_gather"):
                    picked = logits.gather(-1, wanted).squeeze(-1)
                    if in_place:  # the engine's since the profile: overwrites `logits`
                        out[chunk] = picked - _logsumexp_in_place(logits)
                    else:
                        out[chunk] = picked - torch.logsumexp(logits, dim=-1)
            with s("sum"):
                sums = torch.zeros(len(batch_ids), dtype=torch.float64)
                sums.index_add_(0, rows, out.double())
            inputs = [np.array([len(x) for x in batch_ids]), np.concatenate(batch_ids)]
            with journal_batches(journal_db, "profile"), s("journal"):
                journaled("causal/profile", inputs, lambda sums=sums: [sums])
    return {
        "seconds": dict(s.seconds),
        "full_log_softmax_seconds_for_comparison": full_softmax_s,
        "batches": len(batches),
        "real_tokens": real,
        "padded_tokens": padded,
        "scored_tokens": sum(len(x) - 1 for x in ids),
    }


def body_ops(model: Any, texts: list[str], budget: int) -> dict[str, Any]:
    """Self CPU seconds of the body's operators (torch.profiler), grouped."""
    from torch.profiler import ProfilerActivity, profile

    ids, _ = causal_token_ids(model, texts, reference=False)
    groups: dict[str, float] = defaultdict(float)
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU]) as prof:
        for batch in pack_by_length([len(x) for x in ids], budget):
            built = padded_causal_batch([ids[i] for i in batch], [1] * len(batch), 0)
            _forward(
                model,
                torch.from_numpy(built.input_ids),
                torch.from_numpy(built.attention),
                full=False,
            )
    for event in prof.key_averages():
        name = event.key
        seconds = event.self_cpu_time_total / 1e6
        if name in ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear"):
            groups["matmul"] += seconds
        elif "attention" in name or "sdpa" in name or "softmax" in name:
            groups["attention"] += seconds
        else:
            groups["other"] += seconds
    others = sorted(
        (
            (e.key, e.self_cpu_time_total / 1e6)
            for e in prof.key_averages()
            if e.key not in ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear")
        ),
        key=lambda kv: -kv[1],
    )[:12]
    return {**groups, "top_other": dict(others)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--budget", type=int, default=cpu_token_budget())
    parser.add_argument("--head-rows", type=int, default=HEAD_CHUNK_ROWS)
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="the in-place log-normaliser (the engine's now) instead of torch.logsumexp",
    )
    parser.add_argument("--skip-ops", action="store_true", help="no torch.profiler pass")
    parser.add_argument("--out", type=Path, default=RESULTS / "causal_profile_cpu.json")
    args = parser.parse_args()

    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model = load_model(spec, cache_dir=CACHE, device="cpu")
    texts = [item["text"] for item in json.loads(TOXIGEN.read_text())]
    sample = random.Random(0).sample(texts, args.sample)
    db = sqlite3.connect(Path(tempfile.mkdtemp(prefix="audit-profile-")) / "journal.db")
    for statement in SCHEMA:
        db.execute(statement)

    engine_pass(model, sample[:16], args.budget, db, args.head_rows, args.in_place)  # warm-up
    peak_before = matmul_peak()
    start = time.perf_counter()
    timed = engine_pass(model, sample, args.budget, db, args.head_rows, args.in_place)
    total = time.perf_counter() - start
    peak_after = matmul_peak()
    ops = {} if args.skip_ops else body_ops(model, sample, args.budget)

    seconds = timed["seconds"]
    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": "measured on a machine shared with other jobs: shares within this one "
        "process are the finding, absolute seconds only context",
        "load_average": os.getloadavg(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "sentences": len(sample),
        "token_budget": args.budget,
        "head_chunk_rows": args.head_rows,
        "log_normaliser": "in place" if args.in_place else "torch.logsumexp",
        "matmul_peak_flops_before_after": [peak_before, peak_after],
        "total_seconds": total,
        "shares": {name: value / total for name, value in seconds.items()},
        **timed,
        "padding_overhead": timed["padded_tokens"] / timed["real_tokens"] - 1,
        "body_ops_seconds": ops,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2))
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
