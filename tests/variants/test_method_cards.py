"""Every built-in variant method has a complete card (definition, inputs, direction,
ideal, citation, limitations), and the post-hoc projections have their METHODS.md-style
page in docs/measures/methods/ naming every option. Generic over the registry: a method
registered later is checked without a change here (methods of installed plug-ins are
their packages' to test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.variants.catalog import VARIANT_METHODS

REPO = Path(__file__).resolve().parents[2]
NAMES = [e.name for e in VARIANT_METHODS.entries() if VARIANT_METHODS.is_built_in(e.name)]
#: Methods whose page in docs/measures/methods/ this test checks.
DOCUMENTED = ("inlp", "sentence_debias", "self_debias")


def test_the_methods_are_registered() -> None:
    assert {"cda", "dropout", "at", "bias_controlled", *DOCUMENTED} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_card_is_complete(name: str) -> None:
    card = VARIANT_METHODS.entry(name).card
    assert card.kind == "variant_method" and card.name == name
    for field in ("title", "summary", "what", "inputs", "direction", "ideal", "citation"):
        assert getattr(card, field).strip(), f"{name}: card.{field} is empty"
    assert card.limitations and all(item.strip() for item in card.limitations)


@pytest.mark.parametrize("name", DOCUMENTED)
def test_posthoc_method_page_names_every_option(name: str) -> None:
    page = REPO / "docs" / "measures" / "methods" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# ") and f"`{name}`" in text
    for option in VARIANT_METHODS.entry(name).options.model_fields:
        assert f"`{option}`" in text, f"{page.name} does not name option `{option}`"
    for heading in ("## 1.", "## 2.", "## 3.", "Limits"):
        assert heading in text
