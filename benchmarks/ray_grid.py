"""Wall time of the Kaneko et al. 2022 grid on 1, 4 and 16 workers under the Ray executor:
task durations measured on this machine's CPU, scheduled onto N workers by a simulation.

The grid: 7 masked LMs x 4 versions (each model, and its CDA, dropout and AT variants:
21 training tasks), every version scored with cps, sss, aul and aula on all of
CrowS-Pairs and StereoSet (28 scoring tasks: the executor sends one task per model, which
loads it once), then the driver's measures and studies. Extrinsic fine-tuning is not in
it: it runs in the driver, not on Ray.

`measure` runs a slice through the Ray executor on a local Ray, each task given every
core of this machine so that tasks run one after another (as in-process): minilm-mlm and
its three variants, trained for `--steps` steps on STS-B (batch 16, max length 48), then
scored on `--items` items of each dataset. Workers report how long each load, unit and
training took; the rest of each stage's wall time, spread over its tasks, is the
executor's overhead per task (Ray scheduling, starting worker processes, sending models
and scores). `driver` times the driver's own stages (score table, measures, studies) on
the full datasets for four models, with random scores in the cache (no model runs).
Both write into benchmarks/results/ray_grid_cpu.json.

`simulate` scales those durations to the grid and schedules the tasks onto N workers in
the order the executor submits them (every training task, then every scoring task), each
task on the first worker that is free (Ray's queue for tasks asking the same resources).
Its assumptions are printed with the table (`ASSUMPTIONS`); nothing in it is a GPU
measurement.

    .venv/bin/python benchmarks/ray_grid.py measure [--items 60] [--steps 12]
    .venv/bin/python benchmarks/ray_grid.py driver
    .venv/bin/python benchmarks/ray_grid.py simulate [--train-steps 1000] [--gpu-tflops 20]
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULT = REPO / "benchmarks" / "results" / "ray_grid_cpu.json"
DATASETS = ("crows_pairs", "stereoset")
SCORERS = ("cps", "sss", "aul", "aula")
METHODS = ("cda", "dropout", "at")
MEASURES = "[bias_score, kls, jss, score_gap, ss]"
MINILM = Path.home() / ".cache" / "bias-audit-tests" / "minilm-mlm"
TOKENS_PER_STEP = 16 * 48  # batch 16, max length 48

#: (layers, hidden size, parameters) of the grid's seven models.
SHAPES: dict[str, tuple[int, int, int]] = {
    "bert-base": (12, 768, 110_000_000),
    "bert-large": (24, 1024, 340_000_000),
    "roberta-base": (12, 768, 125_000_000),
    "roberta-large": (24, 1024, 355_000_000),
    "albert-base": (12, 768, 12_000_000),
    "albert-large": (24, 1024, 18_000_000),
    "distilbert-base": (6, 768, 66_000_000),
}
MEASURED_SHAPE = (6, 384)  # minilm-mlm
#: Measured on an H100 by an earlier version (shared/notes/gpu-h100-2026-11-23.md):
#: bert-base-shaped model, all 1,508 CrowS-Pairs pairs, float32, scoring stage seconds.
H100_BERT_BASE_CROWS = {"cps": 6.3, "aul": 1.8}
#: Which H100 measurement anchors each scorer: masked copies (cps, sss) or whole sentences.
ANCHOR = {"cps": "cps", "sss": "cps", "aul": "aul", "aula": "aul"}

ASSUMPTIONS = """\
- CPU rows: the durations measured here (minilm-mlm, {threads} CPU threads, one task at
  a time, on a machine shared with other work: load average {load}, matmul throughput
  {peak_share:.0%} of the best measured on this machine), scaled to each model by its
  encoder compute per token, layers x hidden^2 (attention and feed-forward matmuls):
  bert-base = 8x minilm, bert-large = 28.4x, distilbert = 4x. The LM head and
  attention's length^2 term are left out (short sentences; scorers run the head at the
  masked positions only). Loading scales with the parameter count.
