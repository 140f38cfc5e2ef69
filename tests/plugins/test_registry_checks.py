"""The checks `Registry.register` makes of every entry, built-in or from a plug-in."""

from __future__ import annotations

import dataclasses

import pytest

from audit.measures.catalog import MEASURES, MeasureEntry
from audit.registry import PluginEntry, Registry


def _bias_score(**changes: object) -> MeasureEntry:
    entry = MEASURES.entry("bias_score")
    card = entry.card.model_copy(update={"name": changes.pop("name", "fresh_measure")})
    return dataclasses.replace(entry, card=card, **changes)  # type: ignore[arg-type]


def _registry() -> Registry[MeasureEntry, object]:
    return Registry("measure", MeasureEntry)


def test_a_valid_entry_is_registered_with_its_origin() -> None:
    registry = _registry()
    registry.register(_bias_score())
    assert registry.names() == ["fresh_measure"]
    assert registry.origin("fresh_measure") == "registered by tests.plugins.test_registry_checks"
    assert not registry.is_built_in("fresh_measure")
    assert MEASURES.is_built_in("bias_score")


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"name": "Bad-Name"}, ValueError, "measure name 'Bad-Name': expected lower-case"),
        ({"name": "9lives"}, ValueError, "starting with a letter"),
        ({"options": dict}, TypeError, "options must be a pydantic model class"),
        ({"target": "audit.measures.indicator"}, ValueError, "expected 'package.module:attribute'"),
        ({"target": "a b:c"}, ValueError, "target 'a b:c'"),
    ],
)
def test_an_invalid_entry_is_refused(
    changes: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        _registry().register(_bias_score(**changes))


def test_an_entry_of_another_type_or_kind_is_refused() -> None:
    plain = PluginEntry(
        card=MEASURES.entry("bias_score").card,
        options=MEASURES.entry("bias_score").options,
        target="x:y",
    )
    with pytest.raises(TypeError, match="must be a MeasureEntry; got PluginEntry"):
        _registry().register(plain)  # type: ignore[arg-type]
    scorers: Registry[PluginEntry, object] = Registry("scorer")
    with pytest.raises(ValueError, match="a measure entry cannot go into the scorer registry"):
        scorers.register(plain)


def test_a_taken_name_names_who_took_it() -> None:
    registry = _registry()
    registry.register(_bias_score())
    with pytest.raises(ValueError, match=r"registered twice \(first: registered by tests\."):
        registry.register(_bias_score())
