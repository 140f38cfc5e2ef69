"""Where the engine's progress goes. The engine never prints: it calls a Display.

`RichDisplay` draws progress bars with counts and ETA in a terminal; `PlainDisplay`
writes one log line per event (CI, pipes, log files); `SilentDisplay` is for tests.

Two kinds of progress: a *bar* (`start`/`advance`/`finish`) counts work of known size;
a *step* (`step`/`end_step`) is work of unknown length, such as loading a model, shown
with a spinner and the time spent on it. The ETA of a bar is the work left divided by
the rate over the whole time since the bar started, so it settles instead of swinging
with the size of the last batch. `overall` names the units a stage will run (the
scoring stage's): each of their lines then also gives the stage's overall ETA
(`audit.overall_eta`), until the next stage. `close` stops any live drawing: call it
before printing anything else to the terminal.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TextIO

from audit.overall_eta import OverallWork, QueuedUnit

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class Display(Protocol):
    def stage(self, name: str) -> None: ...
    def overall(self, units: Sequence[QueuedUnit]) -> None: ...
    def start(self, key: str, description: str, total: int) -> None: ...
    def advance(self, key: str, n: int) -> None: ...
    def relabel(self, key: str, description: str) -> None: ...
    def finish(self, key: str) -> None: ...
    def step(self, key: str, description: str) -> None: ...
    def end_step(self, key: str, message: str) -> None: ...
    def info(self, message: str) -> None: ...
    def warn(self, message: str) -> None: ...
    def close(self) -> None: ...


def eta_seconds(done: float, total: float, elapsed: float) -> float | None:
    """Seconds left at the average rate since the start; None while there is no rate."""
    if done <= 0 or elapsed <= 0:
        return None
    return max(total - done, 0) * elapsed / done


def format_duration(seconds: float) -> str:
    """'42 s', '3:07' (minutes) or '1:02:07' (hours)."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class SilentDisplay:
    """Records messages; draws nothing."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.queued: list[QueuedUnit] = []
        self.started: list[str] = []

    def stage(self, name: str) -> None:
        self.messages.append(f"stage {name}")

    def overall(self, units: Sequence[QueuedUnit]) -> None:
        self.queued = list(units)

    def start(self, key: str, description: str, total: int) -> None:
        self.started.append(key)

    def advance(self, key: str, n: int) -> None:
        pass

    def relabel(self, key: str, description: str) -> None:
        pass

    def finish(self, key: str) -> None:
        pass

    def step(self, key: str, description: str) -> None:
        pass

    def end_step(self, key: str, message: str) -> None:
        self.messages.append(message)

    def info(self, message: str) -> None:
        self.messages.append(message)

    def warn(self, message: str) -> None:
        self.messages.append(f"warning: {message}")

    def close(self) -> None:
        pass


class PlainDisplay:
    """One line per event, with counts, rate and ETA at most every `interval` seconds."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._tasks: dict[str, tuple[str, int, int, float, float]] = {}
        self._overall: OverallWork | None = None

    def _line(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=self.stream, flush=True)

    def stage(self, name: str) -> None:
        self._overall = None
        self._line(f"== {name}")

    def overall(self, units: Sequence[QueuedUnit]) -> None:
        self._overall = OverallWork(units)

    def start(self, key: str, description: str, total: int) -> None:
        now = time.monotonic()
        if self._overall is not None:
            self._overall.bar_started(key, total, now)
        self._tasks[key] = (description, total, 0, now, now)
        self._line(f"{description}: 0/{total}")

    def advance(self, key: str, n: int) -> None:
        description, total, done, started, last = self._tasks[key]
        done += n
        now = time.monotonic()
        if self._overall is not None:
            self._overall.advanced(key, n)
        if now - last >= self.interval:
            rate = done / max(now - started, 1e-9)
            eta = eta_seconds(done, total, now - started)
            shown = "?" if eta is None else f"{eta:.0f}s"
            overall = _overall_words(self._overall, key, now)
            overall = f"; overall ETA {overall}" if overall else ""
            self._line(f"{description}: {done}/{total} ({rate:.1f}/s, ETA {shown}{overall})")
            last = now
        self._tasks[key] = (description, total, done, started, last)

    def relabel(self, key: str, description: str) -> None:
        """New text for a bar (e.g. the current loss); shown with its next line."""
        if key in self._tasks:
            _, total, done, started, last = self._tasks[key]
            self._tasks[key] = (description, total, done, started, last)

    def finish(self, key: str) -> None:
        description, total, done, started, _ = self._tasks.pop(key)
        self._line(f"{description}: {done}/{total} done in {time.monotonic() - started:.1f}s")

    def step(self, key: str, description: str) -> None:
        self._line(f"{description} ...")

    def end_step(self, key: str, message: str) -> None:
        self._line(message)

    def info(self, message: str) -> None:
        self._line(message)

    def warn(self, message: str) -> None:
        self._line(f"warning: {message}")

    def close(self) -> None:
        pass


