"""The scoring schedule (the audit plan's scoring part): independent scoring units (model x
dataset x scorer) and the measures computed on each, derived from a validated spec once
model types are known. Units are plain, serialisable data so that any executor can run
them.

What applies where is decided by the plug-ins' own entries: a scorer's entry says why it
cannot score a dataset on a model (`ScorerEntry.skip_reason`), a measure's entry says
which dataset shape it reads (`pairs`, `labelled`, or `corpus`: once per audit), and the
dataset catalog says each dataset's shape and whether it has template items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from audit.data.catalog import dataset_shape, has_templates
from audit.ids import PluginId
from audit.measures.catalog import MEASURES
from audit.results import SkippedUnit
from audit.scoring.catalog import SCORERS
from audit.scoring.units import ScoreUnit
from audit.spec.models import AuditSpec

__all__ = ["CorpusTask", "MeasureTask", "ScoreUnit", "ScoringSchedule", "schedule_scoring"]

#: The measure shape computed once per audit on a text corpus, not per unit.
CORPUS_SHAPE = "corpus"


@dataclass(frozen=True)
class MeasureTask:
    """Compute one measure (name and options) on one unit's scores."""

    unit: ScoreUnit
    measure: PluginId


@dataclass(frozen=True)
class CorpusTask:
    """A measure of a text corpus (ILPS), computed once per audit, not per model."""

    measure: PluginId


@dataclass(frozen=True)
class ScoringSchedule:
    """Every score unit of an audit, the measures on each, the corpus measures, and the
    units that do not apply (each with its reason)."""

    units: list[ScoreUnit] = field(default_factory=list)
    measures: list[MeasureTask] = field(default_factory=list)
    corpus_measures: list[CorpusTask] = field(default_factory=list)
    skipped: list[SkippedUnit] = field(default_factory=list)


def schedule_scoring(spec: AuditSpec, *, model_types: Mapping[str, str]) -> ScoringSchedule:
    """Every applicable (model, dataset, scorer) unit and its measures; what does not apply
    is listed in `skipped` with the reason, never silently dropped.

    `model_types` names the models to plan, in order (the spec's models, each followed by
    its trained variants), with their type."""
    measure_shapes = [(m.id, MEASURES.entry(m.name).shape) for m in spec.measures]
    corpus_measures = [
        CorpusTask(measure) for measure, shape in measure_shapes if shape == CORPUS_SHAPE
    ]
    shapes = {d.name: dataset_shape(d.name, d.kind) for d in spec.datasets}
    templates = {d.name: has_templates(d.name, d.kind) for d in spec.datasets}
    units: list[ScoreUnit] = []
    measures: list[MeasureTask] = []
    skipped: list[SkippedUnit] = []
    for model_id, model_type in model_types.items():
        refs = spec.scorers.masked if model_type == "masked" else spec.scorers.causal
        for ref in refs:
            entry = SCORERS.entry(ref.name)
            for dataset in spec.datasets:
                name = dataset.name
                why = entry.skip_reason(model_type, name, shapes[name], templates[name])
                if why is not None:
                    skipped.append(
                        SkippedUnit(model=model_id, dataset=name, scorer=ref.id, reason=why)
                    )
                    continue
                unit = ScoreUnit(model=model_id, dataset=name, scorer=ref.id)
                units.append(unit)
                measures.extend(
                    MeasureTask(unit=unit, measure=measure)
                    for measure, shape in measure_shapes
                    if shape == shapes[name]
                )
    return ScoringSchedule(units, measures, corpus_measures, skipped)
