"""Version 1 results.json -> version 2 (and on to the current version through
`audit.migrations.v2` and `v3`), in memory, without any registry.

Version 1 named plug-ins by label (`jss[compat=reference]`), kept the audit's settings and
gates only in the raw spec, and carried no cards. Here each label becomes a `PluginId` by
matching it against the labels of the plug-in references the file's own spec lists (no
label is parsed), the audit settings and gates are read from the spec, the cards come from
the committed snapshot of the version 1 era, and the gates are judged again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from audit.errors import AuditUserError
from audit.gates import evaluate_gates
from audit.ids import PluginId, label_of
from audit.migrations.v1_cards import v1_cards
from audit.migrations.v2 import migrate_v2
from audit.migrations.v3 import migrate_v3
from audit.results import AuditResult, Gate

#: Bootstrap resamples when a version 1 spec did not say (the spec's default then).
V1_DEFAULT_BOOTSTRAP = 1000


class V1Gate(BaseModel):
    """A gate as a version 1 spec gave it (`within` and/or `min`/`max`)."""

    model_config = ConfigDict(extra="forbid")

    measure: str
    dataset: str
    model: str | None = None
    scorer: str | None = None
    group: str = "all"
    within: tuple[float, float] | None = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _a_bound(self) -> V1Gate:
        if self.within is None and self.min is None and self.max is None:
            raise ValueError("a gate needs a bound")
        return self

    def gate(self) -> Gate:
        return Gate.of(**self.model_dump())


def _refs(items: Any) -> list[PluginId]:
    """Plug-in references of a spec list: `x` is `{name: x}`, other keys are options."""
    refs: list[PluginId] = []
    for item in items or []:
        if isinstance(item, str):
            refs.append(PluginId.of(item))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            refs.append(PluginId.of(item["name"], {k: v for k, v in item.items() if k != "name"}))
    return refs


class IdResolver:
    """Version 1 labels -> ids, by comparing them with the labels of the spec's refs."""

    def __init__(self, refs: Iterable[PluginId]) -> None:
        # version 1 wrote option values through `str` (a list as Python shows it)
        self._by_label = {label_of(r.name, r.options, str): r for r in refs}

    def __call__(self, label: str) -> PluginId:
        return self._by_label.get(label) or PluginId(name=label)


def spec_resolvers(spec: dict[str, Any]) -> tuple[IdResolver, IdResolver]:
    """(measures, scorers) resolvers from a version 1 spec dict."""
    scorers = spec.get("scorers") or {}
    scorer_refs = _refs(scorers.get("masked")) + _refs(scorers.get("causal"))
    return IdResolver(_refs(spec.get("measures"))), IdResolver(scorer_refs)


def v1_gates(spec: dict[str, Any], source: str) -> list[Gate]:
    """The gates of a version 1 spec, with their bands resolved."""
    gates: list[Gate] = []
    for index, entry in enumerate(spec.get("gates") or []):
        try:
            gates.append(V1Gate.model_validate(entry).gate())
        except ValidationError as error:
            message = str(error.errors()[0]["msg"]).removeprefix("Value error, ")
            raise AuditUserError(
                f"{source}: gates[{index}] in the results' spec is not a valid gate "
                f"({entry!r}): {message}; expected measure, dataset and within/min/max"
            ) from None
    return gates


def _series(raw: str, measures: IdResolver) -> dict[str, Any]:
    """A version 1 correlation axis `measure label@dataset` (its own old format) as a series;
    the old string stays its label, so reports show it as before."""
    measure, _, dataset = raw.rpartition("@")
    return {"measure": measures(measure or raw), "dataset": dataset, "label": raw}


def _used_cards(data: dict[str, Any], ids: Iterable[PluginId]) -> list[dict[str, Any]]:
    names = {("measure", i.name) for i in ids}
    names |= {("scorer", str(u.get("scorer", ""))) for u in data.get("units", [])}
    names |= {("dataset", str(d.get("name", ""))) for d in data.get("datasets", [])}
    names |= {("dataset", str(m.get("dataset", ""))) for m in data.get("measurements", [])}
    return [c.model_dump() for c in v1_cards() if (c.kind, c.name) in names]


