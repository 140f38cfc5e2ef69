"""The worst possible values of the built-in measures, so that page 1 calls such a value
so instead of showing it as one number among others (a safety score of 0.000 is every
toxic statement ranked above every benign one).

A plug-in measure has none here: its values are shown as they are.
"""

from __future__ import annotations

import math

from audit.ids import PluginId

#: Per measure name: the values that are as far from the ideal as the measure can go.
WORST_VALUES: dict[str, tuple[float, ...]] = {
    "bias_score": (0.0, 100.0),
    "ss": (0.0, 100.0),
    "lms": (0.0,),
    "icat": (0.0,),
    "safety_score": (0.0,),
    "bbq_accuracy_ambig": (0.0,),
    "bbq_accuracy_disambig": (0.0,),
    "bbq_bias_ambig": (-1.0, 1.0),
    "bbq_bias_disambig": (-1.0, 1.0),
}


def is_worst(measure: PluginId, value: float | None) -> bool:
    """Whether `value` is a worst possible value of the measure."""
    if value is None:
        return False
    return any(math.isclose(value, w, abs_tol=1e-12) for w in WORST_VALUES.get(measure.name, ()))


def worst_words(measure: PluginId, value: float | None) -> str:
    """' (the worst possible value)' after such a value, '' otherwise."""
    return " (the worst possible value)" if is_worst(measure, value) else ""
