"""SIGINT and SIGTERM raise `Interrupted` (130 / 143); `deferred` holds one back until a
block ends, and a second signal stops at once."""

from __future__ import annotations

import os
import signal

import pytest

from audit.interrupts import Interrupted, deferred, signals_raise


@pytest.mark.parametrize(("sig", "name", "code"), [(signal.SIGINT, "SIGINT", 130),
                                                    (signal.SIGTERM, "SIGTERM", 143)])  # fmt: skip
def test_a_signal_raises_interrupted_with_its_exit_code(sig: int, name: str, code: int) -> None:
    with pytest.raises(Interrupted) as raised, signals_raise():
        os.kill(os.getpid(), sig)
    assert (raised.value.signal_name, raised.value.exit_code) == (name, code)
    assert not isinstance(raised.value, Exception)  # `except Exception` does not swallow it


def test_the_handlers_are_restored_afterwards() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with signals_raise():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_deferred_signal_is_raised_when_the_block_ends() -> None:
    steps: list[str] = []
    with pytest.raises(Interrupted), signals_raise(), deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        steps.append("the block went on")
    assert steps == ["the block went on"]


def test_a_second_signal_while_one_is_held_back_raises_at_once() -> None:
    steps: list[str] = []
    with pytest.raises(Interrupted), signals_raise(), deferred():
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("after the first")
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("after the second")
    assert steps == ["after the first"]
