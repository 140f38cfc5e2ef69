"""Where the engine's progress goes. The engine never prints: it calls a Display.

`RichDisplay` draws progress bars with counts and ETA in a terminal; `PlainDisplay`
writes one log line per event (CI, pipes, log files); `SilentDisplay` is for tests.
"""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO


class Display(Protocol):
    def stage(self, name: str) -> None: ...
    def start(self, key: str, description: str, total: int) -> None: ...
    def advance(self, key: str, n: int) -> None: ...
    def finish(self, key: str) -> None: ...
    def info(self, message: str) -> None: ...
    def warn(self, message: str) -> None: ...


class SilentDisplay:
    """Records messages; draws nothing."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def stage(self, name: str) -> None:
        self.messages.append(f"stage {name}")

    def start(self, key: str, description: str, total: int) -> None:
        pass

    def advance(self, key: str, n: int) -> None:
        pass

    def finish(self, key: str) -> None:
        pass

    def info(self, message: str) -> None:
        self.messages.append(message)

    def warn(self, message: str) -> None:
        self.messages.append(f"warning: {message}")


class PlainDisplay:
    """One line per event, with counts, rate and ETA at most every `interval` seconds."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._tasks: dict[str, tuple[str, int, int, float, float]] = {}

    def _line(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=self.stream, flush=True)

    def stage(self, name: str) -> None:
        self._line(f"== {name}")

    def start(self, key: str, description: str, total: int) -> None:
        now = time.monotonic()
        self._tasks[key] = (description, total, 0, now, now)
        self._line(f"{description}: 0/{total}")

    def advance(self, key: str, n: int) -> None:
        description, total, done, started, last = self._tasks[key]
        done += n
        now = time.monotonic()
        if now - last >= self.interval:
            rate = done / max(now - started, 1e-9)
            eta = (total - done) / rate if rate > 0 else float("inf")
            self._line(f"{description}: {done}/{total} ({rate:.1f}/s, ETA {eta:.0f}s)")
            last = now
        self._tasks[key] = (description, total, done, started, last)

    def finish(self, key: str) -> None:
        description, total, done, started, _ = self._tasks.pop(key)
        self._line(f"{description}: {done}/{total} done in {time.monotonic() - started:.1f}s")

    def info(self, message: str) -> None:
        self._line(message)

    def warn(self, message: str) -> None:
        self._line(f"warning: {message}")


class RichDisplay:
    """Progress bars with counts and ETA for an interactive terminal."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskID,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._ids: dict[str, TaskID] = {}
        self.progress.start()

    def stage(self, name: str) -> None:
        self.console.print(f"[bold]{name}[/bold]")

    def start(self, key: str, description: str, total: int) -> None:
        self._ids[key] = self.progress.add_task(description, total=total)

    def advance(self, key: str, n: int) -> None:
        self.progress.advance(self._ids[key], n)

    def finish(self, key: str) -> None:
        self.progress.stop_task(self._ids.pop(key))

    def info(self, message: str) -> None:
        self.console.print(message, markup=False, highlight=False)

    def warn(self, message: str) -> None:
        self.console.print(f"warning: {message}", style="yellow", markup=False)

    def close(self) -> None:
        self.progress.stop()


def make_display(stream: TextIO | None = None) -> Display:
    """Rich bars when stderr is a terminal, plain log lines otherwise."""
    target = stream or sys.stderr
    return RichDisplay() if target.isatty() else PlainDisplay(target)
