"""What committing every forward batch costs: a unit scored with the batch journal (a
commit per forward batch, the default) against the old commit per 1,024 entries.

Scores the same seeded ToxiGen sample with minilm-mlm and AUL (the fastest scorer per
sentence: the most commits per second of work, so the worst case for the commit cost)
through `runner.score_unit` into a fresh cache, alternating with the old way (the
chunk's entries committed once, no journal) in the same process; checks the scores are
identical and prints the ratio of the median times, and the share of the per-batch
run spent in the journal's commits (bringing a batch's results to the host, storing and
committing them), which load on a shared machine does not blur as much. `--model` is
the minilm-mlm folder (built by ../shared/models/minilm_mlm/build.py). Writes
benchmarks/results/cache_commits_<device>.json.

    .venv/bin/python benchmarks/cache_commits.py [--model DIR] [--sample 1024] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from common import (
    TOXIGEN,
    add_device_arguments,
    choose_device,
    run_header,
    write_record,
)

from audit.data.items import LabelledItem, LoadedDataset
from audit.display import SilentDisplay
from audit.ids import PluginId
from audit.models.load import load_model
from audit.scoring import runner
from audit.scoring.batch_journal import BatchJournal
from audit.scoring.cache import ScoreCache
from audit.scoring.units import ScoreUnit
from audit.spec.models import ModelSpec

MINILM = Path.home() / ".cache" / "bias-fixtures" / "minilm-mlm"


def _old_way(work: runner.UnitWork, namespace: object, loaded: object, display: object) -> None:
    """The runner before the journal: one commit per chunk of `CHUNK` entries."""
    for entries in runner.compute_entries(
        work.unit.scorer,
        work.missing,
        loaded,
        progress=lambda _n: None,  # type: ignore[arg-type]
    ):
        namespace.put_many(entries)  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MINILM)
    parser.add_argument("--sample", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    add_device_arguments(parser, dtype=False)
    args = parser.parse_args()
    device = choose_device(args.device)
    cache_dir = Path(os.environ.get("AUDIT_CACHE_DIR", Path.home() / ".cache" / "bias-audit"))
    spec = ModelSpec.model_validate({"id": "minilm-mlm", "source": {"path": str(args.model)}})
    loaded = load_model(spec, cache_dir=cache_dir, device=str(device))
    texts = [row["text"] for row in json.loads(TOXIGEN.read_text())]
    sample = random.Random(0).sample(sorted(set(texts)), args.sample)
    dataset = LoadedDataset(
        name="toxigen-sample",
        shape="labelled",
        items=[LabelledItem(str(i), t, "benign", 1.0, ("x",)) for i, t in enumerate(sample)],
        source="benchmark",
        sha256="",
        rows_read=len(sample),
    )
    unit = ScoreUnit("minilm-mlm", dataset.name, PluginId.of("aul"))
    handle = runner.ModelHandle("minilm-mlm", "0" * 64, f"{device.type}/float32", lambda: loaded)
    fill = runner._fill

    def run(way: str) -> tuple[float, list[float], int, float]:
        runner._fill = fill if way == "per_batch" else _old_way  # type: ignore[assignment]
        commits = [0]
        committing = [0.0]
        real_record = BatchJournal.record
        with tempfile.TemporaryDirectory() as folder:
            cache = ScoreCache(Path(folder))

            def counted(self: object, key: str, outputs: object) -> None:
                commits[0] += 1
                started = time.perf_counter()
                real_record(self, key, outputs)  # type: ignore[arg-type]
                committing[0] += time.perf_counter() - started

            BatchJournal.record = counted  # type: ignore[method-assign,assignment]
            started = time.perf_counter()
            runner.score_unit(
                unit, model=handle, dataset=dataset, cache=cache, display=SilentDisplay()
            )
            seconds = time.perf_counter() - started
            BatchJournal.record = real_record  # type: ignore[method-assign]
            entries = runner.read_entries(unit, dataset=dataset, cache=cache, model=handle.identity)
        return seconds, [entries[k][0].score for k in sorted(entries)], commits[0], committing[0]

    times: dict[str, list[float]] = {"per_batch": [], "per_chunk": []}
    scores: dict[str, list[float]] = {}
    batch_commits = 0
    commit_share: list[float] = []  # seconds in journal commits / seconds of the run
    run("per_batch")  # warm-up
    for _ in range(args.repeats):
        for way in ("per_batch", "per_chunk"):
            seconds, values, commits, committing = run(way)
            if way == "per_batch":
                commit_share.append(committing / seconds)
            times[way].append(seconds)
            scores[way] = values
            batch_commits = max(batch_commits, commits)
    runner._fill = fill  # type: ignore[assignment]
    median = {k: statistics.median(v) for k, v in times.items()}
    record = {
        **run_header(device),
        "load_average": os.getloadavg(),
        "model": str(args.model),
        "scorer": "aul",
        "sentences": len(sample),
        "batch_commits_per_run": batch_commits,
        "seconds": times,
        "median_seconds": median,
        "per_batch_over_per_chunk": median["per_batch"] / median["per_chunk"],
        "journal_commit_share": commit_share,
        "identical_scores": scores["per_batch"] == scores["per_chunk"],
    }
    write_record(record, "cache_commits", device, args.out)


if __name__ == "__main__":
    main()
