"""JSON Schema of the audit spec, for editor completion and checking (`audit schema`).

The pydantic schema of `AuditSpec` is sharpened with what the registries know: the
scorer, measure, variant and dataset names (so an editor completes them), each plug-in's
options (completed per name), and the short string form of list items (`- crows_pairs`,
`measures: [kls, jss]`). The semantic checks of `audit validate` still apply on top.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.measures.catalog import MEASURES
from audit.registry import Registry
from audit.scoring.catalog import SCORERS
from audit.spec.models import AuditSpec
from audit.variants.catalog import VARIANT_METHODS

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a spec file, with every field's description."""
    from audit.data import catalog as data_catalog

    schema = AuditSpec.model_json_schema()
    defs: dict[str, Any] = schema["$defs"]
    props: dict[str, Any] = schema["properties"]

    measures = {n: MEASURES.entry(n).options for n in MEASURES.names()}
    props["measures"]["items"] = _plugin_item("measure", MEASURES, measures, defs, "PluginRef")

    selection = defs["ScorerSelection"]["properties"]
    for model_type in ("masked", "causal"):
        fitting = {
            n: SCORERS.entry(n).options
            for n in SCORERS.names()
            if model_type in SCORERS.entry(n).info.model_types
        }
        selection[model_type]["items"] = _plugin_item(
            f"{model_type} scorer", SCORERS, fitting, defs, "PluginRef"
        )

    for def_name, key, what, registry in (
        ("VariantSpec", "method", "variant method", VARIANT_METHODS),
        ("ExtrinsicSpec", "task", "extrinsic task", EXTRINSIC_TASKS),
    ):
        names = registry.names()
        defs[def_name]["properties"][key]["enum"] = names
        defs[def_name]["allOf"] = [
            _options_when_named(name, registry.entry(name).options, defs, key=key, what=what)
            for name in names
        ]

    builtins = data_catalog.DATASETS.names()
    props["datasets"]["items"] = {
        "anyOf": [
            {"type": "string", "enum": builtins, "description": "A built-in dataset by name."},
            {"$ref": "#/$defs/DatasetSpec"},
        ]
    }
    dataset = defs["DatasetSpec"]
    dataset["properties"]["name"]["examples"] = builtins
    dataset["allOf"] = [
        _options_when_named(name, data_catalog.dataset_options_model(name), defs)
        for name in builtins
    ]

    schema["$schema"] = SCHEMA_DIALECT
    schema["title"] = "bias-audit spec (spec_version 1)"
    return schema


def _plugin_item(
    kind: str,
    registry: Registry[Any, Any],
    options: Mapping[str, type[BaseModel] | None],
    defs: dict[str, Any],
    ref_def: str,
) -> dict[str, Any]:
    """A list item: a registered name, or {name: <that name>, <its options>}."""
    if not options:
        return {
            "anyOf": [{"type": "string"}, {"$ref": f"#/$defs/{ref_def}"}],
            "description": f"A {kind} name, or {{name: ..., <options>}}.",
        }
    names = sorted(options)
    shapes: list[dict[str, Any]] = [
        {"type": "string", "enum": names, "description": f"A {kind} by name."}
    ]
    base_props = copy.deepcopy(defs[ref_def].get("properties", {}))
    for name in names:
        props = dict(base_props)
        required = ["name"]
        model = options[name]
        if model is not None:
            sub = _inline(model, defs)
            props.update(sub.get("properties", {}))
            required += [r for r in sub.get("required", []) if r != "name"]
        props["name"] = {"const": name, "description": registry.entry(name).summary}
        shapes.append(
            {
                "type": "object",
                "title": name,
                "description": registry.entry(name).summary,
                "properties": props,
                "required": required,
                "additionalProperties": False,
            }
        )
    return {"anyOf": shapes, "description": f"A {kind} name, or {{name: ..., <options>}}."}


def _options_when_named(
    name: str,
    model: type[BaseModel] | None,
    defs: dict[str, Any],
    *,
    key: str = "name",
    what: str = "built-in dataset",
) -> dict[str, Any]:
    """`if <key> == <name> then options follow <name>'s options model`."""
    options: dict[str, Any] = {"type": "object", "maxProperties": 0}
    if model is not None:
        sub = _inline(model, defs)
        options = {
            "type": "object",
            "properties": sub.get("properties", {}),
            "additionalProperties": False,
        }
    options["description"] = f"Options of the {what} {name}."
    return {
        "if": {"properties": {key: {"const": name}}, "required": [key]},
        "then": {"properties": {"options": options}},
    }


def _inline(model: type[BaseModel], defs: dict[str, Any]) -> dict[str, Any]:
    """A model's schema, its own $defs moved into the spec's $defs."""
    sub = model.model_json_schema(ref_template="#/$defs/{model}")
    for key, value in sub.pop("$defs", {}).items():
        defs.setdefault(key, value)
    return sub