class RichDisplay:
    """Progress bars and spinners for an interactive terminal.

    Bars and spinners are drawn live only while some work is running; when the last one
    ends the drawing stops, finished bars stay on screen as plain lines, and whatever is
    printed next starts on a fresh line.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        from rich.console import Console

        self.console = Console(file=stream, force_terminal=True) if stream else Console(stderr=True)
        self._progress: Progress | None = None
        self._bars: dict[str, TaskID] = {}
        self._steps: dict[str, TaskID] = {}
        self._step_text: dict[str, str] = {}
        self._overall: OverallWork | None = None

    def _overall_text(self, key: str) -> str:
        return _overall_words(self._overall, key, time.monotonic())

    def _live(self) -> Progress:
        if self._progress is None:
            self._progress = _new_progress(self.console, self._overall_text)
            self._progress.start()
        return self._progress

    def _settle(self) -> None:
        """Stop drawing once nothing runs (the finished bars stay as they were drawn)."""
        if self._progress is not None and not self._bars and not self._steps:
            self._progress.stop()
            self._progress = None

    def stage(self, name: str) -> None:
        self._overall = None
        self._settle()
        self.console.print(f"[bold]{name}[/bold]")

    def overall(self, units: Sequence[QueuedUnit]) -> None:
        self._overall = OverallWork(units)

    def start(self, key: str, description: str, total: int) -> None:
        if self._overall is not None:
            self._overall.bar_started(key, total, time.monotonic())
        self._bars[key] = self._live().add_task(description, total=total, key=key)

    def advance(self, key: str, n: int) -> None:
        if self._overall is not None:
            self._overall.advanced(key, n)
        if self._progress is not None and key in self._bars:
            self._progress.advance(self._bars[key], n)

    def relabel(self, key: str, description: str) -> None:
        if self._progress is not None and key in self._bars:
            self._progress.update(self._bars[key], description=description)

    def finish(self, key: str) -> None:
        task = self._bars.pop(key, None)
        if self._progress is not None and task is not None:
            self._progress.stop_task(task)
        self._settle()

    def step(self, key: str, description: str) -> None:
        progress = self._live()
        task = self._steps.get(key)
        if task is None:
            self._steps[key] = progress.add_task(description, total=None)
        else:
            # The step moved on: what it did so far stays as a line above the spinner.
            self.console.print(f"  {self._step_text[key]}", markup=False, highlight=False)
            progress.update(task, description=description)
        self._step_text[key] = description

    def end_step(self, key: str, message: str) -> None:
        task = self._steps.pop(key, None)
        self._step_text.pop(key, None)
        if self._progress is not None and task is not None:
            self._progress.remove_task(task)
        self._settle()
        self.console.print(message, markup=False, highlight=False)

    def info(self, message: str) -> None:
        self.console.print(message, markup=False, highlight=False)

    def warn(self, message: str) -> None:
        self.console.print(f"warning: {message}", style="yellow", markup=False)

    def close(self) -> None:
        """Stop drawing: unfinished spinners are dropped, bars stay as last drawn."""
        if self._progress is not None:
            for task in self._steps.values():
                self._progress.remove_task(task)
            self._progress.stop()
        self._progress = None
        self._overall = None
        self._bars.clear()
        self._steps.clear()
        self._step_text.clear()


def _new_progress(console: Console, overall: Callable[[str], str]) -> Progress:
    """Bars with counts and ETA; `overall(key)` adds the stage's overall ETA to a bar's."""
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Column
    from rich.text import Text

    class CountColumn(ProgressColumn):
        """'273/600' for a bar, nothing for a spinner."""

        def render(self, task: Task) -> Text:
            if task.total is None:
                return Text("")
            return Text(f"{int(task.completed)}/{int(task.total)}", style="progress.download")

    class EtaColumn(ProgressColumn):
        """Time left at the average rate since the bar started; nothing for a spinner."""

        def render(self, task: Task) -> Text:
            if task.total is None:
                return Text("")
            if task.finished:
                return Text("done", style="progress.elapsed")
            elapsed = task.elapsed or 0.0
            eta = eta_seconds(task.completed, task.total, elapsed) if elapsed >= 2 else None
            shown = "?" if eta is None else format_duration(eta)
            words = overall(str(task.fields.get("key", "")))
            text = f"ETA {shown}, overall {words}" if words else f"ETA {shown}"
            return Text(text, style="progress.remaining")

    return Progress(
        SpinnerColumn(finished_text="✓"),
        TextColumn("{task.description}", table_column=Column(ratio=1)),
        BarColumn(bar_width=20),
        CountColumn(table_column=Column(no_wrap=True)),
        TimeElapsedColumn(),
        # counts and ETAs stay whole on one line: the description wraps first
        EtaColumn(table_column=Column(no_wrap=True)),
        console=console,
        transient=False,
    )


def _overall_words(overall: OverallWork | None, key: str, now: float) -> str:
    """The stage's overall ETA for a bar of its units ('3:07'; '?' before any rate); ''
    for any other bar."""
    if overall is None or not overall.covers(key):
        return ""
    eta = overall.eta(now)
    return "?" if eta is None else format_duration(eta)


def make_display(stream: TextIO | None = None) -> Display:
    """Rich bars when stderr is a terminal, plain log lines otherwise."""
    target = stream or sys.stderr
    return RichDisplay(stream) if target.isatty() else PlainDisplay(target)
