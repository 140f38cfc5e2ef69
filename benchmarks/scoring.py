"""Benchmark of the masked-LM scoring engine on CrowS-Pairs with the minilm-mlm model.

Runs in one process on one device (`--device auto`: CUDA when present, else the CPU) and
in one precision (`--dtype`, the spec's `dtype`; float32 by default): measures the
device's matmul peak in that precision, scores all CrowS-Pairs pairs with CPS, SSS, AUL,
AULA and PLL through the engine (pairs/s, masked copies/s, share of the peak, peak GPU
memory on CUDA), then runs the naive loops on the same device and in the same precision
(CPS one forward per masked token as nyu-mll/crows-pairs `metric.py` does; AUL one
forward per sentence) on the first pairs and compares them per pair. Prints a table and
writes benchmarks/results/scoring_<device>[_<dtype>].json (`common.results_path`).

    .venv/bin/python benchmarks/scoring.py [--device auto] [--dtype float32]
        [--naive-pairs 300] [--pairs 0] [--profile] [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from common import (
    DTYPES,
    SHARED,
    add_device_arguments,
    choose_device,
    device_record,
    matmul_peak,
    peak_rss_mb,
    peak_rss_reset,
    precision_context,
    results_path,
    synchronize,
    timed_on,
)

from audit.models.device import use_all_cores
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.scoring.base import ScoringCall
from audit.scoring.masked import engine as masked_engine
from audit.scoring.masked.engine import EngineStats, collect_stats
from audit.scoring.masked.scorers import AUL_SCORER, AULA_SCORER, CPS_SCORER, PLL_SCORER, SSS_SCORER
from audit.scoring.options import MaskedOptions
from audit.spec.models import ModelSpec

CROWS = SHARED / "data" / "crows_pairs" / "crows_pairs_anonymized.csv"
BUILD = SHARED / "models" / "minilm_mlm" / "build.py"
MODEL_DIR = Path("~/.cache/bias-fixtures/minilm-mlm").expanduser()


def read_crows_pairs(path: Path) -> list[tuple[str, str]]:
    """(sent_more, sent_less) for every row, read with the csv module."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [(row["sent_more"], row["sent_less"]) for row in csv.DictReader(handle)]


def load_minilm(device: torch.device, dtype: str, folder: Path | None = None) -> LoadedModel:
    """minilm-mlm (or the model in `folder`) loaded as `audit run` loads a model with this
    `dtype` on `device`."""
    if folder is None:
        folder = MODEL_DIR
        if not (MODEL_DIR / "config.json").exists():
            subprocess.run([sys.executable, str(BUILD), str(MODEL_DIR)], check=True)
    spec = ModelSpec.model_validate(
        {"id": "minilm-mlm", "source": {"path": str(folder)}, "dtype": dtype}
    )
    cache = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    return load_model(spec, cache_dir=cache, device=str(device))


def engine_flops(stats: EngineStats, model: Any) -> float:
    """Executed matmul FLOPs (padding included) of the encoder and the gathered head.

    In forwards whose last layer ran at the read rows only, that layer costs the key and
    value projections for every token plus a full layer for each read row.
    """
    cfg = model.config
    d, ff, layers, vocab = (
        cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers, cfg.vocab_size,
    )  # fmt: skip
    per_layer_token = 2 * (4 * d * d + 2 * d * ff)
    attention_per_layer = 2 * 2 * d * stats.attention_tokens_sq
    flops = layers * per_layer_token * stats.padded_tokens + layers * attention_per_layer
    if stats.pruned_forwards:  # last layer: keys/values of every token, the rest per row
        flops -= (per_layer_token - 2 * 2 * d * d) * stats.pruned_tokens
        flops += (per_layer_token - 2 * 2 * d * d) * stats.pruned_rows
        flops -= 2 * 2 * d * (stats.pruned_attention_tokens_sq - stats.pruned_row_tokens)
    head = stats.head_rows * 2 * (d * d + d * vocab)
    return float(flops + head)


@dataclass
class Run:
    scorer: str
    mode: str  # "engine" or "naive"
    pairs: int
    seconds: float
    masked_copies: int  # forward sequences (masked copies or sentences)
    copies_per_second: float
    peak_rss_mb: float
    pairs_per_second: float = 0.0  # items/s
    peak_gpu_memory_mb: float | None = None  # torch.cuda.max_memory_allocated; None on CPU
    flops: float | None = None
    flops_per_second: float | None = None
    share_of_matmul_peak: float | None = None
    padding_share: float | None = None


