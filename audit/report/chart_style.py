"""What every chart of the report shares: its font, width and look, and the charts of a
dataset's units drawn one per part (as the per-group tables are split)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import altair as alt

from audit.report.index import Unit
from audit.report.model import Chart

FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"
WIDTH = 560


def configure_chart(chart: alt.TopLevelMixin) -> dict[str, Any]:
    configured = (
        chart.configure(font=FONT, background="white")
        .configure_view(stroke="#d0d0d0")
        .configure_axis(labelFontSize=11, titleFontSize=11, gridColor="#eeeeee")
        .configure_legend(labelFontSize=11, titleFontSize=11, orient="bottom")
        .configure_header(labelFontSize=11, titleFontSize=11)
    )
    spec: dict[str, Any] = configured.to_dict()
    return spec


def per_part(
    parts: list[list[Unit]], draw: Callable[[list[Unit], tuple[int, int]], Chart | None]
) -> list[Chart]:
    """The chart of each part of the units (part i of n), those that have one."""
    drawn = (draw(units, (i, len(parts))) for i, units in enumerate(parts, 1))
    return [c for c in drawn if c is not None]
