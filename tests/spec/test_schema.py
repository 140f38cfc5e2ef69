"""The JSON Schema: a valid draft 2020-12 schema that accepts the good specs and knows
the registered names and options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from audit.scoring.catalog import SCORERS, scorer_info
from audit.spec.schema import spec_json_schema

jsonschema = pytest.importorskip("jsonschema")
pytestmark = pytest.mark.usefixtures("plugin_names")

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    built = spec_json_schema()
    jsonschema.Draft202012Validator.check_schema(built)
    json.dumps(built)  # plain JSON data only
    return built


@pytest.mark.parametrize("path", sorted((SPECS / "good").glob("*.yaml")), ids=lambda p: p.stem)
def test_good_specs_match_the_schema(schema: dict[str, Any], path: Path) -> None:
    jsonschema.validate(_load(path), schema)


@pytest.mark.parametrize(
    "stem",
    [
        "unknown_top_level_key",
        "rate_above_one",
        "wrong_spec_version",
        "bad_compat_value",
        "scorer_causal_under_masked",
        "unknown_measure_option",
        "negative_limit",
    ],
)
def test_some_bad_specs_fail_the_schema_too(schema: dict[str, Any], stem: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_load(SPECS / "bad" / f"{stem}.yaml"), schema)


def test_plugin_items_are_a_name_or_a_mapping_with_options(schema: dict[str, Any]) -> None:
    masked = schema["$defs"]["ScorerSelection"]["properties"]["masked"]["items"]["anyOf"]
    names = masked[0]["enum"]
    assert names == [n for n in SCORERS.names() if "masked" in scorer_info(n).model_types]
    cps = next(shape for shape in masked[1:] if shape["title"] == "cps")
    assert cps["properties"]["name"] == {
        "const": "cps",
        "description": SCORERS.entry("cps").summary,
    }
    assert cps["properties"]["compat"]["enum"] == ["formula", "reference"]
    assert cps["additionalProperties"] is False
    measures = schema["properties"]["measures"]["items"]["anyOf"]
    assert {"bias_score", "kls", "jss", "safety_score"} <= set(measures[0]["enum"])


def test_every_field_has_a_description(schema: dict[str, Any]) -> None:
    missing = [
        f"{model}.{field}"
        for model, definition in schema["$defs"].items()
        for field, prop in definition.get("properties", {}).items()
        if "description" not in prop
    ]
    missing += [f for f, prop in schema["properties"].items() if "description" not in prop]
    assert missing == []