def run_engine(
    name: str, scorer: object, model: LoadedModel, pairs: list[tuple[str, str]], peak: float,
    options: MaskedOptions,
) -> tuple[Run, list]:  # fmt: skip
    with collect_stats() as stats:
        peak_rss_reset()
        scores, seconds, gpu_mb = timed_on(
            model.device,
            lambda: scorer.score_pairs(model, pairs, ScoringCall(options, lambda _n: None)),  # type: ignore[attr-defined]
        )
    flops = engine_flops(stats, model.model)
    run = Run(
        scorer=name, mode="engine", pairs=len(pairs), seconds=seconds,
        masked_copies=stats.sequences, copies_per_second=stats.sequences / seconds,
        peak_rss_mb=peak_rss_mb(), pairs_per_second=len(pairs) / seconds,
        peak_gpu_memory_mb=gpu_mb, flops=flops, flops_per_second=flops / seconds,
        share_of_matmul_peak=flops / seconds / peak,
        padding_share=1 - stats.real_tokens / max(1, stats.padded_tokens),
    )  # fmt: skip
    return run, scores


def naive_run(
    name: str, model: LoadedModel, pairs: list[tuple[str, str]], loop: Callable[..., Any]
) -> tuple[Run, list]:
    """A naive loop timed on the model's device, in the precision the scorers use."""
    peak_rss_reset()
    with precision_context(model):
        (scores, copies), seconds, gpu_mb = timed_on(model.device, lambda: loop(model, pairs))
    run = Run(
        name, "naive", len(pairs), seconds, copies, copies / seconds, peak_rss_mb(),
        pairs_per_second=len(pairs) / seconds, peak_gpu_memory_mb=gpu_mb,
    )  # fmt: skip
    return run, scores


def naive_cps(model: LoadedModel, pairs: list[tuple[str, str]]) -> tuple[list, int]:
    """nyu-mll/crows-pairs metric.py: one forward per shared token, full logits, one
    `.item()` per token (on a GPU, a host sync each). Returns (scores, forwards)."""
    lm, tokenizer, device = model.model, model.tokenizer, model.device
    mask_id = tokenizer.mask_token_id
    log_softmax = torch.nn.LogSoftmax(dim=0)
    copies = 0
    scores = []
    with torch.no_grad():
        for sent1, sent2 in pairs:
            ids1 = tokenizer.encode(sent1, return_tensors="pt").to(device)
            ids2 = tokenizer.encode(sent2, return_tensors="pt").to(device)
            matcher = difflib.SequenceMatcher(
                None, [str(x) for x in ids1[0].tolist()], [str(x) for x in ids2[0].tolist()]
            )
            t1: list[int] = []
            t2: list[int] = []
            for op in matcher.get_opcodes():
                if op[0] == "equal":
                    t1 += list(range(op[1], op[2]))
                    t2 += list(range(op[3], op[4]))
            pair_scores = [0.0, 0.0]
            for i in range(1, len(t1) - 1):  # skipping [CLS] and [SEP]
                for side, (ids, template) in enumerate(((ids1, t1), (ids2, t2))):
                    masked = ids.clone()
                    masked[0][template[i]] = mask_id
                    hidden = lm(masked)[0].squeeze(0)
                    log_probs = log_softmax(hidden[template[i]].float())
                    pair_scores[side] += log_probs[ids[0][template[i]]].item()
                    copies += 1
            scores.append(tuple(pair_scores))
    return scores, copies


def naive_aul(model: LoadedModel, pairs: list[tuple[str, str]]) -> tuple[list, int]:
    """Kaneko's calculate_aul: one forward per sentence, full logits. Returns (scores,
    forwards)."""
    lm, tokenizer, device = model.model, model.tokenizer, model.device
    scores = []
    with torch.no_grad():
        for pair in pairs:
            sides = []
            for text in pair:
                ids = tokenizer.encode(text, return_tensors="pt").to(device)
                log_probs = torch.log_softmax(lm(ids).logits.squeeze(0).float(), dim=1)
                sides.append(torch.mean(log_probs.gather(1, ids.view(-1, 1))[1:-1]).item())
            scores.append(tuple(sides))
    return scores, 2 * len(pairs)


def max_difference(engine: list, naive: list) -> float:
    return max(
        abs(e.score - n)
        for e_pair, n_pair in zip(engine, naive, strict=False)
        for e, n in zip(e_pair, n_pair, strict=True)
    )


