"""Chart specs (Vega-Lite through altair) for the report; drawn to SVG by `audit.report.svg`:
the score distributions and the studies' line charts, heatmaps, small multiples and probe
charts (the per-group charts are in `group_charts.py`, the shared look in `chart_style.py`).

Data is summarised here (histogram bins, fitted curves, estimates), so each spec carries
a few hundred rows at most and renders fast.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from audit.report.chart_style import WIDTH, configure_chart, per_part
from audit.report.index import MeasurementIndex, Unit
from audit.report.model import Chart
from audit.report.tables import part_words, slug
from audit.results_io import score_rows

SIDE_LABELS = {"st": "stereotypical", "at": "anti-stereotypical"}
SIDE_COLORS = ["#c0392b", "#2471a3"]
HISTOGRAM_BINS = 30


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
    return per_part(
        index.unit_parts(dataset, MAX_DISTRIBUTION_PANELS),
        lambda units, part: distribution_chart(scores, index, dataset, units=units, part=part),
    )


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
        spec=configure_chart(chart),
        alt=f"Score distributions on {dataset} for " + ", ".join(order),
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
        return configure_chart(alt.layer(*layers).properties(width=WIDTH - 140, height=200))
    chart = (
        alt.layer(*layers, data=frame)
        .properties(width=int((WIDTH - 80) / 2), height=150)
        .facet(facet=alt.Facet(f"{facet}:N", title=None), columns=2)
    )
    return configure_chart(chart)


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
    return configure_chart(alt.layer(rect, labels).properties(width=size, height=size))


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
    return configure_chart(chart)


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
    return configure_chart(chart)