- The seven models have the shapes of bert-base/large, roberta-base/large,
  albert-base/large and distilbert-base (sizes matter here, not names); every variant
  trains {train_steps} steps of batch 16, max length 48 (specs/debiasing.yaml trains
  200); all of CrowS-Pairs and of StereoSet (intrasentence) are scored.
- GPU rows are NOT measurements. Scoring: the H100 times an earlier version measured
  for a bert-base-shaped model on all of CrowS-Pairs (CPS 6.3 s, AUL 1.8 s;
  shared/notes/gpu-h100-2026-11-23.md), carried to sss (as CPS) and aula (as AUL) and to
  StereoSet by the ratios measured here on the CPU, and to each model by its compute
  ratio to bert-base. Training (unmeasured on any GPU): 6 x encoder parameters x
  {tokens} tokens per step at an assumed {gpu_tflops:.0f} TFLOP/s, each method at its
  CPU-measured cost relative to CDA. Each task loads its model in {gpu_load:.0f} s (the
  load stage took 14-24 s in those H100 measurements).
- Every task pays the executor overhead measured here ({overhead:.1f} s); the driver's
  stages (score table, measures, studies), timed here on the full datasets for 4 models,
  count 7 times, once after scoring: they run in the driver, on its CPU, in both rows.
- Tasks run in submission order on the first free worker, one task per worker (one GPU,
  or a whole CPU node); training and scoring do not overlap (the executor trains every
  variant first)."""


# ---------------------------------------------------------------------------- measure


def measure(items: int, steps: int, minilm: Path, data_dir: Path) -> dict[str, Any]:
    import ray
    from common import matmul_peak

    from audit.cluster.messages import ModelLoaded, ScoredChunk, TrainedVariant
    from audit.cluster.ray_executor import RayExecutor, RaySettings
    from audit.data.loader import load_dataset
    from audit.display import SilentDisplay
    from audit.engine import RunSettings, run_audit
    from audit.spec.dataset_request import dataset_request
    from audit.spec.loader import load_spec

    cores = len(os.sched_getaffinity(0))
    tasks: list[dict[str, Any]] = []
    peaks = [matmul_peak()]

    class Recording(RayExecutor):
        def _receive(self, group: Any, message: object, worker: Any) -> None:
            if isinstance(message, ModelLoaded):
                tasks.append(
                    {"kind": "score", "model": group.model, "load_seconds": message.seconds}
                )
            elif isinstance(message, ScoredChunk):
                unit = group.sent[message.unit].work.unit
                units = tasks[-1].setdefault("units", [])
                units.append(
                    {
                        "dataset": unit.dataset,
                        "scorer": unit.scorer.name,
                        "entries": len(message.entries),
                        "seconds": message.seconds,
                    }
                )
            super()._receive(group, message, worker)

        def _store(self, job: Any, trained: TrainedVariant, worker: Any) -> Any:
            tasks.append(
                {
                    "kind": "train",
                    "method": job.method.name,
                    "steps": trained.summary.steps,
                    "seconds": trained.seconds,
                    "load_seconds": trained.load_seconds,
                    "training_seconds": trained.summary.seconds,
                }
            )
            return super()._store(job, trained, worker)

    variants = "\n".join(
        f"  - {{id: minilm-{m}, base: minilm-mlm, method: {m}, corpus: sts_b,"
        f" training: {{steps: {steps}, batch_size: 16, max_length: 48}}}}"
        for m in METHODS
    )
    spec = f"""spec_version: 1
name: ray-grid-slice
seed: 13
bootstrap: 1000
models:
  - {{id: minilm-mlm, source: {{path: {minilm}}}}}
datasets:
  - {{name: crows_pairs, limit: {items}}}
  - {{name: stereoset, limit: {items}}}
