"""A tiny bias-audit plug-in: the `tiny_median_gap` measure and the `tiny_pairs` dataset.

`register` is the package's `bias_audit.plugins` entry point (pyproject.toml): bias-audit
calls it once, before its registries answer their first question. Registering imports no
numerical library (`audit list` and `audit validate` stay light): the measure's module,
which needs numpy, is imported on first use through its `target`.
"""

from __future__ import annotations

from audit.measures.options import FormulaOnlyOptions


class MedianGapOptions(FormulaOnlyOptions):
    """No options beyond `compat` (formula only)."""


def register() -> None:
    """Register the measure and the dataset, as the built-ins register theirs."""
    from audit.data.catalog import DATASETS
    from audit.measures.catalog import register_measure
    from tiny_audit_plugin.dataset import ENTRY

    DATASETS.register(ENTRY)
    register_measure(
        name="tiny_median_gap",
        title="Median score gap (tiny plug-in)",
        shape="pairs",
        roles=("intrinsic", "resamplable"),
        ideal_value=0.0,
        options=MedianGapOptions,
        target="tiny_audit_plugin.measure:MEDIAN_GAP",
        what="The median of f(S_st) - f(S_at) over the pairs, on oriented scores.",
        inputs="Pair set; any scorer.",
        direction="Positive: the stereotypical sentence is likelier in most pairs.",
        ideal="0",
        citation="Written for bias-audit's plug-in test.",
        limitations=("In score units: compare within a scorer only.",),
    )
