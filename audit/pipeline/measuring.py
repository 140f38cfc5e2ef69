"""The measures of a run: the score table read back from the cache, every planned
measure computed on its unit's scores, and the corpus measures (once per audit)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from audit.ids import PluginId
from audit.measures.base import MeasureCall
from audit.results import Measurement
from audit.scoring.cache import ModelIdentity

if TYPE_CHECKING:
    import pandas as pd

    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.worker import RunModels
    from audit.scoring.cache import ScoreCache

#: The scorer id of corpus measures (ILPS counts words; no model scores anything).
CORPUS_SCORER = PluginId.of("word-frequency")


def assemble_scores(plan: AuditPlan, models: RunModels, cache: ScoreCache) -> pd.DataFrame:
    """The score table of every unit, read back from the cache, float64 scores."""
    from audit.scoring.table import build_score_table

    return build_score_table(
        plan.units,
        datasets=plan.datasets,
        cache=cache,
        models={
            k: ModelIdentity(m.fingerprint, m.precision, m.chat, m.dataset_chats)
            for k, m in models.items()
        },
    )


def compute_measurements(plan: AuditPlan, scores: pd.DataFrame) -> list[Measurement]:
    """Every planned measure on its unit's scores."""
    from audit.measures.catalog import MEASURES, load_measure
    from audit.scoring.catalog import SCORERS
    from audit.scoring.table import unit_frames

    spec = plan.loaded.spec
    out: list[Measurement] = []
    frames = unit_frames(scores)
    for task in plan.measures:
        unit = task.unit
        frame = frames.get((unit.model, unit.dataset, unit.scorer))
        if frame is None:
            continue
        values = load_measure(task.measure.name).compute(
            frame,
            MeasureCall(
                scorer=SCORERS.entry(unit.scorer.name).info,
                options=MEASURES.entry(task.measure.name).options.model_validate(
                    task.measure.options
                ),
                seed=spec.seed,
                n_bootstrap=spec.bootstrap,
                alpha=spec.alpha,
            ),
        )
        out.extend(
            Measurement(
                model=unit.model,
                dataset=unit.dataset,
                scorer=unit.scorer,
                measure=task.measure,
                **value.model_dump(),
            )
            for value in values
        )
    return out


def compute_corpus_measurements(plan: AuditPlan) -> list[Measurement]:
    """Corpus measures (ILPS): once per audit, paths relative to the spec file."""
    from audit.measures.catalog import MEASURES, load_corpus_measure

    spec = plan.loaded.spec
    out: list[Measurement] = []
    for task in plan.corpus_measures:
        options = dict(task.measure.options)
        for key in ("corpus", "male_words", "female_words"):
            if key in options:
                options[key] = str(plan.loaded.resolve_path(str(options[key])))
        value = load_corpus_measure(task.measure.name).compute_corpus(
            options=MEASURES.entry(task.measure.name).options.model_validate(options),
            seed=spec.seed,
            n_bootstrap=spec.bootstrap,
            alpha=spec.alpha,
        )
        out.append(
            Measurement(
                model="corpus",
                dataset=Path(str(options.get("corpus", "corpus"))).name,
                scorer=CORPUS_SCORER,
                measure=task.measure,
                **value.model_dump(),
            )
        )
    return out