scorers: {{masked: [{", ".join(SCORERS)}]}}
measures: [bias_score, kls, jss, score_gap, ss]
variants:
{variants}
report: {{formats: []}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "spec.yaml").write_text(spec)
        ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
        settings = RunSettings(
            out_dir=root / "out", cache_dir=root / "cache", data_dir=data_dir, device="cpu"
        )
        executor = Recording(RaySettings(cpus_per_task=cores))
        started = time.monotonic()
        outcome = run_audit(
            load_spec(root / "spec.yaml"), settings, SilentDisplay(), executor=executor
        )
        wall = time.monotonic() - started
        ray.shutdown()
        peaks.append(matmul_peak())
        full = {}
        for dspec in load_spec(root / "spec.yaml").spec.datasets:
            unlimited = dspec.model_copy(update={"limit": None})
            ds = load_dataset(
                dataset_request(unlimited, root), data_dir=data_dir, cache_dir=root / "cache"
            )
            full[dspec.name] = ds.rows_kept
    n_parameters = next(m.n_parameters for m in outcome.result.models if m.id == "minilm-mlm")
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "threads": cores,
            "load_average": list(os.getloadavg()),
            "matmul_peak_flops_before_after": peaks,
            "ray": ray.__version__,
        },
        "slice": {"items": items, "steps": steps, "full_items": full},
        "minilm_parameters": n_parameters,
        "wall_seconds": wall,
        "timings": outcome.result.timings,
        "tasks": tasks,
    }


def driver_stages(minilm: Path, data_dir: Path) -> dict[str, Any]:
    """The driver's stages after scoring (score table, measures, studies) on the full
    datasets for four models, their scores random numbers put into the cache."""
    from audit.display import SilentDisplay
    from audit.engine import RunSettings, plan_audit
    from audit.pipeline.measuring import assemble_scores, compute_measurements
    from audit.pipeline.records import study_settings
    from audit.pipeline.worker import RunModels
    from audit.scoring.base import SentenceScore
    from audit.scoring.cache import ModelIdentity, ScoreCache
    from audit.scoring.runner import open_namespace, unit_jobs
    from audit.scoring.table import unit_frames
    from audit.spec.loader import load_spec
    from audit.studies import run_studies

    models = "\n".join(
        f"  - {{id: {name}, source: {{path: {minilm}}}}}"
        for name in ("base", "cda", "dropout", "at")
    )
    spec = f"""spec_version: 1
name: ray-grid-driver
seed: 13
bootstrap: 1000
models:
{models}
datasets: [crows_pairs, stereoset]
scorers: {{masked: [{", ".join(SCORERS)}]}}
measures: {MEASURES}
report: {{formats: []}}
"""
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "spec.yaml").write_text(spec)
        settings = RunSettings(out_dir=root, cache_dir=root / "cache", data_dir=data_dir)
        plan = plan_audit(load_spec(root / "spec.yaml"), settings, SilentDisplay())
        models = RunModels.of(plan)
        cache = ScoreCache(settings.cache_dir)
        for unit in plan.units:
            model = models[unit.model]
            identity = ModelIdentity(model.fingerprint, model.precision)
            namespace = open_namespace(unit.scorer, cache, identity)
            jobs = unit_jobs(unit.scorer, plan.datasets[unit.dataset])
            namespace.put_many(
                {
                    j.key: tuple(SentenceScore(-rng.uniform(10, 60), 10) for _ in j.texts)
                    for j in jobs
                }
            )
            namespace.close()
        timings = {}
        started = time.monotonic()
        scores = assemble_scores(plan, models, cache)
        timings["assemble_scores"] = time.monotonic() - started
        started = time.monotonic()
        measurements = compute_measurements(plan, scores)
        timings["measures"] = time.monotonic() - started
        started = time.monotonic()
        run_studies(
            study_settings(plan, models),
            plan.scoring,
            unit_frames(scores),
            measurements,
            SilentDisplay(),
        )
        timings["studies"] = time.monotonic() - started
    return {
        "models": 4,
        "rows": len(scores),
        "seconds": timings,
        "load_average": list(os.getloadavg()),
    }


# --------------------------------------------------------------------------- simulate