def migrate_v1(data: dict[str, Any], source: str) -> AuditResult:
    """A version 1 results.json (parsed JSON) as a current `AuditResult` (version 2 JSON,
    migrated on by `migrate_v2`).

    `source` names the file in error messages. Raises pydantic's ValidationError when the
    data is not a version 1 file, AuditUserError for a gate its spec cannot have held.
    """
    spec: dict[str, Any] = dict(data.get("spec") or {})
    measures, scorers = spec_resolvers(spec)

    def ided(record: dict[str, Any], **fields: IdResolver) -> dict[str, Any]:
        out = dict(record)
        for key, resolve in fields.items():
            if isinstance(out.get(key), str):
                out[key] = resolve(out[key])
        return out

    measurements = [ided(m, measure=measures, scorer=scorers) for m in data.get("measurements", [])]
    units = [
        {k: v for k, v in ided(u, scorer=scorers).items() if k != "options"}
        for u in data.get("units", [])
    ]
    correlations = [
        {
            **{k: v for k, v in c.items() if k not in ("measure_x", "measure_y")},
            "x": _series(str(c.get("measure_x", "")), measures),
            "y": _series(str(c.get("measure_y", "")), measures),
        }
        for c in data.get("correlations", [])
    ]
    alpha = data.get("alpha")
    bootstrap = spec.get("bootstrap", V1_DEFAULT_BOOTSTRAP)
    used = [m["measure"] for m in measurements] + [
        c[a]["measure"] for c in correlations for a in "xy"
    ]
    migrated = {
        "results_version": "2.0",  # read_results stamps the current version
        "tool_version": data.get("tool_version"),
        "created_at": data.get("created_at"),
        "audit": {
            "name": str(spec.get("name", "")),
            "owner": None if spec.get("owner") is None else str(spec["owner"]),
            "description": str(spec.get("description", "")),
            "spec_path": data.get("spec_path"),
            "spec_sha256": data.get("spec_sha256"),
            "seed": data.get("seed"),
            "alpha": alpha,
            "bootstrap": {
                "resamples": bootstrap,
                "level": 1 - alpha if isinstance(alpha, int | float) else None,
            },
            "robustness": _v1_robustness(spec),
            "report_formats": (spec.get("report") or {}).get("formats", ["html", "pdf"]),
        },
        "spec": spec,
        "plugins": _used_cards(data, [*used, *measures_in_spec(spec)]),
        "models": data.get("models"),
        "datasets": data.get("datasets"),
        "units": units,
        "skipped_units": [ided(s, scorer=scorers) for s in data.get("skipped_units", [])],
        "measurements": measurements,
        "gates": v1_gates(spec, source),
        "robustness": [
            ided(r, measure=measures, scorer=scorers) for r in data.get("robustness", [])
        ],
        "correlations": correlations,
        "comparisons": [
            ided(r, measure=measures, scorer=scorers) for r in data.get("comparisons", [])
        ],
        "environment": data.get("environment"),
        "timings": data.get("timings"),
    }
    result = AuditResult.model_validate(migrate_v3(migrate_v2(migrated)))
    return result.model_copy(update={"gate_verdicts": evaluate_gates(result)})


def measures_in_spec(spec: dict[str, Any]) -> list[PluginId]:
    """The measures a version 1 spec lists."""
    return _refs(spec.get("measures"))


#: v1's robustness defaults (spec RobustnessSpec at results_version 1).
V1_ROBUSTNESS_DEFAULTS: dict[str, Any] = {
    "rates": [0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    "repeats": 20,
    "agreement": 0.95,
    "seed": None,
}


def _v1_robustness(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The robustness settings a v1 spec asked for (its defaults filled in), or None."""
    asked = spec.get("robustness")
    if asked is None:
        return None
    return {**V1_ROBUSTNESS_DEFAULTS, **dict(asked)}
