"""How numbers look in reports: the one place that turns values into text.

The jinja2 environment (`audit.report.templating`) registers these as filters, and the
report builder uses them for sentences, so a number reads the same everywhere.
"""

from __future__ import annotations

import math
from datetime import datetime

DASH = "\u2013"
MISSING = "\u2014"


def fmt_num(value: float | int | None, digits: int = 2) -> str:
    """A number with `digits` decimals; an em dash for a missing or non-finite value."""
    if value is None:
        return MISSING
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if not math.isfinite(value):
        return MISSING
    text = f"{value:,.{digits}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def fmt_ci(low: float | None, high: float | None, digits: int = 2) -> str:
    """A confidence interval as '[low, high]', or '' when there is none."""
    if low is None or high is None:
        return ""
    return f"[{fmt_num(low, digits)}, {fmt_num(high, digits)}]"


def fmt_p(value: float | None) -> str:
    """A p-value: three significant digits, '< 0.001' below that."""
    if value is None or not math.isfinite(value):
        return MISSING
    if value < 0.001:
        return "< 0.001"
    return f"{value:.3f}"


def fmt_pct(value: float | None, digits: int = 0) -> str:
    """A share in [0, 1] as a percentage."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{100 * value:.{digits}f}%"


def fmt_count(value: int | None) -> str:
    """An integer count with thousands separators."""
    return MISSING if value is None else f"{value:,}"


def fmt_date(value: datetime) -> str:
    """A timestamp as 'YYYY-MM-DD HH:MM UTC' (or with its own offset)."""
    zone = value.strftime("%Z") or "UTC"
    return f"{value:%Y-%m-%d %H:%M} {zone}"


def fmt_hash(value: str, length: int = 12) -> str:
    """The first `length` characters of a hash (the full one goes in a title attribute)."""
    return value[:length]


def fmt_seconds(value: float) -> str:
    """Seconds as '0.4 s', '12 s' or '3 min 5 s'."""
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    minutes, seconds = divmod(round(value), 60)
    return f"{minutes} min {seconds} s"