@dataclass(frozen=True)
class Durations:
    """What the measurements say, per item, step, load and task (minilm, this CPU)."""

    per_item: dict[tuple[str, str], float]  # (dataset, scorer) -> seconds per item
    per_step: dict[str, float]  # method -> seconds per training step
    train_rest: float  # probing and saving a trained variant
    load: float
    overhead: float  # executor overhead per task
    driver: float  # the driver's stages after scoring, for the whole grid

    @classmethod
    def of(cls, data: dict[str, Any]) -> Durations:
        per_item: dict[tuple[str, str], list[float]] = {}
        per_step: dict[str, list[float]] = {}
        loads, rests, worker_seconds = [], [], 0.0
        items = data["slice"]["items"]
        for task in data["tasks"]:
            loads.append(task["load_seconds"])
            if task["kind"] == "score":
                worker_seconds += task["load_seconds"]
                for unit in task["units"]:
                    key = (unit["dataset"], unit["scorer"])
                    per_item.setdefault(key, []).append(unit["seconds"] / items)
                    worker_seconds += unit["seconds"]
            else:
                per_step.setdefault(task["method"], []).append(
                    task["training_seconds"] / task["steps"]
                )
                rests.append(task["seconds"] - task["load_seconds"] - task["training_seconds"])
                worker_seconds += task["seconds"]
        timings = data["timings"]
        overhead = (timings["variants"] + timings["scoring"] - worker_seconds) / len(data["tasks"])
        return cls(
            per_item={k: sum(v) / len(v) for k, v in per_item.items()},
            per_step={k: sum(v) / len(v) for k, v in per_step.items()},
            train_rest=sum(rests) / len(rests),
            load=sum(loads) / len(loads),
            overhead=max(0.0, overhead),
            driver=sum(data["driver"]["seconds"].values()) * len(SHAPES),
        )


def compute_ratio(model: str) -> float:
    """Encoder compute per token of `model` over minilm's (layers x hidden^2)."""
    layers, hidden, _ = SHAPES[model]
    return layers * hidden**2 / (MEASURED_SHAPE[0] * MEASURED_SHAPE[1] ** 2)


Task = tuple[float, float]  # (load, compute) seconds


def cpu_tasks(
    d: Durations, full: dict[str, int], minilm_parameters: int, train_steps: int
) -> tuple[list[Task], list[Task]]:
    """Each training and scoring task on this CPU, in the order the executor submits them."""
    training, scoring = [], []
    work = sum(d.per_item[(ds, sc)] * full[ds] for ds in DATASETS for sc in SCORERS)
    for model, (_, _, parameters) in SHAPES.items():
        ratio, size = compute_ratio(model), parameters / minilm_parameters
        for method in METHODS:
            compute = train_steps * d.per_step[method] * ratio + d.train_rest * size
            training.append((d.load * size, compute))
        scoring.extend((d.load * size, work * ratio) for _ in range(1 + len(METHODS)))
    return training, scoring


def gpu_tasks(
    d: Durations, full: dict[str, int], train_steps: int, tflops: float, load: float
) -> tuple[list[Task], list[Task]]:
    """The same tasks on GPUs, under the assumptions of `ASSUMPTIONS`."""
    crows = full["crows_pairs"]
    per_item = {  # bert-base shape on an H100, seconds per item
        (ds, sc): H100_BERT_BASE_CROWS[ANCHOR[sc]]
        / crows
        * d.per_item[(ds, sc)]
        / d.per_item[("crows_pairs", ANCHOR[sc])]
        for ds in DATASETS
        for sc in SCORERS
    }
    work = sum(per_item[(ds, sc)] * full[ds] for ds in DATASETS for sc in SCORERS)
    training, scoring = [], []
    for model, (layers, hidden, _) in SHAPES.items():
        step = 6 * 12 * layers * hidden**2 * TOKENS_PER_STEP / (tflops * 1e12)
        for method in METHODS:
            relative = d.per_step[method] / d.per_step["cda"]
            training.append((load, train_steps * step * relative))
        ratio = compute_ratio(model) / compute_ratio("bert-base")
        scoring.extend((load, work * ratio) for _ in range(1 + len(METHODS)))
    return training, scoring


def makespan(durations: list[float], workers: int) -> float:
    """Tasks in order, each on the first free worker."""
    free = [0.0] * workers
    end = 0.0
    for duration in durations:
        start = heapq.heappop(free)
        heapq.heappush(free, start + duration)
        end = max(end, start + duration)
    return end


