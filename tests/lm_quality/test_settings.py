"""The spec's `lm_quality:` section: defaults, the shorthand and clear errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit.lm_quality.settings import LmQualitySpec


def test_defaults() -> None:
    spec = LmQualitySpec.model_validate({})
    assert spec.enabled and spec.sentences == 500 and spec.damage_threshold == 0.1
    assert spec.text.name == "sts_b_test" and spec.text.path is None


def test_text_shorthand_and_file() -> None:
    assert LmQualitySpec.model_validate({"text": "sts_b_test"}).text.name == "sts_b_test"
    text = LmQualitySpec.model_validate({"text": {"path": "h.csv", "column": "s"}}).text
    assert (text.path, text.column, text.label) == ("h.csv", "s", "h.csv")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"damage_threshold": 0}, "the damage threshold is the relative rise in perplexity"),
        ({"damage_threshold": -0.1}, "the damage threshold is the relative rise in perplexity"),
        ({"damage_threshold": 11}, "the damage threshold is the relative rise in perplexity"),
        ({"damage_threshold": "10%"}, "write the damage threshold as a fraction"),
        ({"sentences": 0}, "greater than or equal to 1"),
        ({"sentences": 2.5}, "valid integer"),
        ({"text": "wikitext"}, "'wikitext' is not a built-in held-out text"),
        ({"text": {"name": "sts_b_test", "path": "a.txt"}}, "either a built-in `name`"),
        ({"colour": "red"}, "Extra inputs are not permitted"),
    ],
)
def test_bad_options_are_refused_clearly(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        LmQualitySpec.model_validate(values)


def test_the_threshold_error_says_what_is_accepted() -> None:
    with pytest.raises(ValidationError) as caught:
        LmQualitySpec.model_validate({"damage_threshold": 11})
    (error,) = caught.value.errors()
    assert error["ctx"] == {
        "got": "11",
        "expected": "a number above 0 and at most 10, e.g. 0.1 for 10%",
    }


def test_threshold_bounds_are_inclusive_above() -> None:
    assert LmQualitySpec.model_validate({"damage_threshold": 10}).damage_threshold == 10
