# mypy: disable-error-code="operator"
"""Every registered measure: a complete card, strict options, a generated doc page that
matches the card, and a catalog that imports no numerical library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pydantic
import pytest

from audit.measures.card_docs import card_markdown, options_markdown
from audit.measures.catalog import MEASURES, measure_card, measure_options_model, measure_shape

REPO = Path(__file__).resolve().parents[2]
EXPECTED = {
    "bias_score",
    "kls",
    "jss",
    "score_gap",
    "normality",
    "safety_score",
    "lms",
    "ss",
    "icat",
    "ilps",
}


def test_registered_names() -> None:
    assert set(MEASURES.names()) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_card_object_and_options(name: str) -> None:
    card = measure_card(name)
    assert card.name == name
    for text in (card.title, card.what, card.inputs, card.direction, card.ideal, card.citation):
        assert text.strip()
    assert card.limitations and all(item.strip() for item in card.limitations)
    measure = MEASURES.get(name)
    assert measure.name == name and measure.card is card
    assert measure.applies_to == measure_shape(name)
    assert measure.options_model is measure_options_model(name)
    with pytest.raises(pydantic.ValidationError):
        measure.options_model.model_validate({"compat": "formula", "no_such_option": 1})


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_doc_page_is_generated_from_the_card(name: str) -> None:
    page = REPO / "docs" / "measures" / f"{name}.md"
    expected = card_markdown(measure_card(name), options_doc=options_markdown(name))
    assert page.read_text("utf-8") == expected, (
        f"{page} is stale: run `python -m audit.measures.card_docs docs/measures`"
    )


def test_catalog_imports_no_numerics() -> None:
    code = (
        "import sys, audit.measures.catalog as c; c.MEASURES.names(); "
        "print([m for m in ('numpy', 'scipy', 'pandas') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_reference_compat_is_refused_where_there_is_none() -> None:
    with pytest.raises(pydantic.ValidationError):
        measure_options_model("bias_score").model_validate({"compat": "reference"})
    assert (
        measure_options_model("jss").model_validate({"compat": "reference"}).compat == "reference"
    )
