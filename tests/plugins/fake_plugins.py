"""Registration functions that fake entry points name (tests/plugins/test_plugins.py):
one that registers a measure, one that asks a registry while it registers, and three
that register something the registries refuse."""

from __future__ import annotations

from audit.measures.catalog import MEASURES, MeasureEntry, register_measure
from audit.scoring.catalog import SCORERS
from tests import toy_measure

#: How many times `register_extra` ran (the loader calls each entry point once).
CALLS: list[str] = []


def _register(name: str, target: str = "tests.toy_measure:MEAN_GAP") -> MeasureEntry:
    return register_measure(
        name=name,
        title="Fake mean gap",
        shape="pairs",
        roles=("intrinsic", "resamplable"),
        ideal_value=0.0,
        options=toy_measure.MeanGapOptions,
        target=target,
        what="scale * mean(f(S_st) - f(S_at)).",
        inputs="Pair set; any scorer.",
        direction="Positive: stereotypical sentences likelier on average.",
        ideal="0",
        citation="Written for the test.",
        limitations=("In score units.",),
    )


def register_extra() -> None:
    CALLS.append("extra")
    _register("fake_gap")


def register_asking() -> None:
    """Asks a registry (which would load the plug-ins) in the middle of registering."""
    assert "bias_score" in MEASURES
    _register("fake_asking")


def register_duplicate() -> None:
    _register("bias_score")


def register_bad_target() -> None:
    _register("fake_bad_target", target="tests.toy_measure.MEAN_GAP")


def register_wrong_kind() -> None:
    MEASURES.register(SCORERS.entry("ll"))  # type: ignore[arg-type]


NOT_CALLABLE = 42
