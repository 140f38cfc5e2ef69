"""The lines of `audit plan` for the variants' language-modelling cost: the held-out
text and each of its score units, with what the score cache already holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.pipeline.steps import unit_line

if TYPE_CHECKING:
    from audit.pipeline.audit_plan import AuditPlan
    from audit.scoring.cache import ScoreCache


def describe_lm_quality(plan: AuditPlan, cache: ScoreCache | None = None) -> list[str]:
    """The lines of `audit plan` for the language-modelling cost: the held-out text and
    each unit, with what the score cache holds."""
    from audit.scoring.runner import planned_work, unit_input, unit_jobs

    lm = plan.lm_quality
    if lm is None:
        return []
    text = lm.text
    removed = f", {text.overlap_removed:,} removed as training text" if text.overlap_removed else ""
    lines = [
        "Language-modelling cost (each variant's perplexity against its base's; damaged "
        f"above +{lm.damage_threshold:.0%}):",
        f"  held-out text {text.label}: {text.dataset.rows_kept:,} of {text.read:,} "
        f"sentences{removed} ({text.source})",
    ]
    for unit in lm.units:
        model = plan.models.get(unit.model)
        work = ""
        if cache is not None and model is None:
            work = f"; once {unit.model} is trained"
        elif cache is not None and model is not None:
            sentences, cached = planned_work(
                unit,
                dataset=text.dataset,
                cache=cache,
                fingerprint=model.fingerprint,
                precision=model.precision,
            )
            if cached:
                work = "; all in the cache" if cached == sentences else f"; {cached:,} in the cache"
        shape = unit_input(unit.scorer)
        n = sum(shape.work(j.texts) for j in unit_jobs(unit.scorer, text.dataset))
        lines.append(f"  {unit_line(unit.model, unit.dataset, unit.scorer)}: {n:,} sentences{work}")
    return lines
