# mypy: disable-error-code="operator"
"""The vectorised bootstrap at CrowS-Pairs scale: 1,000 stratified resamples of 1,508
items for 10 models (no timing assertion; it runs in a couple of seconds)."""

from __future__ import annotations

import numpy as np

from audit.measures.base import MeasureOptions
from audit.measures.indicator import BIAS_SCORE
from tests.measures.frames_factory import AUL, pair_frame

CROWS_TYPE_COUNTS = {
    "race-color": 516,
    "socioeconomic": 172,
    "gender": 262,
    "disability": 60,
    "nationality": 159,
    "sexual-orientation": 84,
    "physical-appearance": 63,
    "religion": 105,
    "age": 87,
}


def test_1000_resamples_x_10_models_x_1508_items() -> None:
    types = [t for t, n in CROWS_TYPE_COUNTS.items() for _ in range(n)]
    assert len(types) == 1508
    rng = np.random.default_rng(0)
    results = []
    for model in range(10):
        shift = 0.05 * model
        frame = pair_frame(
            rng.normal(shift, 1, 1508), rng.normal(0, 1, 1508), bias_types=types, model=f"m{model}"
        )
        values = BIAS_SCORE.compute(
            frame, scorer=AUL, options=MeasureOptions(), seed=model, n_bootstrap=1000
        )
        assert len(values) == 10  # all + 9 bias types
        assert all(v.details["bootstrap"]["resamples"] == 1000 for v in values)
        results.append(values[0])
    # the standard error of a proportion near 1/2 over 1508 items is ~1.3 points
    widths = [v.ci_high - v.ci_low for v in results]
    assert all(3.5 < w < 6.5 for w in widths)
    assert results[-1].value > results[0].value
