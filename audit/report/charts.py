"""Chart specs (Vega-Lite through altair) for the report; drawn to SVG by `audit.report.svg`.

Data is summarised here (histogram bins, fitted curves, estimates), so each spec carries
a few hundred rows at most and renders fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from audit.ids import PluginId
from audit.report.formatting import fmt_band, group_name
from audit.report.index import MeasurementIndex, Unit
from audit.report.model import Chart
from audit.report.tables import part_words, slug
from audit.results import Gate
from audit.results_io import score_rows

FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"
WIDTH = 560
SIDE_LABELS = {"st": "stereotypical", "at": "anti-stereotypical"}
SIDE_COLORS = ["#c0392b", "#2471a3"]
HISTOGRAM_BINS = 30


def _configure(chart: alt.TopLevelMixin) -> dict[str, Any]:
    configured = (
        chart.configure(font=FONT, background="white")
        .configure_view(stroke="#d0d0d0")
        .configure_axis(labelFontSize=11, titleFontSize=11, gridColor="#eeeeee")
        .configure_legend(labelFontSize=11, titleFontSize=11, orient="bottom")
        .configure_header(labelFontSize=11, titleFontSize=11)
    )
    spec: dict[str, Any] = configured.to_dict()
    return spec


def _gaussian_rows(values: np.ndarray, side: str, unit: str) -> tuple[list[dict], list[dict]]:
    """Histogram (density) rows and the fitted Gaussian's curve (ML fit: sd with n)."""
    counts, edges = np.histogram(values, bins=HISTOGRAM_BINS, density=True)
    bars = [
        {
            "unit": unit,
            "side": SIDE_LABELS[side],
            "x0": float(a),
            "x1": float(b),
            "density": float(c),
        }
        for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)
    ]
    mu, sd = float(values.mean()), float(values.std())
    curve: list[dict] = []
    if sd > 0:
        grid = np.linspace(edges[0], edges[-1], 80)
        pdf = np.exp(-0.5 * ((grid - mu) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
        curve = [
            {"unit": unit, "side": SIDE_LABELS[side], "x": float(x), "density": float(y)}
            for x, y in zip(grid, pdf, strict=True)
        ]
    return bars, curve


#: Most score distributions (model x scorer) in one faceted chart: two rows of three.
MAX_DISTRIBUTION_PANELS = 6


def distribution_charts(scores: pd.DataFrame, index: MeasurementIndex, dataset: str) -> list[Chart]:
    """The score distributions of a dataset: one chart, or one per part of the units (as
    the per-group tables are split), so many models and variants stay readable."""
    return _per_part(
        index.unit_parts(dataset, MAX_DISTRIBUTION_PANELS),
        lambda units, part: distribution_chart(scores, index, dataset, units=units, part=part),
    )


def _per_part(
    parts: list[list[Unit]], draw: Callable[[list[Unit], tuple[int, int]], Chart | None]
) -> list[Chart]:
    """The chart of each part of the units (part i of n), those that have one."""
    drawn = (draw(units, (i, len(parts))) for i, units in enumerate(parts, 1))
    return [c for c in drawn if c is not None]


def distribution_chart(
    scores: pd.DataFrame,
    index: MeasurementIndex,
    dataset: str,
    *,
    units: list[Unit] | None = None,
    part: tuple[int, int] = (1, 1),
) -> Chart | None:
    """Score distributions of S_st and S_at with their fitted Gaussians (Liu 2024, Fig. 2)
    for `units` (default all) as part `part` (number, total) of several."""
    rows = scores[(scores["dataset"] == dataset) & scores["side"].isin(["st", "at"])]
    if rows.empty:
        return None
    bars: list[dict] = []
    curves: list[dict] = []
    units = index.units(dataset) if units is None else units
    order = []
    for unit in units:
        unit_rows = score_rows(rows, model=unit.model, dataset=dataset, scorer=unit.scorer)
        for side in ("st", "at"):
            values = unit_rows.loc[unit_rows["side"] == side, "score"].to_numpy(dtype=float)
            values = values[np.isfinite(values)]
            if values.size >= 2:
                b, c = _gaussian_rows(values, side, unit.label)
                bars += b
                curves += c
        order.append(unit.label)
    if not bars:
        return None
    columns = min(3, len(order))
    color = alt.Color(
        "side:N",
        title="Sentence",
        scale=alt.Scale(domain=list(SIDE_LABELS.values()), range=SIDE_COLORS),
    )
    frame = pd.DataFrame(
        [{**r, "layer": "bar"} for r in bars] + [{**r, "layer": "fit"} for r in curves]
    )
    hist = (
        alt.Chart()
        .mark_rect(opacity=0.35)
        .encode(
            x=alt.X("x0:Q", title="score (log-likelihood)"),
            x2="x1:Q",
            y=alt.Y("density:Q", title="density", stack=None),
            color=color,
        )
        .transform_filter(alt.datum.layer == "bar")
    )
    fit = (
        alt.Chart()
        .mark_line(strokeWidth=1.8)
        .encode(x="x:Q", y="density:Q", color=color)
        .transform_filter(alt.datum.layer == "fit")
    )
    layers: list[alt.Chart] = [hist, fit]
    width = int((WIDTH - 40 * columns) / columns)
    chart = (
        alt.layer(*layers, data=frame)
        .properties(width=width, height=150)
        .facet(facet=alt.Facet("unit:N", title=None, sort=order), columns=columns)
        .resolve_scale(x="independent", y="independent")
    )
    gaussian = [index.cards.title(m) for m in index.gaussian_measures(dataset)]
    fitted = (
        f"the maximum-likelihood Gaussian that {' and '.join(gaussian)} "
        f"use{'s' if len(gaussian) == 1 else ''} drawn over each"
        if gaussian
        else "a maximum-likelihood Gaussian drawn over each for reference"
    )
    legend = index.variants.legend(u.model for u in units)
    number, total = part
    return Chart(
        id=slug(dataset, "distributions") + (f"-part{number}" if number > 1 else ""),
        title=f"{dataset}: score distributions and fitted Gaussians"
        + part_words(units, number, total),
        caption="Histograms (density) of the per-item scores of the stereotypical and "
        f"anti-stereotypical sentences, with {fitted} (Liu 2024, Fig. 2). Overlapping, "
        "equally wide curves mean little bias." + (f" {legend}" if legend else ""),
        spec=_configure(chart),
        alt=f"Score distributions on {dataset} for " + ", ".join(order),
        listed=number == 1,
        detail=True,
    )


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
    return _per_part(
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
        spec=_configure(chart),
        alt=f"{title} per {kind} on {dataset} for " + ", ".join(order),
        listed=number == 1,
        detail=True,
    )


def line_chart(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str,
    x_title: str,
    y_title: str,
    threshold: float | None,
    facet: str | None = None,
    unit_interval: bool = True,
) -> dict[str, Any]:
    """A line chart with points, one line per `series`, an optional dashed threshold; the
    y axis is 0..1 (shares) unless `unit_interval` is false (then it fits the data)."""
    color = alt.Color(f"{series}:N", title=None, scale=alt.Scale(scheme="tableau10"))
    scale = alt.Scale(domain=[0, 1]) if unit_interval else alt.Scale(zero=False)
    base = alt.Chart(frame).encode(
        x=alt.X(f"{x}:Q", title=x_title),
        y=alt.Y(f"{y}:Q", title=y_title, scale=scale),
        color=color,
    )
    layers: list[alt.Chart] = [base.mark_line(), base.mark_point(filled=True, size=30)]
    if threshold is not None:
        layers.append(
            alt.Chart(pd.DataFrame({"t": [threshold]}))
            .mark_rule(color="#555555", strokeDash=[4, 3])
            .encode(y="t:Q")
        )
    if facet is None:
        return _configure(alt.layer(*layers).properties(width=WIDTH - 140, height=200))
    chart = (
        alt.layer(*layers, data=frame)
        .properties(width=int((WIDTH - 80) / 2), height=150)
        .facet(facet=alt.Facet(f"{facet}:N", title=None), columns=2)
    )
    return _configure(chart)


def heatmap(frame: pd.DataFrame, *, title: str) -> dict[str, Any]:
    """A symmetric correlation heatmap of columns a, b, value in [-1, 1], labelled."""
    order = list(dict.fromkeys([*frame["a"], *frame["b"]]))
    base = alt.Chart(frame).encode(
        x=alt.X("a:N", title=None, sort=order),
        y=alt.Y("b:N", title=None, sort=order),
    )
    rect = base.mark_rect().encode(
        color=alt.Color(
            "value:Q", title=title, scale=alt.Scale(scheme="redblue", domain=[-1, 1], reverse=True)
        )
    )
    labels = base.mark_text(fontSize=11).encode(text=alt.Text("value:Q", format=".2f"))
    size = min(WIDTH - 160, 60 * len(order))
    return _configure(alt.layer(rect, labels).properties(width=size, height=size))


def small_multiples(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    facet: str,
    x_title: str | None = None,
    y_title: str | None = None,
    order: list[str] | None = None,
    columns: int = 4,
) -> dict[str, Any]:
    """One small line chart (with points) per value of `facet`, each with its own y scale:
    loss curves, or a measure's values across the ratio models. An axis without a title
    is titled with its field's name."""
    columns = max(1, min(columns, frame[facet].nunique()))
    width = int((WIDTH - 50 * columns) / columns)
    base = alt.Chart().encode(
        x=alt.X(
            f"{x}:Q",
            title=x if x_title is None else x_title,
            axis=alt.Axis(tickCount=3, labelOverlap=True),
        ),
        y=alt.Y(f"{y}:Q", title=y if y_title is None else y_title, scale=alt.Scale(zero=False)),
    )
    layers = alt.layer(
        base.mark_line(color="#24477a", strokeWidth=1.5),
        base.mark_point(color="#24477a", filled=True, size=14),
        data=frame,
    )
    chart = (
        layers.properties(width=width, height=90)
        .facet(
            facet=alt.Facet(f"{facet}:N", title=None, sort=order or "ascending"),
            columns=columns,
        )
        .resolve_scale(x="independent", y="independent")
    )
    return _configure(chart)


PROBE_COLORS = ("#2471a3", "#c0392b", "#1d2433")


def probe_chart(frame: pd.DataFrame, *, names: tuple[str, str, str]) -> dict[str, Any]:
    """The control check across r (Kaneko et al. 2023): mean P(he) and P(she) over the
    probe's occupations on the left (log scale when they span orders of magnitude), the
    he-share on the right with 0.5 (no preference) dashed. `frame` has columns r, series,
    value; `names` are the series P(he), P(she) and the he-share, in that order."""
    probs = frame[frame["series"] != names[2]]
    share = frame[frame["series"] == names[2]]
    positive = probs["value"][probs["value"] > 0]
    spread = float(positive.max() / positive.min()) if not positive.empty else 1.0
    scale = alt.Scale(type="log") if spread > 100 else alt.Scale(zero=False)
    color = alt.Color(
        "series:N", title=None, scale=alt.Scale(domain=list(names), range=list(PROBE_COLORS))
    )
    x = alt.X("r:Q", title="male share r", scale=alt.Scale(domain=[0, 1]))
    left_base = alt.Chart(probs).encode(
        x=x, y=alt.Y("value:Q", title="mean probability", scale=scale), color=color
    )
    left = alt.layer(left_base.mark_line(), left_base.mark_point(filled=True, size=30))
    right_base = alt.Chart(share).encode(
        x=x,
        y=alt.Y("value:Q", title=names[2], scale=alt.Scale(domain=[0, 1])),
        color=color,
    )
    half = (
        alt.Chart(pd.DataFrame({"h": [0.5]}))
        .mark_rule(color="#555555", strokeDash=[4, 3])
        .encode(y="h:Q")
    )
    right = alt.layer(half, right_base.mark_line(), right_base.mark_point(filled=True, size=30))
    width = int((WIDTH - 120) / 2)
    chart = alt.hconcat(
        left.properties(width=width, height=180), right.properties(width=width, height=180)
    ).resolve_scale(y="independent")
    return _configure(chart)
