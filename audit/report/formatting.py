"""How numbers look in reports: the one place that turns values into text.

The jinja2 environment (`audit.report.templating`) registers these as filters, and the
report builder uses them for sentences, so a number reads the same everywhere.
"""

from __future__ import annotations

import math
from datetime import datetime

from audit.gates import plain_band

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


#: Most decimals a report prints for a value (a CI this narrow is rare; a value without a
#: CI never needs more).
MAX_DIGITS = 4


def ci_digits(low: float | None, high: float | None, fallback: int = 2) -> int:
    """Decimals an interval supports: two significant digits of its half-width (0.5 to 9.9
    wide: 1 decimal; 0.05 to 0.99: 2), between 0 and MAX_DIGITS; `fallback` when there is
    no interval of positive width."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return fallback
    half = (high - low) / 2
    if half <= 0:
        return fallback
    return min(MAX_DIGITS, max(0, 1 - math.floor(math.log10(half))))


def fixed_digits(values: list[float | None], *, least: int = 0) -> int:
    """Decimals for a column of values without intervals: two significant digits of its
    largest magnitude, at least `least` and at most MAX_DIGITS (never 7 decimals for a
    value near 0: it reads 0.000 beside its neighbours)."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return max(least, 0)
    return min(MAX_DIGITS, max(least, 1 - math.floor(math.log10(max(finite)))))


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


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 model', '2 models', '1,508 pairs' ('many' for an irregular plural)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def fmt_bound(value: float) -> str:
    """A gate bound as the spec wrote it: 45, 0.5."""
    return f"{value:g}"


def fmt_band(low: float | None, high: float | None) -> str:
    """A gate's band for people: '45–55', 'at least 0.5', 'at most 10'."""
    return plain_band(low, high)


def fmt_estimate(
    value: float | None, low: float | None, high: float | None, digits: int, n: int | None = None
) -> str:
    """A value with its interval, '55.6 [52.9, 58.2]'; without one 'no interval (4 items)',
    never a zero-width interval; 'no value' when there is none."""
    if value is None:
        return "no value"
    if low is None or high is None:
        items = f" ({plural(n, 'item')})" if n is not None else ""
        return f"{fmt_num(value, digits)}, no interval{items}"
    return f"{fmt_num(value, digits)} {fmt_ci(low, high, digits)}"


#: Device names as people write them.
DEVICE_NAMES = {"cpu": "CPU", "cuda": "GPU (CUDA)", "mps": "Apple GPU (MPS)", "xpu": "Intel GPU"}


def fmt_device(device: str) -> str:
    """'cpu' -> 'CPU', 'cuda:0' -> 'GPU (CUDA) 0'."""
    kind, _, number = device.partition(":")
    name = DEVICE_NAMES.get(kind.lower(), device)
    return f"{name} {number}" if number and name != device else name


def fmt_precision(precision: str, device: str) -> str:
    """How a model ran: 'float32 on CPU' (a 'cpu/float32' precision loses its device part)."""
    kind = device.partition(":")[0].lower()
    head, sep, rest = precision.partition("/")
    dtype = rest if sep and head.lower() in (kind, device.lower()) else precision
    return f"{dtype} on {fmt_device(device)}"


#: Group labels as datasets spell them (ToxiGen's 'mental dis', CrowS-Pairs' 'race-color')
#: and as people read them. Data values, not plug-in names; others get '-' and '_' as spaces.
GROUP_NAMES = {
    "all": "whole dataset",
    "mental dis": "mental disability",
    "mental_dis": "mental disability",
    "physical dis": "physical disability",
    "physical_dis": "physical disability",
    "lgbtq": "LGBTQ+",
    "lgbtq+": "LGBTQ+",
    "race-color": "race/color",
    "asian": "Asian",
    "black": "Black",
    "chinese": "Chinese",
    "jewish": "Jewish",
    "latino": "Latino",
    "mexican": "Mexican",
    "middle-eastern": "Middle Eastern",
    "middle_east": "Middle Eastern",
    "middle east": "Middle Eastern",
    "muslim": "Muslim",
    "native-american": "Native American",
    "native_american": "Native American",
}


def group_name(group: str) -> str:
    """A group (bias type or target group) for people: 'mental dis' -> 'mental disability'."""
    known = GROUP_NAMES.get(group.strip().lower())
    if known is not None:
        return known
    return " ".join(group.replace("_", " ").replace("-", " ").split())


def plain(text: str) -> str:
    """Text for people: spans in backticks (`compat: reference`) lose the backticks and get
    quotation marks; an unpaired backtick stays."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one is unpaired
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return "".join(f"\u2018{p}\u2019" if i % 2 else p for i, p in enumerate(parts))


def lower_first(title: str) -> str:
    """'Log-likelihood' -> 'log-likelihood' for use mid-sentence; a first word with other
    capitals ('KLS', 'CrowS-Pairs') keeps its case."""
    first = title.split(" ", 1)[0]
    if first[:1].isupper() and not any(c.isupper() for c in first[1:]):
        return title[0].lower() + title[1:]
    return title


def upper_first(text: str) -> str:
    """A sentence fragment as a sentence: its first letter upper case."""
    return text[:1].upper() + text[1:]


def join_words(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c' (an empty list: '')."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def listed(entries: list[str], limit: int = 8) -> str:
    """Entries each once, the first `limit` of them, and how many more."""
    entries = list(dict.fromkeys(entries))
    more = f"; and {len(entries) - limit} more" if len(entries) > limit else ""
    return "; ".join(entries[:limit]) + more
