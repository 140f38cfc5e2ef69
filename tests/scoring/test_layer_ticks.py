"""Progress inside a forward pass: the count moves layer by layer, adds up exactly, and
changes no output."""

from __future__ import annotations

import pytest
import torch

from audit.scoring import layer_ticks
from audit.scoring.layer_ticks import LayerTicks, layer_stack


class Stack(torch.nn.Module):
    def __init__(self, layers: int) -> None:
        super().__init__()
        self.embed = torch.nn.ModuleList([torch.nn.Linear(4, 4)])
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


def test_the_stack_is_the_longest_module_list() -> None:
    model = Stack(5)
    assert layer_stack(model) == list(model.layers)
    assert layer_stack(torch.nn.Linear(2, 2)) == []


def test_ticks_report_a_share_per_layer_and_the_rest_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(layer_ticks, "TICK_SECONDS", 0.0)
    model = Stack(4)
    calls: list[int] = []
    x = torch.randn(3, 4)
    expected = model(x)
    with LayerTicks(model, calls.append) as ticks:
        with ticks.batch(10):
            got = model(x)
        with ticks.batch(0):
            model(x)
    assert calls == [2, 2, 2, 2, 2]  # 10 * k // 5 after each of 4 layers, then the rest
    assert torch.equal(got, expected)
    model(x)  # hooks are gone after the block
    assert sum(calls) == 10


def test_fast_batches_make_one_call_each() -> None:
    model = Stack(4)
    calls: list[int] = []
    with LayerTicks(model, calls.append) as ticks:
        for n in (3, 5):
            with ticks.batch(n):
                model(torch.randn(2, 4))
    assert calls == [3, 5]


def test_a_failing_batch_reports_no_rest() -> None:
    model = Stack(2)
    calls: list[int] = []
    ticks = LayerTicks(model, calls.append)
    with ticks, pytest.raises(RuntimeError), ticks.batch(4):
        raise RuntimeError("boom")
    assert calls == []
