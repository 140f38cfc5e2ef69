"""Peer benchmark: this tool against lm-evaluation-harness on CrowS-Pairs (English).

Both score the same pairs with the same model by the same full-sentence log-likelihood:

- the model: SmolLM2-135M from its pip-packaged GGUF, dequantised once by the tool into
  a local transformers folder (config, safetensors, tokenizer), which both then load;
- the pairs: ../shared/data/crows_pairs/crows_pairs_anonymized.csv (1,508 pairs; with
  `--limit N` the first N), read by lm-evaluation-harness through
  benchmarks/lm_eval_tasks/crows_pairs_english_local.yaml: its own task definition and
  functions with the local CSV as the dataset;
- the tokens: lm-evaluation-harness scores each sentence as the continuation of an
  empty context, which it replaces by its prefix token (the tokenizer's BOS when it has
  one, else its EOS); the tool prepends the BOS when the tokenizer adds none. Both score
  every token of the sentence after that one token (the script records the ids).

lm-evaluation-harness is not a dependency of this project: it runs from its own
environment (`--lm-eval-python`, default /work/venvs/lmeval/bin/python; make it with
`python -m venv`, `pip install torch==2.13.0`, then `pip install "lm-eval[hf]"`: plain
lm-eval 0.4.13 has no transformers), as a separate process.

Measured, each as a whole process (`audit run`; `lm_eval`), cold (empty score cache;
empty datasets and response caches) then warm (the same caches again): seconds and
their ratio; lm-eval's pct_stereotype beside the tool's bias score; and per sentence the
difference between lm-eval's log-likelihood (from its logged samples) and the tool's `ll`
(in this process, on the same folder). Writes benchmarks/results/lm_eval_peer[_limitN].json.

    .venv/bin/python benchmarks/lm_eval_peer.py [--limit N] [--batch-size 32]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import REPO, RESULTS, SHARED, SMOLLM2

from audit.models.load import load_model
from audit.scoring.causal import causal_log_likelihoods, causal_token_ids
from audit.spec.models import ModelSpec

TASK = "crows_pairs_english_local"
TASKS = Path(__file__).resolve().parent / "lm_eval_tasks"
CSV = SHARED / "data" / "crows_pairs" / "crows_pairs_anonymized.csv"


def model_folder(cache: Path) -> Path:
    """The tool's dequantised SmolLM2 folder (made on first use): a transformers folder."""
    spec = ModelSpec.model_validate({"id": "smollm2-135m", "source": SMOLLM2})
    load_model(spec, cache_dir=cache, device="cpu")
    for config in sorted((cache / "dequantised").glob("*/config.json")):
        if "LlamaForCausalLM" in config.read_text():
            return config.parent
    raise SystemExit(f"no dequantised SmolLM2 folder under {cache}")


def pairs(limit: int | None) -> list[tuple[str, str]]:
    with CSV.open(newline="") as handle:
        rows = [(r["sent_more"], r["sent_less"]) for r in csv.DictReader(handle)]
    return rows[:limit] if limit else rows


def timed_process(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 3):  # audit run: 3 = a gate failed (there is none here)
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"{command[0]} exited {done.returncode}")
    return seconds


def tool_spec(work: Path, folder: Path, limit: int | None) -> Path:
    dataset: dict[str, Any] = {"name": "crows_pairs"}
    if limit:
        dataset["limit"] = limit
    spec = {
        "spec_version": 1,
        "name": "lm-eval-peer",
        "models": [{"id": "smollm2-135m", "source": {"path": str(folder)}}],
        "datasets": [dataset],
        "scorers": {"causal": ["ll"]},
        "measures": ["bias_score"],
        "report": {"formats": ["html"]},
    }
    path = work / "spec.json"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def lm_eval_task(work: Path) -> Path:
    """A copy of the local task folder whose dataset path is this run's CSV."""
    folder = work / "tasks"
    folder.mkdir()
    text = (TASKS / f"{TASK}.yaml").read_text()
    text = text.replace("../shared/data/crows_pairs/crows_pairs_anonymized.csv", str(CSV))
    (folder / f"{TASK}.yaml").write_text(text)
    (folder / "utils.py").write_text((TASKS / "utils.py").read_text())
    return folder


def lm_eval_samples(out: Path) -> list[dict[str, Any]]:
    files = sorted(out.rglob(f"samples_{TASK}_*.jsonl"))
    if not files:
        raise SystemExit(f"no logged samples under {out}")
    samples = [json.loads(line) for line in files[-1].read_text().splitlines() if line]
    return sorted(samples, key=lambda s: s["doc_id"])


