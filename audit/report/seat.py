"""The SEAT part of a report: per test and model, the effect size with its p-value and the
sizes of X, Y, A and B, as a table and a chart, with bias-bench's summary per bias type
(the mean |d| over its tests).

Given plain rows (`SeatRow`, one per model and test), never the measure code: the
reading side imports no `audit.measures`. A filled point is a test whose one-sided
p-value is below alpha; the caption says that the p-values are not corrected for the
number of tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import pandas as pd

from audit.report.chart_style import WIDTH, configure_chart
from audit.report.model import Cell, Chart, Table
from audit.report.tables import slug


@dataclass(frozen=True)
class SeatRow:
    """One SEAT test's result on one model."""

    model: str
    test: str
    bias_type: str | None
    effect_size: float | None  # None: every s(w, A, B) equal
    p_value: float
    exact: bool
    n_partitions: int
    n_x: int
    n_y: int
    n_a: int
    n_b: int


def _significant(row: SeatRow, alpha: float) -> bool:
    return row.p_value < alpha


def seat_table(rows: Sequence[SeatRow], *, alpha: float) -> Table:
    """One row per model and test: sizes, effect size, p-value and how it was computed."""
    cells = []
    for row in rows:
        how = (
            f"exact ({row.n_partitions:,} partitions)"
            if row.exact
            else f"{row.n_partitions:,} seeded partitions"
        )
        d = (
            Cell(kind="number", value=row.effect_size, digits=3)
            if row.effect_size is not None
            else Cell(text="undefined", note="every s(w, A, B) is equal: no spread")
        )
        cells.append(
            [
                Cell(text=row.model),
                Cell(kind="code", text=row.test),
                Cell(text=row.bias_type or "other"),
                Cell(text=f"{row.n_x} / {row.n_y} / {row.n_a} / {row.n_b}"),
                d,
                Cell(
                    kind="pvalue",
                    value=row.p_value,
                    emphasis="warn" if _significant(row, alpha) else "",
                ),
                Cell(text=how),
            ]
        )
    return Table(
        id="seat-tests",
        title="SEAT: effect size and p-value per test",
        caption=(
            "Effect size d of each SEAT test (May et al. 2019) and its one-sided permutation "
            f"p-value; highlighted: p < {alpha:g}. Sizes are |X| / |Y| / |A| / |B|. The "
            "p-values are not corrected for the number of tests."
        ),
        columns=["Model", "Test", "Bias type", "Sizes", "Effect size d", "p-value", "p from"],
        rows=cells,
        key_columns=2,
    )


def bias_type_summary(rows: Sequence[SeatRow]) -> dict[tuple[str, str], float]:
    """(model, bias type) -> bias-bench's summary, the mean |d| over the type's tests with
    an effect size."""
    sizes: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        if row.bias_type is not None and row.effect_size is not None:
            sizes.setdefault((row.model, row.bias_type), []).append(abs(row.effect_size))
    return {key: sum(values) / len(values) for key, values in sizes.items()}


def seat_chart(rows: Sequence[SeatRow], *, alpha: float) -> Chart | None:
    """The effect size per test, models side by side; filled: p < alpha; the dashed line
    at 0 (no differential association). None when no test has an effect size."""
    shown = [row for row in rows if row.effect_size is not None]
    if not shown:
        return None
    frame = pd.DataFrame(
        [
            {
                "test": row.test,
                "model": row.model,
                "d": row.effect_size,
                "p": row.p_value,
                "significance": f"p < {alpha:g}" if _significant(row, alpha) else f"p ≥ {alpha:g}",
            }
            for row in shown
        ]
    )
    tests = list(dict.fromkeys(row.test for row in shown))
    models = list(dict.fromkeys(row.model for row in shown))
    base = alt.Chart(frame).encode(
        y=alt.Y("test:N", title=None, sort=tests),
        yOffset=alt.YOffset("model:N", sort=models),
        color=alt.Color("model:N", title="Model", sort=models, scale=alt.Scale(scheme="tableau10")),
    )
    points = base.mark_point(size=40).encode(
        x=alt.X("d:Q", title="Effect size d"),
        fill=alt.condition(
            alt.datum.p < alpha, alt.Color("model:N", sort=models), alt.value("white")
        ),
        shape=alt.Shape("significance:N", title="One-sided p"),
        tooltip=["test:N", "model:N", alt.Tooltip("d:Q", format=".3f"), "p:Q"],
    )
    zero = (
        alt.Chart(pd.DataFrame({"zero": [0.0]}))
        .mark_rule(color="#555555", strokeDash=[4, 3])
        .encode(x="zero:Q")
    )
    height = len(tests) * (7 * len(models) + 8)
    chart = alt.layer(zero, points).properties(width=WIDTH - 170, height=height)
    return Chart(
        id=slug("seat", "effect-size", "chart"),
        title="SEAT: effect size per test",
        caption=(
            "Effect size d per SEAT test and model; filled: one-sided permutation p-value "
            f"below {alpha:g} (not corrected for the {len(tests)} tests). The dashed line "
            "marks 0, no differential association; positive d: X closer to A than Y is."
        ),
        spec=configure_chart(chart),
        alt="SEAT effect size per test for " + ", ".join(models),
    )
