"""The plan: independent scoring units (model x dataset x scorer) and the measures
computed on each, derived from a validated spec once model types and dataset shapes are
known. Units are plain, serialisable data so that any executor can run them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from audit.measures.catalog import measure_shape
from audit.results import SkippedUnit
from audit.scoring.catalog import scorer_info
from audit.spec.models import AuditSpec, DatasetSpec


def dataset_shape_of(spec: DatasetSpec) -> str:
    """`pairs` or `labelled`: a user file says so in `kind`, a built-in knows its own."""
    if spec.kind is not None:
        return spec.kind
    from audit.data.catalog import dataset_shape

    return dataset_shape(spec.name)


class _OptionsFromJson:
    """Options kept as sorted-key JSON (hashable, serialisable), read back as a dict."""

    options_json: str

    @property
    def options(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.options_json)
        return loaded


def has_templates(spec: DatasetSpec) -> bool:
    """Whether a dataset's items carry template slots (built-ins that say so)."""
    if spec.kind is not None:
        return False
    from audit.data.catalog import DATASETS

    return bool(DATASETS.entry(spec.name).meta.get("templates", False))


@dataclass(frozen=True)
class ScoreUnit(_OptionsFromJson):
    """Score every sentence of one dataset with one scorer on one model."""

    model: str
    dataset: str
    scorer: str  # registry name
    label: str  # name in tables, with options
    options_json: str  # the scorer options as given, JSON (sorted keys)


@dataclass(frozen=True)
class MeasureTask(_OptionsFromJson):
    """Compute one measure on one unit's scores."""

    unit: ScoreUnit
    measure: str
    label: str
    options_json: str


@dataclass(frozen=True)
class CorpusTask(_OptionsFromJson):
    """A measure of a text corpus (ILPS), computed once per audit, not per model."""

    measure: str
    label: str
    options_json: str


@dataclass
class Plan:
    units: list[ScoreUnit] = field(default_factory=list)
    measures: list[MeasureTask] = field(default_factory=list)
    corpus_measures: list[CorpusTask] = field(default_factory=list)
    skipped: list[SkippedUnit] = field(default_factory=list)


def build_plan(spec: AuditSpec, *, model_types: Mapping[str, str]) -> Plan:
    """Every applicable (model, dataset, scorer) unit and its measures; what does not apply
    is listed in `skipped` with the reason, never silently dropped."""
    plan = Plan()
    for mref in spec.measures:
        if measure_shape(mref.name) == "corpus":
            plan.corpus_measures.append(
                CorpusTask(
                    measure=mref.name,
                    label=mref.label,
                    options_json=json.dumps(mref.options, sort_keys=True),
                )
            )
    shapes = {d.name: dataset_shape_of(d) for d in spec.datasets}
    for model in spec.models:
        model_type = model_types[model.id]
        refs = spec.scorers.masked if model_type == "masked" else spec.scorers.causal
        for ref in refs:
            info = scorer_info(ref.name)
            label = ref.label
            for dataset in spec.datasets:
                shape = shapes[dataset.name]
                if model_type not in info.model_types:
                    why = f"{ref.name} does not apply to {model_type} LMs"
                    plan.skipped.append(
                        SkippedUnit(model=model.id, dataset=dataset.name, scorer=label, reason=why)
                    )
                    continue
                if info.unit == "template" and not has_templates(dataset):
                    why = (
                        f"{ref.name} scores template items (attribute + target words); "
                        f"{dataset.name} has none (use the built-in `professions`)"
                    )
                    plan.skipped.append(
                        SkippedUnit(model=model.id, dataset=dataset.name, scorer=label, reason=why)
                    )
                    continue
                if info.unit == "pair" and shape != "pairs":
                    why = f"{ref.name} scores sentence pairs; {dataset.name} holds single sentences"
                    plan.skipped.append(
                        SkippedUnit(model=model.id, dataset=dataset.name, scorer=label, reason=why)
                    )
                    continue
                unit = ScoreUnit(
                    model=model.id,
                    dataset=dataset.name,
                    scorer=ref.name,
                    label=label,
                    options_json=json.dumps(ref.options, sort_keys=True),
                )
                plan.units.append(unit)
                for mref in spec.measures:
                    if measure_shape(mref.name) != shape:
                        continue
                    plan.measures.append(
                        MeasureTask(
                            unit=unit,
                            measure=mref.name,
                            label=mref.label,
                            options_json=json.dumps(mref.options, sort_keys=True),
                        )
                    )
    return plan