def lm_eval_metrics(out: Path) -> dict[str, Any]:
    files = sorted(out.rglob("results_*.json"))
    return dict(json.loads(files[-1].read_text())["results"][TASK])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N pairs only")
    parser.add_argument("--batch-size", type=int, default=32, help="lm-eval's --batch_size")
    parser.add_argument(
        "--lm-eval-python", type=Path, default=Path("/work/venvs/lmeval/bin/python")
    )
    parser.add_argument(
        "--model-cache",
        type=Path,
        default=Path.home() / ".cache" / "bias-audit-tests",
        help="where the tool keeps the dequantised model folder both load",
    )
    parser.add_argument("--note", default="")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    folder = model_folder(args.model_cache)
    work = Path(tempfile.mkdtemp(prefix="lm-eval-peer-"))
    env = dict(os.environ)
    env.update(
        HF_HOME=str(work / "hf"),
        HF_DATASETS_CACHE=str(work / "hf" / "datasets"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    tasks = lm_eval_task(work)
    lm_eval = [
        str(args.lm_eval_python),
        "-m",
        "lm_eval",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={folder},dtype=float32",
        "--tasks",
        TASK,
        "--include_path",
        str(tasks),
        "--device",
        "cpu",
        "--batch_size",
        str(args.batch_size),
        "--use_cache",
        str(work / "lm-eval-responses"),
        "--output_path",
        str(work / "lm-eval-out"),
        "--log_samples",
    ]
    if args.limit:
        lm_eval += ["--limit", str(args.limit)]
    spec = tool_spec(work, folder, args.limit)
    audit = [str(Path(sys.executable).parent / "audit"), "run", str(spec), "--device", "cpu"]
    audit += ["--data-dir", str(SHARED / "data"), "--cache-dir", str(work / "tool-cache")]

    times: dict[str, float] = {}
    # cold, then warm, alternating the two tools so that a shared machine's load falls
    # on both alike
    for phase in ("cold", "warm"):
        times[f"tool_{phase}"] = timed_process(
            [*audit, "--out", str(work / f"tool-{phase}")], env, REPO
        )
        times[f"lm_eval_{phase}"] = timed_process(lm_eval, env, REPO)

    # per-sentence agreement: lm-eval's logged log-likelihoods against the tool's `ll`
    samples = lm_eval_samples(work / "lm-eval-out")
    texts = [t for pair in pairs(args.limit) for t in pair]
    spec_model = ModelSpec.model_validate({"id": "smollm2-135m", "source": {"path": str(folder)}})
    model = load_model(spec_model, cache_dir=work / "tool-cache", device="cpu")
    tool_ll = [
        s.score
        for s in causal_log_likelihoods(model, texts, reference=False, progress=lambda n: None)
    ]
    ids, _ = causal_token_ids(model, texts[:1], reference=False)
    theirs = []
    for sample in samples:
        more, less = (float(r[0][0]) for r in sample["resps"])
        theirs += [more, less]
    if len(theirs) != len(tool_ll):
        raise SystemExit(f"lm-eval logged {len(theirs) // 2} pairs, the tool {len(texts) // 2}")
    difference = np.abs(np.array(theirs) - np.array(tool_ll))
    ours_more = np.array(tool_ll[0::2]) > np.array(tool_ll[1::2])
    theirs_more = np.array(theirs[0::2]) > np.array(theirs[1::2])
    results = json.loads((work / "tool-cold" / "results.json").read_text())
    bias = next(
        m
        for m in results["measurements"]
        if m["measure"]["name"] == "bias_score" and m["group"] == "all"
    )
    metrics = lm_eval_metrics(work / "lm-eval-out")
    record = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": args.note,
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "load_average": os.getloadavg(),
        },
        "pairs": len(texts) // 2,
        "limit": args.limit,
        "model_folder": "the tool's dequantised SmolLM2-135M-Instruct (pip GGUF), float32",
        "lm_eval": {
            "version": subprocess.run(
                [
                    str(args.lm_eval_python),
                    "-c",
                    "import importlib.metadata as m; "
                    "print(m.version('lm-eval'), m.version('torch'), m.version('transformers'))",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split(),
            "batch_size": args.batch_size,
            "metrics": metrics,
        },
        "tokens": {
            "tool_first_ids_of_first_sentence": ids[0][:4],
            "tokenizer_bos_token_id": model.tokenizer.bos_token_id,
            "how": "lm-eval: empty context replaced by its prefix token (the tokenizer's "
            "BOS, else EOS), every sentence token scored; tool: BOS prepended, every token "
            "after it scored",
        },
        "agreement": {
            "sentences": len(tool_ll),
            "max_abs_difference": float(difference.max()),
            "mean_abs_difference": float(difference.mean()),
            "pairs_preferring_differently": int((ours_more != theirs_more).sum()),
        },
        "bias": {
            "lm_eval_pct_stereotype": metrics.get("pct_stereotype,none"),
            "tool_bias_score": bias["value"],
            "tool_bias_score_ci": [bias["ci_low"], bias["ci_high"]],
            "tool_sent_more_likelier_pct": float(100 * ours_more.mean()),
        },
        "seconds": times,
        "lm_eval_over_tool": {
            "cold": times["lm_eval_cold"] / times["tool_cold"],
            "warm": times["lm_eval_warm"] / times["tool_warm"],
        },
    }
    suffix = f"_limit{args.limit}" if args.limit else ""
    target = args.out or RESULTS / f"lm_eval_peer{suffix}.json"
    target.write_text(json.dumps(record, indent=2))
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
