"""Measured throughput on this machine, timed once and cached: what `audit plan`'s time
estimates are based on.

A measurement is a short timed run of the actual model (`audit plan --calibrate`) or of
its architecture with random weights (`audit.pipeline.shape_model`; the same shapes,
kernels and code, no weights read): a scorer on slices of a unit's own items (the very
code a run scores with); a training's and a fine-tuning's steps are timed by the run's
own trainer (`audit.pipeline.time_estimate`, `audit.pipeline.finetune_estimate`) and
stored here.

A scoring sample is shaped like the run's batches (`time_scoring`): the run sorts a
unit's sentences by length and packs them into batches of a few thousand tokens, so it
pays almost no padding and runs large matrix products. The first version timed 16
entries spread over all lengths: one small batch padded to its longest sentence, a
first call at that shape timed with it, 2 to 5 times slower a sentence than the run on
an idle CPU and far slower on a busy one (a small batch's many short operations each
wait for both cores). Now each slice holds entries of similar length and grows until
its forward batches hold `SLICE_TOKENS` padded tokens (a sizeable share of the
run's token budget), after one untimed pass. Each is stored under a key that
names what it depends on: the machine (host, architecture, CPU count; the GPU's name on
CUDA), the device and precision, the model's fingerprint and the work's shape (scorer,
options and sample; batch size and length). The cache is one JSON file in the audit
cache folder (`calibration/throughput.json`); a second plan reads it and times nothing.

Timing goes through `clock` (tests replace it). Importing this module imports no
numerical library; the timing functions import torch when they run.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from audit.atomic_write import write_text_atomic

if TYPE_CHECKING:
    from audit.ids import PluginId
    from audit.models.loaded import LoadedModel
    from audit.scoring.runner import Job

#: The cache file, under the audit cache folder.
CALIBRATION_FILE = Path("calibration") / "throughput.json"
#: Entries (a sentence, a pair, template slots) an encoding measurement times.
SCORING_SAMPLE = 16
#: Contiguous slices of a unit's entries sorted by length (at the middle of each of this
#: many equal parts) that a scoring measurement times.
SCORING_SLICES = 3
#: A scoring slice grows (from `FIRST_SLICE` entries, x 3 a time, at most `MAX_SLICE`)
#: until its forward batches hold this many padded tokens in all: half the masked
#: engine's CPU budget, twice the causal engine's on a 2-core CPU (the scorer packs a
#: slice into its own batches, as a run does); per token such a slice runs nearly as fast
#: as the run. (Masked scorers' copies fill it with a few entries.)
SLICE_TOKENS = 1024
FIRST_SLICE = 8
MAX_SLICE = 512

T = TypeVar("T")

#: The timer of every measurement (seconds, monotonic); tests replace it.
clock: Callable[[], float] = time.perf_counter


@dataclass(frozen=True)
class Throughput:
    """One measurement: seconds per unit of work (a sentence scored, a training step),
    how many units were timed, when, and what was timed (for the plan's text)."""

    seconds_per_unit: float
    units: int
    measured_on: str  # ISO date
    basis: str

    def seconds(self, units: float) -> float:
        return self.seconds_per_unit * units


def machine(device: str) -> str:
    """What a measurement on `device` depends on besides the work: host, architecture
    and CPU count; on CUDA, the GPU's name."""
    name = f"{platform.node()}/{platform.machine()}/{os.cpu_count()} cpus"
    if device.startswith("cuda"):
        import torch

        name += f"/{torch.cuda.get_device_name(torch.device(device))}"
    return name


class ThroughputCache:
    """The measurements stored in one cache folder."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / CALIBRATION_FILE

    def _all(self) -> dict[str, dict[str, object]]:
        if not self.path.is_file():
            return {}
        try:
            known = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}  # unreadable: measured again and rewritten
        return known if isinstance(known, dict) else {}

    def get(self, key: str) -> Throughput | None:
        value = self._all().get(key)
        if not isinstance(value, dict):
            return None
        try:
            return Throughput(
                seconds_per_unit=float(value["seconds_per_unit"]),  # type: ignore[arg-type]
                units=int(value["units"]),  # type: ignore[call-overload]
                measured_on=str(value["measured_on"]),
                basis=str(value["basis"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, throughput: Throughput) -> None:
        known = self._all()
        known[key] = asdict(throughput)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(self.path, json.dumps(known, indent=1, sort_keys=True))


def measured(seconds: float, units: int, basis: str) -> Throughput:
    """A measurement taken now: `seconds` for `units` units of work."""
    return Throughput(
        seconds_per_unit=seconds / max(units, 1),
        units=units,
        measured_on=datetime.now(UTC).date().isoformat(),
        basis=basis,
    )


def spread_sample(jobs: Sequence[T], size: int = SCORING_SAMPLE) -> list[T]:
    """Up to `size` entries spread evenly over `jobs` (short and long items alike)."""
    if len(jobs) <= size:
        return list(jobs)
    step = len(jobs) / size
    return [jobs[int(i * step)] for i in range(size)]


def length_slice(jobs: Sequence[T], centre: float, size: int) -> list[T]:
    """`size` consecutive entries of `jobs` (sorted by length) around the fraction
    `centre` of the way through."""
    size = min(size, len(jobs))
    start = min(max(0, int(centre * len(jobs)) - size // 2), len(jobs) - size)
    return list(jobs[start : start + size])


def time_scoring(
    scorer: PluginId, jobs: Sequence[Job], loaded: LoadedModel, work: Callable[[Job], int]
) -> tuple[float, int]:
    """(seconds, work units) of scoring `SCORING_SLICES` slices of `jobs` with the run's
    own scoring code (nothing is cached): entries of similar length, as the run batches
    them, each slice as many entries as make `SLICE_TOKENS` padded tokens in its forward
    batches (found on the middle slice, which warms the model up at the first size,
    untimed). The scorer packs a slice into its own batches: a causal scorer's CPU budget
    (512 tokens on 2 threads) is smaller than a slice, so its slices run as full batches,
    as the run's do."""
    from audit.scoring.runner import compute_entries

    ordered = sorted(jobs, key=lambda job: sum(len(text) for text in job.texts))
    padded = [0]

    def count(_module: object, args: tuple[object, ...]) -> None:
        # the token embedding's input: a batch's padded ids, however the scorer calls
        # the model (whole, or its encoder with the head on chosen rows)
        padded[0] += int(getattr(args[0], "numel", lambda: 0)())

    def score(part: list[Job]) -> float:
        padded[0] = 0
        started = clock()
        for _ in compute_entries(scorer, part, loaded, progress=lambda n: None, chunk=len(part)):
            pass
        return clock() - started

    hook = loaded.model.get_input_embeddings().register_forward_pre_hook(count)
    try:
        size = FIRST_SLICE
        score(length_slice(ordered, 0.5, size))  # warm-up, untimed
        middle = length_slice(ordered, 0.5, size)
        seconds = score(middle)
        while padded[0] < SLICE_TOKENS and size < min(MAX_SLICE, len(ordered)):
            size *= 3
            middle = length_slice(ordered, 0.5, size)
            seconds = score(middle)
    finally:
        hook.remove()
    units = sum(work(job) for job in middle)
    for k in range(SCORING_SLICES):
        centre = (k + 0.5) / SCORING_SLICES
        if k == SCORING_SLICES // 2 or size >= len(ordered):
            continue  # the middle slice is timed already; a small unit has one slice
        part = length_slice(ordered, centre, size)
        seconds += score(part)
        units += sum(work(job) for job in part)
    return seconds, units


def time_encoding(encode: Callable[[Sequence[str]], object], sample: Sequence[str]) -> float:
    """Seconds to encode `sample` with `encode` (the run's own encoder), after one untimed
    pass over it that warms the model up at its shapes."""
    encode(sample)
    started = clock()
    encode(sample)
    return clock() - started


def time_once(work: Callable[[], object]) -> float:
    """Seconds of one call of `work`."""
    started = clock()
    work()
    return clock() - started
