"""The per-group charts of a measure: each model's value per group with its interval, and
the gates on that measure and dataset marked on them."""

from __future__ import annotations

import altair as alt
import pandas as pd

from audit.ids import PluginId
from audit.report.chart_style import WIDTH, configure_chart, per_part
from audit.report.formatting import fmt_band, group_name
from audit.report.index import MeasurementIndex, Unit
from audit.report.model import Chart
from audit.report.tables import part_words, slug
from audit.results import Gate

#: Colours of the gate marks: a band that passes (within), a bound (min or max).
GATE_BAND_COLOR = "#2e7d32"
GATE_BOUND_COLOR = "#d35400"


def chart_gates(index: MeasurementIndex, dataset: str, measure: PluginId) -> list[tuple[int, Gate]]:
    """The gates (with their index in the spec) on `measure` and `dataset`: a gate names a
    measure by its exact label or, when no measured id has that label, by its name."""
    labels = {m.label for m in index.measures(dataset, diagnostics=True)}
    found = []
    for i, gate in enumerate(index.result.gates):
        if gate.dataset != dataset:
            continue
        exact = gate.measure in labels
        if (exact and measure.label == gate.measure) or (
            not exact and measure.name == gate.measure
        ):
            found.append((i, gate))
    return found


def _gate_rows(gate: Gate, rows: list[str]) -> list[str]:
    """The chart rows (group labels) a gate judges."""
    if gate.group == "*":
        return [r for r in rows if r != "all"]
    return [r for r in rows if r == gate.group]


def _gate_words(i: int, gate: Gate, kind: str) -> str:
    rows = f"each {kind}" if gate.group == "*" else group_name(gate.group)
    model = f", model {gate.model}" if gate.model else ""
    mark = "shaded band" if gate.low is not None and gate.high is not None else "solid line"
    return f"gate {i + 1} requires {fmt_band(gate.low, gate.high)} ({rows}{model}; {mark})"


#: Most models side by side in one per-group chart (tableau10 has ten colours).
MAX_CHART_MODELS = 6


def group_charts(index: MeasurementIndex, dataset: str, measure: PluginId) -> list[Chart]:
    """The per-group charts of a measure: one, or one per part of the models (as the
    per-group tables are split), so every colour names one model."""
    return per_part(
        index.unit_parts(dataset, MAX_CHART_MODELS),
        lambda units, part: group_chart(index, dataset, measure, units=units, part=part),
    )


def group_chart(
    index: MeasurementIndex,
    dataset: str,
    measure: PluginId,
    *,
    units: list[Unit] | None = None,
    part: tuple[int, int] = (1, 1),
) -> Chart | None:
    """A measure per group with CIs, models side by side (Hosseini 2023, Fig. 2 for safety);
    the whole dataset on top, the gates on this measure as a shaded band (within) or a
    line (min, max) over the rows they judge, the ideal value dashed. A value without an
    interval is a point without a line, never a zero-width interval. `units`: the models
    drawn (default all) as part `part` (number, total) of several."""
    rows = []
    units = index.units(dataset) if units is None else units
    groups = index.breakdown_groups(dataset, measure)
    order_rows = ["all", *groups]
    for unit in units:
        for group in order_rows:
            m = index.get(unit, dataset, measure, group)
            if m is None or m.value is None:
                continue
            rows.append(
                {
                    "group": group_name(group),
                    "model": unit.label,
                    "value": m.value,
                    "low": m.ci_low,
                    "high": m.ci_high,
                }
            )
    if not rows or not groups:
        return None
    title = index.cards.title(measure)
    record = index.dataset_record(dataset)
    kind = "target group" if record is not None and record.shape == "labelled" else "bias type"
    frame = pd.DataFrame(rows)
    shown = [g for g in order_rows if group_name(g) in set(frame["group"])]
    sort = [group_name(g) for g in shown]
    order = [u.label for u in units]
    y = alt.Y("group:N", title=None, sort=sort)
    y_offset = alt.YOffset("model:N", sort=order)
    color = alt.Color("model:N", title="Model", sort=order, scale=alt.Scale(scheme="tableau10"))
    base = alt.Chart(frame).encode(y=y, yOffset=y_offset, color=color)
    x_title = alt.X("value:Q", title=title, scale=alt.Scale(zero=False))
    layers: list[alt.Chart] = []
    gates = chart_gates(index, dataset, measure)
    marks = []
    for i, gate in gates:
        covered = [group_name(r) for r in _gate_rows(gate, shown)]
        if not covered:
            continue
        marks.append(_gate_words(i, gate, kind))
        if gate.low is not None and gate.high is not None:
            band = pd.DataFrame({"group": covered, "lo": gate.low, "hi": gate.high})
            layers.append(
                alt.Chart(band)
                .mark_rect(color=GATE_BAND_COLOR, opacity=0.13)
                .encode(y=alt.Y("group:N", sort=sort), x="lo:Q", x2="hi:Q")
            )
        else:
            bound = gate.low if gate.low is not None else gate.high
            line = pd.DataFrame({"group": covered, "bound": bound})
            layers.append(
                alt.Chart(line)
                .mark_rect(stroke=GATE_BOUND_COLOR, strokeWidth=2, fillOpacity=0)
                .encode(y=alt.Y("group:N", sort=sort), x="bound:Q", x2="bound:Q")
            )
    ideal = index.cards.ideal_value(measure)
    if ideal is not None:
        layers.append(
            alt.Chart(pd.DataFrame({"ideal": [ideal]}))
            .mark_rule(color="#555555", strokeDash=[4, 3])
            .encode(x="ideal:Q")
        )
    layers += [
        base.transform_filter("isValid(datum.low) && isValid(datum.high)")
        .mark_rule(strokeWidth=1.5)
        .encode(x=alt.X("low:Q", title=title, scale=alt.Scale(zero=False)), x2="high:Q"),
        base.mark_point(filled=True, size=36).encode(x=x_title),
    ]
    height = len(shown) * (7 * len(units) + 8)
    chart = alt.layer(*layers).properties(width=WIDTH - 170, height=height)
    words = [
        "Point estimate and confidence interval per " + kind + " and model, the whole "
        "dataset on top."
    ]
    if frame["low"].isna().any():
        words.append("A point without a line has no interval (too few items).")
    if ideal is not None:
        words.append(f"The dashed line marks the ideal value {ideal:g}.")
    if marks:
        words.append("Gates: " + "; ".join(marks) + ".")
    if legend := index.variants.legend(u.model for u in units):
        words.append(legend)
    number, total = part
    return Chart(
        id=slug(dataset, measure.label, "chart") + (f"-part{number}" if number > 1 else ""),
        title=f"{dataset}: chart of the {index.cards.name(measure)} per {kind}"
        + part_words(units, number, total),
        caption=" ".join(words),
        spec=configure_chart(chart),
        alt=f"{title} per {kind} on {dataset} for " + ", ".join(order),
        listed=number == 1,
        detail=True,
    )
