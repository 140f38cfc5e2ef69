"""Issue 18, item 7: adding a dataset, a measure or a scorer breaks no unrelated test.

The tests that enumerate a registry (the version 1 cards, the built-in datasets, the
headline order, the pinned scorers, the generated measure pages) are run here with an
extra dataset, measure and scorer registered; each asks about the built-in entries or
the ones it knows by name, not about whatever else is registered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from audit.data.catalog import DATASETS
from audit.measures.catalog import MEASURES, register_measure
from audit.scoring.base import ScorerInfo
from audit.scoring.catalog import SCORERS, ScorerEntry
from audit.scoring.options import CausalOptions
from tests import toy_measure
from tests.data import test_catalog as data_catalog_tests
from tests.data import toy_builtin
from tests.measures import test_catalog_and_cards as measure_catalog_tests
from tests.report import test_roles
from tests.scoring import test_golden


@pytest.fixture
def extra_plugins() -> Iterator[None]:
    DATASETS.register(toy_builtin.ENTRY)
    register_measure(
        name="extra_gap",
        title="Extra mean gap",
        shape="pairs",
        roles=("headline", "diagnostic", "intrinsic", "resamplable"),
        ideal_value=None,
        options=toy_measure.MeanGapOptions,
        target="tests.toy_measure:MEAN_GAP",
        what="scale * mean(f(S_st) - f(S_at)).",
        inputs="Pair set.",
        direction="Positive: stereotypes likelier.",
        ideal="0",
        citation="Written for the test.",
        limitations=(),
    )
    info = ScorerInfo(
        name="extra_ll",
        model_types=frozenset({"causal"}),
        unit="sentence",
        higher_is_likelier=True,
        aggregation="sum",
        version="1",
        summary="The log-likelihood again, under another name.",
    )
    SCORERS.register(
        ScorerEntry.of(
            info, title="Extra LL", target="audit.scoring.causal:LL_SCORER", options=CausalOptions
        )
    )
    yield
    DATASETS.unregister(toy_builtin.ENTRY.name)
    MEASURES.unregister("extra_gap")
    SCORERS.unregister("extra_ll")


def test_the_extras_are_registered_and_not_built_in(extra_plugins: None) -> None:
    assert "toy_pairs" in DATASETS.names() and "extra_gap" in MEASURES.names()
    assert "extra_gap" in [e.name for e in MEASURES.with_role("headline")]
    assert "extra_ll" in SCORERS.names()
    origin = "registered by tests.plugins.test_registry_independence"
    assert DATASETS.origin("toy_pairs") == MEASURES.origin("extra_gap") == origin
    assert SCORERS.origin("extra_ll") == origin


def test_the_registry_enumerating_tests_pass_with_extras(extra_plugins: None) -> None:
    test_roles.test_the_v1_cards_carry_the_live_pitfalls_roles_and_table_texts()
    data_catalog_tests.test_builtins_registered_with_metadata()
    measure_catalog_tests.test_registration_order_and_roles()
    measure_catalog_tests.test_committed_docs_are_generated_from_the_entries()
    test_golden.test_every_scorer_is_pinned()
