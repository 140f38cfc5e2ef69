"""Benchmark of causal LM scoring and of the score cache, with SmolLM2-135M.

In one process, on one device (`--device auto`: CUDA when present, else the CPU) and in
one precision (`--dtype`, the spec's `dtype`; float32 by default):
1. the device's matmul peak in that precision;
2. `ll` through the engine (length-sorted, padded batches) on a seeded sample of ToxiGen
   sentences, timed `--rounds` times, each between two readings of the matmul peak (so
   that other jobs on a shared machine slow both alike: the share of the peak is
   against the higher reading beside the best round), and a per-sentence loop on the
   first `--loop-sample` of them, same device and precision (one unpadded forward pass
   per sentence, full log-softmax: the SafeNLP way), compared per sentence: sentences/s,
   share of the matmul peak, peak GPU memory on CUDA. `--sample 0` scores every
   distinct ToxiGen sentence (6,438, as the demo does): batches then pack sentences of
   nearly one length, as in a run; a 300-sentence sample packs into 3 batches that span
   all lengths (41% padding);
3. the demo spec (specs/demo.yaml: CrowS-Pairs + ToxiGen, 9,530 sentences) run cold into
   an empty cache, then warm (every score cached), end to end through the engine, and
   the scorer called directly on the same sentences: how the run's scoring stage
   compares with the scorer alone.

Prints a table and writes benchmarks/results/causal_<device>[_<dtype>].json.

    .venv/bin/python benchmarks/causal.py [--device auto] [--dtype float32]
        [--sample 300] [--loop-sample 300] [--rounds 1] [--skip-demo] [--note TEXT]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from common import (
    DTYPES,
    REPO,
    SHARED,
    SMOLLM2,
    TOXIGEN,
    add_device_arguments,
    choose_device,
    device_record,
    matmul_peak,
    peak_rss_mb,
    peak_rss_reset,
    precision_context,
    results_path,
    timed_on,
)

from audit.display import PlainDisplay
from audit.engine import RunSettings, plan_audit, run_audit
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.scoring.causal import causal_log_likelihoods, causal_token_ids
from audit.scoring.runner import unit_jobs
from audit.spec.loader import LoadedSpec, load_spec
from audit.spec.models import ModelSpec


def flops_per_token(model: LoadedModel) -> float:
    """2 x parameters (embedding lookups excluded, the LM head included)."""
    params = sum(p.numel() for p in model.model.parameters())
    embedding = model.model.get_input_embeddings().weight.numel()
    head = model.model.get_output_embeddings().weight.numel()
    tied = model.model.get_input_embeddings().weight is model.model.get_output_embeddings().weight
    return 2.0 * (params - embedding + (head if tied else 0))


def per_sentence_loop(model: LoadedModel, texts: list[str]) -> list[float]:
    """One unpadded forward pass per sentence, full log-softmax over every position, on
    the model's device and in its precision; one host sync per sentence (`float`)."""
    ids_list, _ = causal_token_ids(model, texts, reference=False)
    out = []
    with torch.inference_mode(), precision_context(model):
        for ids in ids_list:
            logits = model.model(torch.tensor([ids], device=model.device)).logits[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            target = torch.tensor(ids[1:], device=logp.device)
            out.append(float(logp[:-1].gather(-1, target.unsqueeze(-1)).sum()))
    return out


def timed(device: torch.device, fn: Any) -> tuple[Any, float, float, float | None]:
    """(value, seconds, peak RSS MB, peak GPU memory MB or None)."""
    peak_rss_reset()
    value, seconds, gpu_mb = timed_on(device, fn)
    return value, seconds, peak_rss_mb(), gpu_mb


def with_dtype(loaded: LoadedSpec, dtype: str) -> LoadedSpec:
    """The demo spec with every model in `dtype` (float32 leaves it as written)."""
    if dtype == "float32":
        return loaded
    models = [m.model_copy(update={"dtype": dtype}) for m in loaded.spec.models]
    return dataclasses.replace(loaded, spec=loaded.spec.model_copy(update={"models": models}))


def with_model(loaded: LoadedSpec, source: Any, formats: list[str] | None) -> LoadedSpec:
    """The demo spec with its model read from `source` and, when given, these report
    formats (a machine without the PDF renderer's libraries runs with html only)."""
    models = [
        ModelSpec.model_validate(m.model_dump(mode="json") | {"source": source})
        for m in loaded.spec.models
    ]
    update: dict[str, Any] = {"models": models}
    if formats:
        update["report"] = loaded.spec.report.model_copy(update={"formats": formats})
    return dataclasses.replace(loaded, spec=loaded.spec.model_copy(update=update))


def demo_sentences(loaded: LoadedSpec, settings: RunSettings) -> list[str]:
    """Every sentence the demo's `ll` units score, once each, as the run's cache has them."""
    plan = plan_audit(loaded, settings, PlainDisplay(interval=600))
    texts: dict[str, None] = {}
    for unit in plan.units:
        for job in unit_jobs(unit.scorer, plan.datasets[unit.dataset]):
            texts.update(dict.fromkeys(job.texts))
    return list(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sample",
        type=int,
        default=300,
        help="ToxiGen sentences the engine scores (0: every distinct one, as the demo does)",
    )
    parser.add_argument(
        "--loop-sample",
        type=int,
        default=300,
        help="of those, how many the per-sentence loop scores too (the first N)",
    )
    parser.add_argument("--skip-demo", action="store_true", help="skip the cold/warm demo run")
    parser.add_argument(
        "--rounds", type=int, default=1, help="engine timings, each between two peak readings"
    )
    parser.add_argument(
        "--model-cache",
        type=Path,
        default=None,
        help="load the model through this cache (e.g. the tests' ~/.cache/bias-audit-tests) "
        "instead of the run's empty one",
    )
    parser.add_argument(
        "--note", default="", help="a note kept in the results (e.g. that the machine was shared)"
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        help="a local model folder in SmolLM2's place (e.g. one from random_weights.py)",
    )
    parser.add_argument(
        "--formats", default=None, help="the demo's report formats (default: the spec's)"
    )
    add_device_arguments(parser)
    args = parser.parse_args()

    device = choose_device(args.device)
    peak = matmul_peak(device, DTYPES[args.dtype])
    record: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": args.note,
        "device": device_record(device, args.dtype, peak),
        "dtype": args.dtype,
        "machine": {
            "cpu": platform.machine(),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "load_average": os.getloadavg(),
        },
    }
    cache = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    source: Any = {"path": str(args.model)} if args.model else SMOLLM2
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": source, "dtype": args.dtype})
    model, load_seconds, _, _ = timed(
        device, lambda: load_model(spec, cache_dir=args.model_cache or cache, device=str(device))
    )
    record["model"] = {
        "id": spec.id,
        "source": str(args.model) if args.model else "SmolLM2-135M-Instruct (pip GGUF)",
        "load_seconds": load_seconds,
        "n_parameters": model.n_parameters,
    }
    per_token = flops_per_token(model)

    texts = [item["text"] for item in json.loads(TOXIGEN.read_text())]
    if args.sample:
        sample = random.Random(0).sample(texts, args.sample)
    else:  # every distinct sentence, in a seeded order
        sample = list(dict.fromkeys(texts))
        random.Random(0).shuffle(sample)
    looped = sample[: args.loop_sample]
    tokens = sum(len(ids) - 1 for ids in causal_token_ids(model, sample, reference=False)[0])

    def score(texts: list[str]) -> Any:
        return causal_log_likelihoods(model, texts, reference=False, progress=lambda n: None)

    score(sample[:8])  # warm-up: first kernels, allocator
    # The peak and the engine are timed in turns, so that other jobs on a shared machine
    # slow both alike; each round's share is against the peak read beside it.
    rounds = []
    for _ in range(args.rounds):
        before = matmul_peak(device, DTYPES[args.dtype])
        engine, engine_s, engine_rss, engine_gpu = timed(device, lambda: score(sample))
        after = matmul_peak(device, DTYPES[args.dtype])
        rounds.append(
            {
                "engine_seconds": engine_s,
                "matmul_peak_flops_before_after": [before, after],
                "share_of_adjacent_peak": per_token * tokens / engine_s / max(before, after),
            }
        )
    best = max(rounds, key=lambda r: r["share_of_adjacent_peak"])
    engine_s = best["engine_seconds"]
    loop, loop_s, loop_rss, loop_gpu = timed(device, lambda: per_sentence_loop(model, looped))
    difference = max(abs(a.score - b) for a, b in zip(engine, loop, strict=False))
    # the loop's rate against the engine's on the same sentences
    loop_s_per_sentence = loop_s / len(looped)
    record["ll_sample"] = {
        "rounds": rounds,
        "engine_share_of_adjacent_matmul_peak": best["share_of_adjacent_peak"],
        "sentences": len(sample),
        "scored_tokens": tokens,
        "engine_seconds": engine_s,
        "loop_sentences": len(looped),
        "loop_seconds": loop_s,
        "engine_sentences_per_second": len(sample) / engine_s,
        "loop_sentences_per_second": len(looped) / loop_s,
        "speedup": loop_s_per_sentence / (engine_s / len(sample)),
        "engine_flops_per_second": per_token * tokens / engine_s,
        "engine_share_of_matmul_peak": per_token * tokens / engine_s / peak,
        "engine_peak_rss_mb": engine_rss,
        "loop_peak_rss_mb": loop_rss,
        "engine_peak_gpu_memory_mb": engine_gpu,
        "loop_peak_gpu_memory_mb": loop_gpu,
        "max_abs_difference": difference,
    }

    if not args.skip_demo:
        loaded = with_model(
            with_dtype(load_spec(REPO / "specs" / "demo.yaml"), args.dtype),
            source,
            args.formats.split(",") if args.formats else None,
        )
        display = PlainDisplay(interval=60)

        def settings(out: str) -> RunSettings:
            return RunSettings(
                out_dir=cache / out,
                cache_dir=cache,
                data_dir=SHARED / "data",
                device=str(device),
            )

        cold, cold_s, cold_rss, cold_gpu = timed(
            device, lambda: run_audit(loaded, settings("cold"), display)
        )
        warm, warm_s, warm_rss, _ = timed(
            device, lambda: run_audit(loaded, settings("warm"), display)
        )
        sentences = sum(u.sentences for u in cold.result.units)
        toxigen = next(u for u in cold.result.units if u.dataset == "toxigen")
        # The scorer called directly on every sentence the run scored, in this process.
        texts = demo_sentences(loaded, settings("direct"))
        _, direct_s, _, direct_gpu = timed(device, lambda: score(texts))
        scoring_s = cold.result.timings["scoring"]
        units_s = sum(u.seconds for u in cold.result.units)
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
            "cold_peak_gpu_memory_mb": cold_gpu,
            "warm_computed": sum(u.computed for u in warm.result.units),
            "direct_sentences": len(texts),
            "direct_seconds": direct_s,
            "direct_peak_gpu_memory_mb": direct_gpu,
            # The run's scoring stage includes loading the model; its units' own seconds
            # (scoring the sentences, reading and writing the cache) do not.
            "scoring_stage_over_direct": scoring_s / direct_s,
            "units_seconds": units_s,
            "units_over_direct": units_s / direct_s,
        }

    target = args.out or results_path("causal", device, args.dtype)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=2))
    s = record["ll_sample"]
    print(f"{record['device']['name']}, {args.dtype}: matmul peak {peak / 1e9:.0f} GFLOP/s")
    memory = (
        ""
        if s["engine_peak_gpu_memory_mb"] is None
        else f", peak GPU memory {s['engine_peak_gpu_memory_mb']:.0f} MB"
    )
    print(
        f"ll on {s['sentences']} ToxiGen sentences: engine {s['engine_seconds']:.1f}s "
        f"({s['engine_sentences_per_second']:.1f}/s, {100 * s['engine_share_of_matmul_peak']:.0f}% "
        f"of the first peak, {100 * s['engine_share_of_adjacent_matmul_peak']:.0f}% of the "
        f"adjacent one{memory}), per-sentence loop on {s['loop_sentences']} of them "
        f"{s['loop_seconds']:.1f}s: "
        f"{s['speedup']:.2f}x a sentence; "
        f"max |diff| {s['max_abs_difference']:.2e}"
    )
    if "demo" in record:
        d = record["demo"]
        print(
            f"demo ({d['sentences']} sentences): cold {d['cold_seconds']:.1f}s, warm "
            f"{d['warm_seconds']:.2f}s: {d['warm_speedup']:.0f}x; scoring stage "
            f"{d['cold_timings']['scoring']:.1f}s vs the scorer alone on the same "
            f"{d['direct_sentences']} sentences {d['direct_seconds']:.1f}s "
            f"({d['scoring_stage_over_direct']:.2f}x; its units alone {d['units_seconds']:.1f}s, "
            f"{d['units_over_direct']:.2f}x)"
        )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