def best_peak() -> float:
    """The best float32 matmul throughput the other CPU benchmarks measured here."""
    found = [0.0]
    for name in ("scoring_cpu.json", "training_cpu.json", "causal_cpu.json"):
        path = RESULT.parent / name
        if path.exists():
            machine = json.loads(path.read_text()).get("machine", {})
            for key in ("float32_matmul_peak_flops", "matmul_peak_flops"):
                if isinstance(machine.get(key), float):
                    found.append(machine[key])
    return max(found)


def readable(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def simulate(data: dict[str, Any], train_steps: int, gpu_tflops: float, gpu_load: float) -> str:
    d = Durations.of(data)
    full = data["slice"]["full_items"]
    kinds = {
        "CPU nodes like this one (measured tasks)": cpu_tasks(
            d, full, data["minilm_parameters"], train_steps
        ),
        "GPUs (assumed speeds, not measured)": gpu_tasks(
            d, full, train_steps, gpu_tflops, gpu_load
        ),
    }
    lines = [
        "| workers | kind | training (21 tasks) | scoring (28 tasks) | driver | total |",
        "|---|---|---|---|---|---|",
    ]
    for kind, (training, scoring) in kinds.items():
        for n in (1, 4, 16):
            train = makespan([a + b + d.overhead for a, b in training], n)
            score = makespan([a + b + d.overhead for a, b in scoring], n)
            total = train + score + d.driver
            lines.append(
                f"| {n} | {kind} | {readable(train)} | {readable(score)} "
                f"| {readable(d.driver)} | {readable(total)} |"
            )
    machine = data["machine"]
    best = max(best_peak(), *machine["matmul_peak_flops_before_after"])
    notes = ASSUMPTIONS.format(
        threads=machine["threads"],
        load=", ".join(f"{x:.1f}" for x in machine["load_average"]),
        peak_share=min(machine["matmul_peak_flops_before_after"]) / best,
        train_steps=train_steps,
        tokens=TOKENS_PER_STEP,
        gpu_tflops=gpu_tflops,
        gpu_load=gpu_load,
        overhead=d.overhead,
    )
    measured = [
        f"- load {d.load:.1f} s, executor overhead {d.overhead:.1f} s per task",
        *(f"- {ds} {sc}: {1000 * v:.0f} ms per item" for (ds, sc), v in sorted(d.per_item.items())),
        *(f"- {m}: {v:.2f} s per step" for m, v in sorted(d.per_step.items())),
        "- driver stages, 4 models on the full datasets: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in data["driver"]["seconds"].items()),
        f"- full datasets: {full}",
    ]
    return "\n".join(
        [*lines, "", "Measured (minilm-mlm, this CPU):", *measured, "", "Assumptions:", notes]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--items", type=int, default=60)
    m.add_argument("--steps", type=int, default=12)
    for p in (m, sub.add_parser("driver")):
        p.add_argument(
            "--minilm",
            type=Path,
            default=MINILM,
            help="built by ../shared/models/minilm_mlm/build.py",
        )
        p.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "data")
    s = sub.add_parser("simulate")
    s.add_argument("--train-steps", type=int, default=1000)
    s.add_argument("--gpu-tflops", type=float, default=20.0)
    s.add_argument("--gpu-load", type=float, default=20.0)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    if args.command == "measure":
        data = measure(args.items, args.steps, args.minilm.expanduser(), args.data_dir)
        if RESULT.exists():
            data["driver"] = json.loads(RESULT.read_text()).get("driver")
        RESULT.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {RESULT}")
    elif args.command == "driver":
        data = json.loads(RESULT.read_text())
        data["driver"] = driver_stages(args.minilm.expanduser(), args.data_dir)
        RESULT.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {RESULT}: {data['driver']}")
    else:
        data = json.loads(RESULT.read_text())
        print(simulate(data, args.train_steps, args.gpu_tflops, args.gpu_load))


if __name__ == "__main__":
    main()
