"""What a run has done so far, so that an interrupted run can say what it saved.

The `audit` command begins a `RunProgress` (`begin`) and wraps its display in a
`TrackingDisplay`, which notes every progress bar: scoring units (their sentences are
in the score cache as they are scored), trainings and fine-tunes (keyed `train ...` and
`extrinsic ...` by their stages), and the stage the run is in. The training loop notes
each checkpoint it writes or resumes from (`note_checkpoint`). On SIGINT or SIGTERM,
`interrupted_line` says in one line what is kept and how to resume.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.display import Display
from audit.overall_eta import QueuedUnit

#: Keys of the training bars (audit.variants.build, audit.extrinsic.stage).
TRAINING_KEYS = ("train ", "extrinsic ")
#: Stages after every score is in the cache.
AFTER_SCORING = ("precision check", "extrinsic", "measures")
_RESUMED = re.compile(r" \((resuming|resumed at \d+)\)$")


@dataclass
class Bar:
    """One progress bar: what it counts, how far it got, the checkpoint of a training."""

    description: str
    total: int
    done: int = 0
    finished: bool = False
    checkpoint: int | None = None

    @property
    def complete(self) -> bool:
        return self.finished and self.done >= self.total


@dataclass
class RunProgress:
    """The record of one command: its command line (to rerun), folders and bars."""

    command: str
    cache_dir: Path | None = None
    out_dir: Path | None = None
    stage: str | None = None
    bars: dict[str, tuple[bool, Bar]] = field(default_factory=dict)
    unclaimed_checkpoint: int | None = None

    def started(self, key: str, description: str, total: int) -> None:
        training = key.startswith(TRAINING_KEYS)
        bar = Bar(_RESUMED.sub("", description), total)
        if training:
            bar.checkpoint, self.unclaimed_checkpoint = self.unclaimed_checkpoint, None
        self.bars[key] = (training, bar)

    def advanced(self, key: str, n: int) -> None:
        if key in self.bars:
            self.bars[key][1].done += n

    def finished(self, key: str) -> None:
        if key in self.bars:
            self.bars[key][1].finished = True

    def checkpoint(self, step: int) -> None:
        """A training wrote (or resumed from) its checkpoint at `step`."""
        active = [b for training, b in self.bars.values() if training and not b.finished]
        if active:
            active[-1].checkpoint = step
        else:
            self.unclaimed_checkpoint = step

    def interrupted_line(self, signal_name: str) -> str:
        """One line: what is saved and the command that resumes."""
        head = f"interrupted ({signal_name})"
        rerun = f"rerun `{self.command}`"
        if self.stage == "report":
            done = ""
            if self.out_dir is not None:
                done = f"results.json and scores.parquet in {self.out_dir} are complete, "
            return (
                f"{head} while writing the report: {done}a report written earlier stays "
                f"whole until a new one is complete; {rerun} to write the report"
            )
        kept = self._scores() + self._trainings()
        if not kept:
            return f"{head}: nothing new to save; {rerun} to start again"
        return f"{head}: {'; '.join(kept)}; {rerun} to resume"

    def _scores(self) -> list[str]:
        cache = f"the score cache in {self.cache_dir}" if self.cache_dir else "the score cache"
        scoring = [b for training, b in self.bars.values() if not training]
        if self.stage in AFTER_SCORING and all(b.complete for b in scoring):
            return [f"every score is saved in {cache}"]
        parts = []
        complete = sum(b.complete for b in scoring)
        if complete:
            parts.append(f"the scores of {_count(complete, 'complete unit')}")
        parts += [
            f"{b.done:,} of {b.total:,} sentences of {b.description}"
            for b in scoring
            if not b.complete and b.done
        ]
        return [f"{' and '.join(parts)} are saved in {cache}"] if parts else []

    def _trainings(self) -> list[str]:
        trainings = [b for training, b in self.bars.values() if training]
        lines = []
        complete = sum(b.complete for b in trainings)
        if complete:
            verb = "is" if complete == 1 else "are"
            lines.append(f"{_count(complete, 'finished training')} {verb} stored in the cache")
        for bar in trainings:
            if bar.complete:
                continue
            if bar.checkpoint:
                lines.append(
                    f"{bar.description} keeps its checkpoint at step {bar.checkpoint} of "
                    f"{bar.total}"
                )
            else:
                lines.append(f"{bar.description} had no checkpoint yet and starts again")
        if self.unclaimed_checkpoint:
            lines.append(f"a training keeps its checkpoint at step {self.unclaimed_checkpoint}")
        return lines


class TrackingDisplay:
    """A Display that notes every bar and stage in a `RunProgress`, then passes it on."""

    def __init__(self, inner: Display, record: RunProgress) -> None:
        self.inner = inner
        self.record = record

    def stage(self, name: str) -> None:
        self.record.stage = name
        self.inner.stage(name)

    def overall(self, units: Sequence[QueuedUnit]) -> None:
        self.inner.overall(units)

    def start(self, key: str, description: str, total: int) -> None:
        self.record.started(key, description, total)
        self.inner.start(key, description, total)

    def advance(self, key: str, n: int) -> None:
        self.record.advanced(key, n)
        self.inner.advance(key, n)

    def relabel(self, key: str, description: str) -> None:
        self.inner.relabel(key, description)

    def finish(self, key: str) -> None:
        self.record.finished(key)
        self.inner.finish(key)

    def step(self, key: str, description: str) -> None:
        self.inner.step(key, description)

    def end_step(self, key: str, message: str) -> None:
        self.inner.end_step(key, message)

    def info(self, message: str) -> None:
        self.inner.info(message)

    def warn(self, message: str) -> None:
        self.inner.warn(message)

    def close(self) -> None:
        self.inner.close()


_current: RunProgress | None = None


def begin(command: str) -> RunProgress:
    """Start the record of this process's command (the `audit` entry point calls it)."""
    global _current
    _current = RunProgress(command)
    return _current


def current() -> RunProgress | None:
    return _current


def tracked(display: Display) -> Display:
    """`display`, noting its bars in the current record when there is one."""
    return display if _current is None else TrackingDisplay(display, _current)


def note_checkpoint(step: int) -> None:
    """Called by the training loop for each checkpoint it writes or resumes from."""
    if _current is not None:
        _current.checkpoint(step)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
