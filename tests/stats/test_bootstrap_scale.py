# mypy: disable-error-code="operator"
"""The vectorised bootstrap at CrowS-Pairs scale: 1,000 stratified resamples of 1,508
items for 10 models (no timing assertion; it runs in a couple of seconds), and the bias
score's exact interval at the same scale."""

from __future__ import annotations

import numpy as np
import pandas as pd

from audit.measures.base import MeasureCall, MeasureOptions
from audit.measures.indicator import BIAS_SCORE, SCORE_GAP
from audit.stats.intervals import CLOPPER_PEARSON
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


def _crows_like_frames() -> list[pd.DataFrame]:
    types = [t for t, n in CROWS_TYPE_COUNTS.items() for _ in range(n)]
    assert len(types) == 1508
    rng = np.random.default_rng(0)
    return [
        pair_frame(
            rng.normal(0.05 * model, 1, 1508),
            rng.normal(0, 1, 1508),
            bias_types=types,
            model=f"m{model}",
        )
        for model in range(10)
    ]


def test_1000_resamples_x_10_models_x_1508_items() -> None:
    results = []
    for model, frame in enumerate(_crows_like_frames()):
        values = SCORE_GAP.compute(
            frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=model, n_bootstrap=1000)
        )
        assert len(values) == 10  # all + 9 bias types
        assert all(v.details["bootstrap"]["resamples"] == 1000 for v in values)
        assert all(v.ci_low is not None and v.ci_low < v.ci_high for v in values)
        results.append(values[0])
    assert all(v.ci_low <= v.value <= v.ci_high for v in results)


def test_exact_bias_score_intervals_at_crows_pairs_scale() -> None:
    results = []
    for model, frame in enumerate(_crows_like_frames()):
        values = BIAS_SCORE.compute(
            frame, MeasureCall(scorer=AUL, options=MeasureOptions(), seed=model, n_bootstrap=1000)
        )
        assert len(values) == 10
        assert all(v.details["interval"]["method"] == CLOPPER_PEARSON for v in values)
        results.append(values[0])
    # the standard error of a proportion near 1/2 over 1508 items is ~1.3 points
    widths = [v.ci_high - v.ci_low for v in results]
    assert all(4.8 < w < 5.2 for w in widths)
    assert results[-1].value > results[0].value
