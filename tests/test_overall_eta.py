"""The scoring stage's overall ETA: the work left in every unit over the rate so far."""

from __future__ import annotations

import pytest

from audit.overall_eta import OverallWork, QueuedUnit

UNITS = [
    QueuedUnit("a/d1/ll", 100, "a"),
    QueuedUnit("a/d2/ll", 200, "a"),
    QueuedUnit("b/d1/ll", 100, "b"),
]


def test_the_eta_is_the_work_left_in_all_units_over_the_rate_since_the_first_bar() -> None:
    work = OverallWork(UNITS)
    assert work.remaining == 400 and work.eta(5.0) is None  # nothing started
    work.bar_started("a/d1/ll", 100, now=10.0)
    assert work.eta(10.0) is None  # no rate yet
    work.advanced("a/d1/ll", 50)
    # 50 in 10 s is 5/s; 350 left -> 70 s
    assert work.remaining == 350
    assert work.eta(20.0) == pytest.approx(70.0)
    work.advanced("a/d1/ll", 50)
    # a model loads for 10 s between units: the rate counts that time too
    work.bar_started("a/d2/ll", 200, now=40.0)
    work.advanced("a/d2/ll", 50)
    # 150 in 40 s is 3.75/s; 250 left -> 66.7 s
    assert work.eta(50.0) == pytest.approx(250 / 3.75)


def test_a_unit_starts_with_what_the_cache_lacks() -> None:
    work = OverallWork(UNITS)
    work.bar_started("a/d1/ll", 40, now=0.0)  # 60 of its 100 were cached
    assert work.remaining == 340
    work.advanced("a/d1/ll", 20)
    assert work.eta(10.0) == pytest.approx(320 / 2.0)


def test_a_unit_its_queue_skipped_was_wholly_cached() -> None:
    work = OverallWork(UNITS)
    # a/d1 drew no bar before a/d2 started: all of it was in the cache; b's unit still waits
    work.bar_started("a/d2/ll", 200, now=0.0)
    assert work.left == {"a/d1/ll": 0, "a/d2/ll": 200, "b/d1/ll": 100}


def test_bars_of_other_work_do_not_count() -> None:
    work = OverallWork(UNITS)
    work.bar_started("train m", 1000, now=0.0)
    work.advanced("train m", 500)
    assert work.done == 0 and work.started is None and not work.covers("train m")
