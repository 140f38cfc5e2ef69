"""The comparison's stated detection limit: per measure, the smallest change between the
runs that the comparison must be able to detect before "no detectable change" may count
as "not worse".

The built-in measures have a default in their own units (points for the percentage
measures, a share for the proportions, a standardised effect for SEAT); `audit compare
--detect MEASURE=CHANGE` states another, and states one for a plug-in measure, which has
none by default. A measure without a stated limit can still be compared, but its "no
detectable change" supports no adoption.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from audit.errors import AuditUserError
from audit.ids import PluginId

#: The built-in measures' default limits, in the measure's own units, with why.
DEFAULT_LIMITS: dict[str, float] = {
    # percentages of pairs or comparisons (ideal 50 or 100): 5 points
    "bias_score": 5.0,
    "ss": 5.0,
    "lms": 5.0,
    "icat": 5.0,
    "jss": 5.0,
    "kls": 5.0,
    # shares and BBQ's bias scores (-1 to 1): 0.05
    "safety_score": 0.05,
    "bbq_accuracy_ambig": 0.05,
    "bbq_accuracy_disambig": 0.05,
    "bbq_bias_ambig": 0.05,
    "bbq_bias_disambig": 0.05,
    # SEAT's effect size (Cohen's d): a small effect
    "seat": 0.2,
}

#: In words, for the report: what the defaults are.
DEFAULTS_IN_WORDS = (
    "5 points for the percentage measures (bias score, SS, LMS, ICAT, JSS, KLS), 0.05 for "
    "the safety score and BBQ's accuracies and bias scores, 0.2 for SEAT's effect size"
)


def parse_limit(text: str) -> tuple[str, float]:
    """`MEASURE=CHANGE` (a measure name and a positive number); a malformed one is a user
    error naming the value and what would be accepted."""
    name, sep, value = text.partition("=")
    try:
        change = float(value)
    except ValueError:
        change = math.nan
    if not sep or not name.strip() or not math.isfinite(change) or change <= 0:
        raise AuditUserError(
            f"--detect {text!r}: expected MEASURE=CHANGE, a measure name, '=' and a positive "
            "number in the measure's units (e.g. --detect bias_score=3)"
        )
    return name.strip(), change


def stated_limits(given: Sequence[tuple[str, float]] = ()) -> dict[str, float]:
    """The defaults with the `given` ones (measure, change) in their place; a measure
    given twice is a user error."""
    seen: set[str] = set()
    for name, _ in given:
        if name in seen:
            raise AuditUserError(f"--detect {name}=...: the measure is given twice")
        seen.add(name)
    return DEFAULT_LIMITS | dict(given)


def limit_of(measure: PluginId, limits: Mapping[str, float]) -> float | None:
    """The limit stated for a measure (by its name, whatever its options), None when none
    is."""
    return limits.get(measure.name)
