"""The measure registry. Importing this module imports no numerical library: each entry
carries its shape, card and options model; the implementation is imported on first use."""

from __future__ import annotations

from audit.measures.base import Measure, MeasureOptions
from audit.registry import Registry

MEASURES: Registry[Measure] = Registry("measure")


def measure_shape(name: str) -> str:
    shape = MEASURES.entry(name).meta["applies_to"]
    assert isinstance(shape, str)
    return shape


def measure_options_model(name: str) -> type[MeasureOptions]:
    options = MEASURES.entry(name).meta["options"]
    assert isinstance(options, type) and issubclass(options, MeasureOptions)
    return options
