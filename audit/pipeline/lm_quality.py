"""The variants' language-modelling cost as a stage of the run (issue 20 item 5).

Planned with the rest (`plan_lm_quality`, called by `plan_audit` once the variants are
planned): the held-out text read and kept apart from every variant's training text
(`audit.lm_quality.heldout`), and one score unit per base model with variants and per
variant: `pll` for masked LMs, `ll` for causal LMs, default options. These units run
with the others, through the executor and the score cache (so they are cached and
resumable like any scoring); `lm_quality_section` reads their entries back and compares
each variant with its base (`audit.lm_quality.statistics`). `audit plan`'s lines are
`audit.pipeline.lm_quality_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.lm_quality.heldout import HELD_OUT_DATASET, HeldOutText, load_heldout
from audit.results import (
    HeldOutTextRecord,
    LmQualityRecord,
    LmQualitySection,
    PerplexityRecord,
    UnitRecord,
)
from audit.scoring.units import ScoreUnit

if TYPE_CHECKING:
    from pathlib import Path

    from audit.lm_quality.settings import LmQualitySpec
    from audit.lm_quality.statistics import PerplexityValue
    from audit.scoring.cache import ModelIdentity, ScoreCache
    from audit.variants.jobs import VariantPlan

#: The scorer of each model type: per-sentence log-likelihood and its token count.
SCORER_OF_TYPE: dict[str, PluginId] = {"masked": PluginId.of("pll"), "causal": PluginId.of("ll")}
KIND_OF_TYPE = {"masked": "pseudo-perplexity", "causal": "perplexity"}


@dataclass(frozen=True)
class LmQualityPlan:
    """The held-out text, its score units (run order) and each (variant, base) pair."""

    text: HeldOutText
    units: tuple[ScoreUnit, ...]
    pairs: tuple[tuple[str, str], ...]
    damage_threshold: float

    def unit_of(self, model: str) -> ScoreUnit:
        return next(u for u in self.units if u.model == model)


def training_text(variants: VariantPlan) -> Iterable[str]:
    """Every sentence a variant of the plan trains on: its corpus and what its method
    built from it (CDA's swapped copies, AT's target and attribute sentences)."""
    for job in variants.jobs:
        yield from job.corpus.sentences
        yield from job.data.training_texts()


def plan_lm_quality(
    settings: LmQualitySpec,
    variants: VariantPlan,
    *,
    model_types: Mapping[str, str],
    dataset_names: Iterable[str],
    data_dir: Path | None,
    base_dir: Path,
    seed: int,
) -> LmQualityPlan | None:
    """The held-out text and its units over each base with variants and its variants, in
    run order (`model_types`' order); None when `lm_quality: {enabled: false}` or there is
    no variant."""
    if not variants.jobs or not settings.enabled:
        return None
    if HELD_OUT_DATASET in set(dataset_names):
        raise AuditUserError(
            f"datasets: the name '{HELD_OUT_DATASET}' is the one the held-out text of "
            "`lm_quality` is scored under; name the dataset otherwise"
        )
    text = load_heldout(
        settings.text,
        data_dir=data_dir,
        base_dir=base_dir,
        training_text=training_text(variants),
        sentences=settings.sentences,
        seed=seed,
    )
    bases = {job.model_id: job.base for job in variants.jobs}
    measured = set(bases) | set(bases.values())
    units = tuple(
        ScoreUnit(model, HELD_OUT_DATASET, SCORER_OF_TYPE[model_type])
        for model, model_type in model_types.items()
        if model in measured
    )
    pairs = tuple((v, bases[v]) for v in model_types if v in bases)
    return LmQualityPlan(text, units, pairs, settings.damage_threshold)


def held_out_record(text: HeldOutText) -> HeldOutTextRecord:
    return HeldOutTextRecord(
        label=text.label,
        source=text.source,
        description=text.description,
        sha256=text.dataset.sha256,
        read=text.read,
        overlap_removed=text.overlap_removed,
        available=text.available,
        sentences=text.dataset.rows_kept,
        seed=text.seed,
    )


def _perplexity(model: str, value: PerplexityValue) -> PerplexityRecord:
    return PerplexityRecord(
        model=model,
        value=value.value,
        ci_low=value.ci_low,
        ci_high=value.ci_high,
        tokens=value.tokens,
    )


def _sentence_scores(
    lm: LmQualityPlan, model: str, models: Mapping[str, ModelIdentity], cache: ScoreCache
) -> tuple[list[float], list[int]]:
    """Each held-out sentence's log-likelihood and token count for `model`, in order,
    read back from the score cache."""
    from audit.scoring.inputs import side_scores
    from audit.scoring.runner import read_entries, unit_input

    unit = lm.unit_of(model)
    dataset = lm.text.dataset
    entries = read_entries(unit, dataset=dataset, cache=cache, model=models[model])
    shape = unit_input(unit.scorer)
    scores = [s for item in dataset.items for _, s in side_scores(shape.sides(item), entries)]
    return [s.score for s in scores], [s.n_tokens for s in scores]


def lm_quality_section(
    lm: LmQualityPlan,
    models: Mapping[str, ModelIdentity],
    cache: ScoreCache,
    units: Sequence[UnitRecord],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> LmQualitySection:
    """Each variant's perplexity against its base's on the held-out text, from the score
    cache (the units must have run); `models`: each model's cache identity; `units`: the
    held-out units' records as the executor ran them."""
    from audit.lm_quality.statistics import compare_perplexity

    records: list[LmQualityRecord] = []
    for variant, base in lm.pairs:
        base_ll, base_n = _sentence_scores(lm, base, models, cache)
        variant_ll, variant_n = _sentence_scores(lm, variant, models, cache)
        compared = compare_perplexity(
            base_ll,
            base_n,
            variant_ll,
            variant_n,
            threshold=lm.damage_threshold,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
        )
        model_type = "masked" if lm.unit_of(variant).scorer.name == "pll" else "causal"
        records.append(
            LmQualityRecord(
                variant=variant,
                base=base,
                kind=KIND_OF_TYPE[model_type],  # type: ignore[arg-type]
                scorer=SCORER_OF_TYPE[model_type],
                sentences=compared.sentences,
                base_perplexity=_perplexity(base, compared.base),
                variant_perplexity=_perplexity(variant, compared.variant),
                ratio=compared.ratio,
                ratio_ci_low=compared.ratio_low,
                ratio_ci_high=compared.ratio_high,
                damage=compared.damage,
                note=compared.note,
            )
        )
    return LmQualitySection(
        text=held_out_record(lm.text),
        damage_threshold=lm.damage_threshold,
        units=list(units),
        records=records,
    )
