"""Benchmark of the masked-LM scoring engine on CrowS-Pairs with the minilm-mlm model.

Runs in one process: measures the machine's float32 matmul peak, scores all CrowS-Pairs
pairs with CPS, SSS, AUL, AULA and PLL through the engine, then runs the naive loops
(CPS one forward per masked token as nyu-mll/crows-pairs `metric.py` does; AUL one
forward per sentence) on the first pairs and compares them per pair. Prints a table and
writes benchmarks/results/scoring_<device>.json.

    /work/venv/bin/python benchmarks/scoring.py [--naive-pairs 300] [--profile]
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
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from common import matmul_peak, peak_rss_mb, peak_rss_reset

from audit.models.device import use_all_cores
from audit.models.loaded import LoadedModel
from audit.scoring.masked import engine as masked_engine
from audit.scoring.masked.engine import EngineStats, collect_stats
from audit.scoring.masked.scorers import AUL_SCORER, AULA_SCORER, CPS_SCORER, PLL_SCORER, SSS_SCORER
from audit.scoring.options import MaskedOptions

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
CROWS = SHARED / "data" / "crows_pairs" / "crows_pairs_anonymized.csv"
BUILD = SHARED / "models" / "minilm_mlm" / "build.py"
MODEL_DIR = Path("~/.cache/bias-fixtures/minilm-mlm").expanduser()
RESULTS = REPO / "benchmarks" / "results"


def read_crows_pairs(path: Path) -> list[tuple[str, str]]:
    """(sent_more, sent_less) for every row, read with the csv module."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [(row["sent_more"], row["sent_less"]) for row in csv.DictReader(handle)]


def load_minilm() -> LoadedModel:
    from transformers import AutoTokenizer, BertForMaskedLM

    if not (MODEL_DIR / "config.json").exists():
        subprocess.run([sys.executable, str(BUILD), str(MODEL_DIR)], check=True)
    model = BertForMaskedLM.from_pretrained(MODEL_DIR).eval()
    tokenizer = AutoTokenizer.from_pretrained(MODEL_DIR)
    return LoadedModel("minilm-mlm", "masked", model, tokenizer, torch.device("cpu"), None, "")


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
        start = time.perf_counter()
        scores = scorer.score_pairs(model, pairs, options=options, progress=lambda _n: None)  # type: ignore[attr-defined]
        seconds = time.perf_counter() - start
    flops = engine_flops(stats, model.model)
    run = Run(
        scorer=name, mode="engine", pairs=len(pairs), seconds=seconds,
        masked_copies=stats.sequences, copies_per_second=stats.sequences / seconds,
        peak_rss_mb=peak_rss_mb(), flops=flops, flops_per_second=flops / seconds,
        share_of_matmul_peak=flops / seconds / peak,
        padding_share=1 - stats.real_tokens / max(1, stats.padded_tokens),
    )  # fmt: skip
    return run, scores


def naive_cps(model: LoadedModel, pairs: list[tuple[str, str]]) -> tuple[Run, list]:
    """nyu-mll/crows-pairs metric.py: one forward per shared token, full logits."""
    lm, tokenizer = model.model, model.tokenizer
    mask_id = tokenizer.mask_token_id
    log_softmax = torch.nn.LogSoftmax(dim=0)
    copies = 0
    scores = []
    peak_rss_reset()
    start = time.perf_counter()
    with torch.no_grad():
        for sent1, sent2 in pairs:
            ids1 = tokenizer.encode(sent1, return_tensors="pt")
            ids2 = tokenizer.encode(sent2, return_tensors="pt")
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
                    log_probs = log_softmax(hidden[template[i]])
                    pair_scores[side] += log_probs[ids[0][template[i]]].item()
                    copies += 1
            scores.append(tuple(pair_scores))
    seconds = time.perf_counter() - start
    run = Run("cps", "naive", len(pairs), seconds, copies, copies / seconds, peak_rss_mb())
    return run, scores