def profile_batch(model: LoadedModel, pairs: list[tuple[str, str]], options: MaskedOptions) -> str:
    """Top operators of a CPS run on 100 pairs, by self CPU time (with the GPU's time per
    operator on CUDA)."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if model.device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof:
        CPS_SCORER.score_pairs(model, pairs[:100], ScoringCall(options, lambda _n: None))
        synchronize(model.device)
    return str(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-pairs", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=0, help="limit the pairs (0: all)")
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--scorers", default="cps,sss,aul,aula,pll")
    parser.add_argument(
        "--model", type=Path, default=None, help="a masked LM folder in minilm-mlm's place"
    )
    add_device_arguments(parser)
    args = parser.parse_args(argv)

    device = choose_device(args.device)
    threads = use_all_cores()
    pairs = read_crows_pairs(CROWS)
    if args.pairs:
        pairs = pairs[: args.pairs]
    model = load_minilm(device, args.dtype, args.model)
    peak = matmul_peak(device, DTYPES[args.dtype])
    machine = device_record(device, args.dtype, peak)
    options = MaskedOptions(batch_tokens=args.batch_tokens)
    print(
        f"{machine['name']} ({device}), {args.dtype}: matmul peak {peak / 1e9:.1f} GFLOP/s; "
        f"{len(pairs)} pairs"
    )

    scorers: dict[str, object] = {
        "cps": CPS_SCORER, "sss": SSS_SCORER, "aul": AUL_SCORER, "aula": AULA_SCORER,
        "pll": PLL_SCORER,
    }  # fmt: skip
    runs: list[Run] = []
    engine_scores: dict[str, list] = {}
    for name in args.scorers.split(","):
        run, scores = run_engine(name, scorers[name], model, pairs, peak, options)
        runs.append(run)
        engine_scores[name] = scores
        memory = "" if run.peak_gpu_memory_mb is None else f" gpu {run.peak_gpu_memory_mb:7.0f} MB"
        print(
            f"{name:5} engine {run.seconds:8.2f} s {run.pairs_per_second:8.1f} pairs/s "
            f"{run.copies_per_second:9.1f} copies/s "
            f"{(run.flops_per_second or 0) / 1e9:6.1f} GFLOP/s "
            f"({100 * (run.share_of_matmul_peak or 0):4.1f}% of peak) "
            f"padding {100 * (run.padding_share or 0):4.1f}% rss {run.peak_rss_mb:7.0f} MB" + memory
        )

    comparisons: dict[str, dict[str, float]] = {}
    naive_pairs = pairs[: args.naive_pairs]
    naive: list[tuple[str, Callable[..., tuple[list, int]]]] = [
        ("cps", naive_cps),
        ("aul", naive_aul),
    ]
    for name, loop in naive:
        if name not in engine_scores or not naive_pairs:
            continue
        run, scores = naive_run(name, model, naive_pairs, loop)
        runs.append(run)
        # The engine again on the same pairs right away: the machine is shared, so the
        # fair ratio is the one measured back to back under the same load.
        same, _ = run_engine(name, scorers[name], model, naive_pairs, peak, options)
        same.mode = "engine-same-pairs"
        runs.append(same)
        engine_run = next(r for r in runs if r.scorer == name and r.mode == "engine")
        diff = max_difference(engine_scores[name][: len(naive_pairs)], scores)
        comparisons[name] = {
            "speedup_same_pairs": same.pairs_per_second / run.pairs_per_second,
            "speedup_vs_full_run": engine_run.pairs_per_second / run.pairs_per_second,
            "max_abs_difference": diff,
        }
        print(
            f"{name:5} naive  {run.seconds:8.2f} s {run.pairs_per_second:8.1f} pairs/s "
            f"on {len(naive_pairs)} pairs; engine on the same pairs "
            f"{same.pairs_per_second:8.1f} pairs/s: speed-up "
            f"{comparisons[name]['speedup_same_pairs']:4.1f}x "
            f"(full run {comparisons[name]['speedup_vs_full_run']:4.1f}x); "
            f"max |engine - naive| {diff:.2e}"
        )

    profile = profile_batch(model, pairs, options) if args.profile else None
    if profile:
        print(profile)
    out = args.out or results_path("scoring", device, args.dtype)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "device": machine,
                "machine": {
                    "cpu": platform.processor() or platform.machine(),
                    "threads": threads,
                    "torch": torch.__version__,
                    "load_average": os.getloadavg(),
                },
                "model": str(args.model) if args.model else "minilm-mlm",
                "dtype": args.dtype,
                "dataset": "crows_pairs_anonymized.csv",
                "pairs": len(pairs),
                "naive_pairs": len(naive_pairs),
                "batch_tokens": args.batch_tokens
                or masked_engine.resolve_token_budget(model, None),
                "runs": [asdict(r) for r in runs],
                "comparisons": comparisons,
                "profile": profile,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
