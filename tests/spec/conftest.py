"""Fixtures for spec tests: the plug-in names the tests use, registered if not there yet.

Scorers and measures are being added to their registries in parallel; a name missing
today is registered for the test (with the metadata the spec checks read) and removed
afterwards, so these tests do not depend on which entries have landed.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from audit.measures.base import MeasureOptions
from audit.measures.catalog import MEASURES
from audit.registry import Registry
from audit.scoring.base import ScorerInfo, ScorerOptions
from audit.scoring.catalog import SCORERS

MASKED_SCORERS = ("cps", "sss", "aul", "aula", "pll")
CAUSAL_SCORERS = ("ll", "ppl")
MEASURE_SHAPES = {"bias_score": "pairs", "kls": "pairs", "jss": "pairs", "safety_score": "labelled"}


def _add(registry: Registry[Any], name: str, added: list[str], **meta: object) -> None:
    if name not in registry:
        registry.register(name, "audit.nowhere:absent", f"test stand-in for {name}", **meta)
        added.append(name)


def _remove(registry: Registry[Any], names: list[str]) -> None:
    for name in names:
        registry._entries.pop(name, None)
        registry._loaded.pop(name, None)


@pytest.fixture(scope="session")
def data_catalog() -> ModuleType:
    """audit.data.catalog (written in parallel); the tests that check datasets skip
    until it exists."""
    return pytest.importorskip(
        "audit.data.catalog", reason="audit.data.catalog (the dataset registry) not there yet"
    )


@pytest.fixture(scope="session")
def plugin_names(data_catalog: ModuleType) -> Iterator[None]:
    """Every scorer and measure name the spec tests use is registered during the tests."""
    scorers: list[str] = []
    measures: list[str] = []
    for name in MASKED_SCORERS + CAUSAL_SCORERS:
        model_type = "masked" if name in MASKED_SCORERS else "causal"
        info = ScorerInfo(
            name=name,
            model_types=frozenset({model_type}),
            unit="sentence",
            higher_is_likelier=True,
            aggregation="sum",
            version="0",
            summary=f"test stand-in for {name}",
        )
        _add(SCORERS, name, scorers, info=info, options=ScorerOptions)
    for name, shape in MEASURE_SHAPES.items():
        _add(MEASURES, name, measures, applies_to=shape, options=MeasureOptions)
    yield
    _remove(SCORERS, scorers)
    _remove(MEASURES, measures)
