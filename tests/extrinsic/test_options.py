"""The extrinsic tasks' options models: defaults, bounds, unknown keys."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit.extrinsic.options import (
    MIN_TEMPLATES,
    BiasBiosOptions,
    NliBiasOptions,
    StsBiasOptions,
)
from audit.extrinsic.sts_bias import MIN_TEMPLATES as USED


def test_defaults() -> None:
    assert StsBiasOptions().max_templates is None and StsBiasOptions().unique_templates
    bios = BiasBiosOptions()
    assert (bios.aggregate, bios.test_share, bios.dev_share, bios.text) == (
        "mean_abs",
        0.25,
        0.10,
        "auto",
    )
    nli = NliBiasOptions()
    assert (nli.thresholds, nli.style, nli.aggregate) == ([0.5, 0.7], "paper", "instance")
    reference = NliBiasOptions(compat="reference")
    assert (reference.style, reference.aggregate) == ("reference", "word_pair")
    assert USED == MIN_TEMPLATES == 5


@pytest.mark.parametrize(
    ("model", "options", "message"),
    [
        (StsBiasOptions, {"max_templates": 4}, "greater than or equal to 5"),
        (StsBiasOptions, {"templates": 10}, "Extra inputs are not permitted"),
        (BiasBiosOptions, {"test_share": 0.8, "dev_share": 0.2}, "must be below 1"),
        (BiasBiosOptions, {"aggregate": "max"}, "'mean_abs', 'rms' or 'mean'"),
        (BiasBiosOptions, {"gender_codes": {"0": "boy"}}, "'female' or 'male'"),
        (BiasBiosOptions, {"min_per_gender": 0}, "greater than or equal to 1"),
        (NliBiasOptions, {"thresholds": [0.5, 1.2]}, "must lie in \\[0, 1\\)"),
        (NliBiasOptions, {"thresholds": []}, "at least 1 item"),
        (NliBiasOptions, {"compat": "code"}, "'formula' or 'reference'"),
        (NliBiasOptions, {"max_premises": 0}, "greater than or equal to 1"),
    ],
)
def test_bad_options(model: type, options: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        model(**options)
