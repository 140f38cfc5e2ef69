"""The displays the engine reports progress to: what each writes, and when."""

from __future__ import annotations

import io
import re

import pytest

from audit import display as display_module
from audit.display import PlainDisplay, RichDisplay, SilentDisplay, make_display
from audit.overall_eta import QueuedUnit


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(display_module.time, "monotonic", fake)
    return fake


def _lines(stream: io.StringIO) -> list[str]:
    """The lines written, without their [HH:MM:SS] time stamps."""
    return [re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line) for line in stream.getvalue().splitlines()]


def test_silent_display_records_messages_and_stages() -> None:
    shown = SilentDisplay()
    shown.stage("scoring")
    shown.start("k", "unit", 3)
    shown.advance("k", 3)
    shown.finish("k")
    shown.info("loaded")
    shown.warn("slow")
    assert shown.messages == ["stage scoring", "loaded", "warning: slow"]


def test_plain_display_throttles_progress_lines_and_gives_rate_and_eta(clock: FakeClock) -> None:
    stream = io.StringIO()
    shown = PlainDisplay(stream, interval=10.0)
    shown.stage("scoring")
    shown.start("k", "m x d x ll", 100)
    clock.now += 5
    shown.advance("k", 10)  # within the interval: no line
    clock.now += 5
    shown.advance("k", 10)  # 20 done in 10 s: 2/s, 80 left -> ETA 40 s
    clock.now += 1
    shown.advance("k", 80)  # 1 s after the last line: no line
    clock.now += 1
    shown.finish("k")
    assert _lines(stream) == [
        "== scoring",
        "m x d x ll: 0/100",
        "m x d x ll: 20/100 (2.0/s, ETA 40s)",
        "m x d x ll: 100/100 done in 12.0s",
    ]


def test_plain_display_info_and_warning_lines(clock: FakeClock) -> None:
    stream = io.StringIO()
    shown = PlainDisplay(stream)
    shown.info("crows_pairs: 1508 items")
    shown.warn("no GPU")
    assert _lines(stream) == ["crows_pairs: 1508 items", "warning: no GPU"]
    assert re.match(r"^\[\d\d:\d\d:\d\d\] ", stream.getvalue())


def test_plain_display_keeps_tasks_apart(clock: FakeClock) -> None:
    stream = io.StringIO()
    shown = PlainDisplay(stream, interval=0.0)
    shown.start("a", "first", 2)
    shown.start("b", "second", 4)
    clock.now += 1
    shown.advance("b", 2)
    shown.finish("a")
    assert _lines(stream)[2:] == ["second: 2/4 (2.0/s, ETA 1s)", "first: 0/2 done in 1.0s"]


def test_make_display_is_plain_off_a_terminal() -> None:
    assert isinstance(make_display(io.StringIO()), PlainDisplay)


def test_make_display_draws_bars_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = make_display(Terminal())
    try:
        assert isinstance(shown, RichDisplay)
        shown.start("k", "unit", 2)
        shown.advance("k", 2)
        shown.finish("k")
    finally:
        assert isinstance(shown, RichDisplay)
        shown.close()


def test_eta_is_the_work_left_at_the_average_rate_since_the_start() -> None:
    assert display_module.eta_seconds(0, 100, 10.0) is None  # no rate yet
    assert display_module.eta_seconds(25, 100, 10.0) == 30.0
    assert display_module.eta_seconds(100, 100, 40.0) == 0.0


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0.4, "0 s"), (42, "42 s"), (187, "3:07"), (3727, "1:02:07")]
)
def test_durations_read_as_seconds_minutes_or_hours(seconds: float, shown: str) -> None:
    assert display_module.format_duration(seconds) == shown


def test_plain_display_writes_a_line_per_step(clock: FakeClock) -> None:
    stream = io.StringIO()
    shown = PlainDisplay(stream)
    shown.step("load", "loading m (hf:gpt2)")
    shown.step("load", "m: loading causal LM on cpu")
    shown.end_step("load", "loaded m in 22.0 s")
    shown.close()
    assert _lines(stream) == [
        "loading m (hf:gpt2) ...",
        "m: loading causal LM on cpu ...",
        "loaded m in 22.0 s",
    ]


def test_silent_display_records_what_a_step_ended_with() -> None:
    shown = SilentDisplay()
    shown.step("load", "loading m")
    shown.end_step("load", "loaded m in 1.0 s")
    shown.close()
    assert shown.messages == ["loaded m in 1.0 s"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _text(stream: io.StringIO) -> str:
    """What the terminal shows, without colour and cursor control sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())


def test_rich_display_stops_drawing_when_the_last_bar_finishes() -> None:
    stream = _Terminal()
    shown = RichDisplay(stream)
    shown.start("a", "m · d · ll", 4)
    shown.advance("a", 4)
    shown.finish("a")
    assert shown._progress is None  # nothing live: what comes next starts a fresh line
    shown.stage("measures")
    shown.info("gate 1: ...")
    shown.close()
    lines = _text(stream).splitlines()
    assert any("m · d · ll" in line and "4/4" in line for line in lines)
    assert "measures" in lines and "gate 1: ..." in lines  # each on a line of its own


def test_rich_display_shows_a_step_then_its_outcome() -> None:
    stream = _Terminal()
    shown = RichDisplay(stream)
    shown.step("load", "loading m")
    assert shown._progress is not None  # a spinner runs while the model loads
    shown.step("load", "m: loading causal LM on cpu")
    shown.end_step("load", "loaded m in 22.0 s")
    assert shown._progress is None
    shown.close()
    lines = [line.strip() for line in _text(stream).splitlines()]
    assert "loading m" in lines  # the step's earlier text stays as a line
    assert lines[-1] == "loaded m in 22.0 s"


def test_rich_display_close_drops_a_running_spinner() -> None:
    shown = RichDisplay(_Terminal())
    shown.step("load", "loading m")
    shown.close()
    assert shown._progress is None and not shown._steps


def test_plain_display_adds_the_overall_eta_of_the_stages_units(clock: FakeClock) -> None:
    stream = io.StringIO()
    shown = PlainDisplay(stream, interval=10.0)
    shown.stage("scoring")
    shown.overall([QueuedUnit("a", 100, "m"), QueuedUnit("b", 300, "m")])
    shown.start("a", "m · a · ll", 100)
    clock.now += 10
    shown.advance("a", 20)  # 20 in 10 s: 2/s; a has 80 left (40 s), both 380 (190 s)
    shown.finish("a")
    shown.stage("measures")  # the next stage's bars have no overall ETA
    shown.start("t", "train", 10)
    clock.now += 10
    shown.advance("t", 5)
    assert _lines(stream)[2:4] == [
        "m · a · ll: 20/100 (2.0/s, ETA 40s; overall ETA 3:10)",
        "m · a · ll: 20/100 done in 10.0s",
    ]
    assert _lines(stream)[-1] == "train: 5/10 (0.5/s, ETA 10s)"


def test_rich_display_shows_the_overall_eta_beside_a_units_own() -> None:
    stream = _Terminal()
    shown = RichDisplay(stream)
    shown.overall([QueuedUnit("a", 4, "m"), QueuedUnit("b", 4, "m")])
    shown.start("a", "m · d · ll", 4)
    shown.advance("a", 2)
    assert shown._progress is not None
    shown._progress.refresh()
    shown.close()
    assert any(re.search(r"ETA \?, overall \d+ s", line) for line in _text(stream).splitlines())
