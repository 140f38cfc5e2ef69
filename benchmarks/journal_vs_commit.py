"""The per-batch journal against the commit before it: this tree and an export of commit
3c92bbd (the last one without the journal: one commit per 1,024 entries, no host copy
per batch) score the same `ll` unit on the same device, in alternating processes.

Each process loads the model with its own tree's loader, scores every distinct ToxiGen
sentence (6,438, the demo's larger unit; `--sample N` for fewer) through that tree's
`runner.score_unit` into a fresh cache `--repeats` times after one warm-up, and writes
its unit seconds and per-sentence scores. The driver alternates the two trees
`--rounds` times, so that a slow stretch of a shared machine falls on both; it reports
the ratio of the median unit seconds (this tree over the old one; the target is at most
1.02) and the largest per-sentence difference between the trees. The journal is not the
only change between the two commits (the causal engine's batch budget and head chunks
changed too), so `benchmarks/cache_commits.py` measures the journal alone in one tree.

    git archive 3c92bbd audit templates | tar -x -C /tmp/old
    python benchmarks/journal_vs_commit.py --old /tmp/old --model DIR [--device cuda]
        [--repeats 3] [--rounds 2] [--sample 0] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
TOXIGEN = SHARED / "data" / "toxigen" / "toxigen_annotated.json"
OLD_COMMIT = "3c92bbd"


def sentences(sample: int) -> list[str]:
    """Every distinct ToxiGen sentence in a seeded order, or a seeded sample of them."""
    texts = list(dict.fromkeys(row["text"] for row in json.loads(TOXIGEN.read_text())))
    random.Random(0).shuffle(texts)
    return texts[:sample] if sample else texts


def child(tree: Path, model_dir: Path, device: str, repeats: int, sample: int) -> dict[str, Any]:
    """Score the unit with `tree`'s package (imported from there); seconds and scores."""
    sys.path.insert(0, str(tree))
    import torch

    import audit
    from audit.data.items import LabelledItem, LoadedDataset
    from audit.display import SilentDisplay
    from audit.ids import PluginId
    from audit.models.load import load_model
    from audit.scoring import runner
    from audit.scoring.cache import ScoreCache
    from audit.scoring.units import ScoreUnit
    from audit.spec.models import ModelSpec

    assert Path(audit.__file__).resolve().is_relative_to(tree.resolve()), audit.__file__
    texts = sentences(sample)
    dataset = LoadedDataset(
        name="toxigen",
        shape="labelled",
        items=[LabelledItem(str(i), t, "benign", 1.0, ("x",)) for i, t in enumerate(texts)],
        source="benchmark",
        sha256="",
        rows_read=len(texts),
    )
    with tempfile.TemporaryDirectory() as folder:
        spec = ModelSpec.model_validate({"id": "m", "source": {"path": str(model_dir)}})
        loaded = load_model(spec, cache_dir=Path(folder), device=device)
    handle = runner.ModelHandle("m", "0" * 64, f"{loaded.device.type}/float32", lambda: loaded)
    unit = ScoreUnit("m", dataset.name, PluginId.of("ll"))

    def once() -> tuple[float, list[float]]:
        with tempfile.TemporaryDirectory() as folder:
            cache = ScoreCache(Path(folder))
            if loaded.device.type == "cuda":
                torch.cuda.synchronize()
            started = time.perf_counter()
            runner.score_unit(
                unit, model=handle, dataset=dataset, cache=cache, display=SilentDisplay()
            )
            seconds = time.perf_counter() - started
            entries = runner.read_entries(unit, dataset=dataset, cache=cache, model=handle.identity)
        return seconds, [entries[k][0].score for k in sorted(entries)]

    once()  # warm-up: kernels, allocator, the tree's first imports
    seconds: list[float] = []
    scores: list[float] = []
    for _ in range(repeats):
        took, scores = once()
        seconds.append(took)
    return {"tree": str(tree), "device": str(loaded.device), "seconds": seconds, "scores": scores}


def run_child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [
            sys.executable,
            __file__,
            "--child",
            str(tree),
            "--model",
            str(args.model),
            "--device",
            args.device,
            "--repeats",
            str(args.repeats),
            "--sample",
            str(args.sample),
            "--out",
            out.name,
        ]
        path = os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])
        subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": path})
        result: dict[str, Any] = json.loads(Path(out.name).read_text())
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help=f"an export of commit {OLD_COMMIT}")
    parser.add_argument("--model", type=Path, required=True, help="a causal LM folder")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sample", type=int, default=0, help="0: every distinct sentence")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        result = child(args.child, args.model, args.device, args.repeats, args.sample)
        args.out.write_text(json.dumps(result))
        return
    if args.old is None:
        parser.error("--old is required")
    runs: dict[str, list[dict[str, Any]]] = {"journal": [], OLD_COMMIT: []}
    for _ in range(args.rounds):
        runs["journal"].append(run_child(REPO, args))
        runs[OLD_COMMIT].append(run_child(args.old, args))
    seconds = {k: [s for r in v for s in r["seconds"]] for k, v in runs.items()}
    median = {k: statistics.median(v) for k, v in seconds.items()}
    new_scores, old_scores = runs["journal"][-1]["scores"], runs[OLD_COMMIT][-1]["scores"]
    record = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": runs["journal"][0]["device"],
        "model": str(args.model),
        "scorer": "ll",
        "sentences": len(new_scores),
        "old_commit": OLD_COMMIT,
        "unit_seconds": seconds,
        "median_unit_seconds": median,
        "journal_over_old": median["journal"] / median[OLD_COMMIT],
        "max_abs_difference": max(abs(a - b) for a, b in zip(new_scores, old_scores, strict=True)),
    }
    if args.device.startswith("cuda"):
        import torch

        record["device_name"] = torch.cuda.get_device_name()
    text = json.dumps(record, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(
        f"ll on {record['sentences']} sentences, median unit seconds: journal "
        f"{median['journal']:.3f}, {OLD_COMMIT} {median[OLD_COMMIT]:.3f}: "
        f"{record['journal_over_old']:.3f}x; max |diff| {record['max_abs_difference']:.2e}"
    )


if __name__ == "__main__":
    main()
