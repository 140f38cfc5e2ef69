"""Vega-Lite specs to SVG with vl-convert (offline: no fetch, no JavaScript in the output)."""

from __future__ import annotations

import base64
from typing import Any


def chart_svg(spec: dict[str, Any]) -> str:
    """The SVG text of a Vega-Lite spec whose data is inline."""
    import vl_convert

    svg: str = vl_convert.vegalite_to_svg(vl_spec=spec, allowed_base_urls=[])
    return svg


def svg_data_uri(svg: str) -> str:
    """A data: URI of an SVG, so it is shown as an image (scripts in it never run)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
