"""Fixtures for spec tests: the plug-in names the tests use must be registered."""

from __future__ import annotations

from types import ModuleType

import pytest

from audit.data import catalog as data_catalog_module
from audit.measures.catalog import MEASURES
from audit.scoring.catalog import SCORERS

MASKED_SCORERS = ("cps", "sss", "aul", "aula", "pll")
CAUSAL_SCORERS = ("ll", "ppl")
MEASURE_SHAPES = {"bias_score": "pairs", "kls": "pairs", "jss": "pairs", "safety_score": "labelled"}


@pytest.fixture(scope="session")
def data_catalog() -> ModuleType:
    """audit.data.catalog, the dataset registry."""
    return data_catalog_module


@pytest.fixture(scope="session")
def plugin_names() -> None:
    """The scorer and measure names the spec tests use are registered, for the model
    types and data shapes the tests assume."""
    for name in MASKED_SCORERS + CAUSAL_SCORERS:
        model_type = "masked" if name in MASKED_SCORERS else "causal"
        assert model_type in SCORERS.entry(name).info.model_types, name
    for name, shape in MEASURE_SHAPES.items():
        assert MEASURES.entry(name).shape == shape, name