def naive_aul(model: LoadedModel, pairs: list[tuple[str, str]]) -> tuple[Run, list]:
    """Kaneko's calculate_aul: one forward per sentence, full logits."""
    lm, tokenizer = model.model, model.tokenizer
    scores = []
    peak_rss_reset()
    start = time.perf_counter()
    with torch.no_grad():
        for pair in pairs:
            sides = []
            for text in pair:
                ids = tokenizer.encode(text, return_tensors="pt")
                log_probs = torch.log_softmax(lm(ids).logits.squeeze(0), dim=1)
                sides.append(torch.mean(log_probs.gather(1, ids.view(-1, 1))[1:-1]).item())
            scores.append(tuple(sides))
    seconds = time.perf_counter() - start
    n = 2 * len(pairs)
    return Run("aul", "naive", len(pairs), seconds, n, n / seconds, peak_rss_mb()), scores


def max_difference(engine: list, naive: list) -> float:
    return max(
        abs(e.score - n)
        for e_pair, n_pair in zip(engine, naive, strict=False)
        for e, n in zip(e_pair, n_pair, strict=True)
    )


def profile_batch(model: LoadedModel, pairs: list[tuple[str, str]], options: MaskedOptions) -> str:
    """Top operators of a CPS run on 100 pairs, by self CPU time."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        CPS_SCORER.score_pairs(model, pairs[:100], options=options, progress=lambda _n: None)
    return str(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-pairs", type=int, default=300)
    parser.add_argument("--pairs", type=int, default=0, help="limit the pairs (0: all)")
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--scorers", default="cps,sss,aul,aula,pll")
    args = parser.parse_args(argv)

    threads = use_all_cores()
    pairs = read_crows_pairs(CROWS)
    if args.pairs:
        pairs = pairs[: args.pairs]
    model = load_minilm()
    peak = matmul_peak()
    options = MaskedOptions(batch_tokens=args.batch_tokens)
    print(f"threads {threads}; float32 matmul peak {peak / 1e9:.1f} GFLOP/s; {len(pairs)} pairs")

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
        print(
            f"{name:5} engine {run.seconds:8.2f} s {run.copies_per_second:9.1f} copies/s "
            f"{(run.flops_per_second or 0) / 1e9:6.1f} GFLOP/s "
            f"({100 * (run.share_of_matmul_peak or 0):4.1f}% of peak) "
            f"padding {100 * (run.padding_share or 0):4.1f}% rss {run.peak_rss_mb:7.0f} MB"
        )

    comparisons: dict[str, dict[str, float]] = {}
    naive_pairs = pairs[: args.naive_pairs]
    naive: list[tuple[str, Callable[..., tuple[Run, list]]]] = [
        ("cps", naive_cps),
        ("aul", naive_aul),
    ]
    for name, loop in naive:
        if name not in engine_scores:
            continue
        run, scores = loop(model, naive_pairs)
        runs.append(run)
        # The engine again on the same pairs right away: the machine is shared, so the
        # fair ratio is the one measured back to back under the same load.
        same, _ = run_engine(name, scorers[name], model, naive_pairs, peak, options)
        same.mode = "engine-same-pairs"
        runs.append(same)
        engine_run = next(r for r in runs if r.scorer == name and r.mode == "engine")
        diff = max_difference(engine_scores[name][: len(naive_pairs)], scores)
        comparisons[name] = {
            "speedup_same_pairs": same.copies_per_second / run.copies_per_second,
            "speedup_vs_full_run": engine_run.copies_per_second / run.copies_per_second,
            "max_abs_difference": diff,
        }
        print(
            f"{name:5} naive  {run.seconds:8.2f} s {run.copies_per_second:9.1f} copies/s "
            f"on {len(naive_pairs)} pairs; engine on the same pairs "
            f"{same.copies_per_second:7.1f} copies/s: speed-up "
            f"{comparisons[name]['speedup_same_pairs']:4.1f}x "
            f"(full run {comparisons[name]['speedup_vs_full_run']:4.1f}x); "
            f"max |engine - naive| {diff:.2e}"
        )

    profile = profile_batch(model, pairs, options) if args.profile else None
    if profile:
        print(profile)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "scoring_cpu.json"
    out.write_text(
        json.dumps(
            {
                "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "machine": {
                    "cpu": platform.processor() or platform.machine(),
                    "threads": threads,
                    "torch": torch.__version__,
                    "float32_matmul_peak_flops": peak,
                    "load_average": os.getloadavg(),
                },
                "model": "minilm-mlm",
                "dataset": "crows_pairs_anonymized.csv",
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
    print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
