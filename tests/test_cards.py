"""Plug-in cards: every card carries the plug-in's own version, shown with the card."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit.cards import PluginCard
from audit.migrations.v1_cards import v1_cards

CARD = {"kind": "measure", "name": "m", "title": "M", "summary": "s", "shape": "pairs"}


def test_a_card_without_a_version_is_version_1() -> None:
    assert PluginCard.model_validate(CARD).version == "1"
    assert {c.version for c in v1_cards()} == {"1"}  # the committed snapshot has none


def test_a_card_keeps_its_version_and_refuses_a_number() -> None:
    assert PluginCard.model_validate({**CARD, "version": "2024.1"}).version == "2024.1"
    with pytest.raises(ValidationError, match="version"):
        PluginCard.model_validate({**CARD, "version": 2})


def test_a_scorers_card_carries_the_scorers_version() -> None:
    from audit.scoring.catalog import SCORERS

    for name in SCORERS.names():
        entry = SCORERS.entry(name)
        assert entry.card.version == entry.info.version, name


def test_the_report_prints_each_cards_version() -> None:
    from audit.report.build import build_report
    from audit.report.render import render_html
    from tests.report.synthetic import synthetic_result

    result = synthetic_result()
    cards = list(result.plugins)
    cards[0] = cards[0].model_copy(update={"version": "7b"})
    report = build_report(result.model_copy(update={"plugins": cards}), None)
    shown = {c.name: c.version for c in report.cards}
    assert shown[cards[0].name] == "7b" and set(shown.values()) <= {"1", "7b"}
    assert "<dt>Version</dt><dd>7b</dd>" in render_html(report)
