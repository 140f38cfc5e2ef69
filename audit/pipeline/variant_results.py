"""The variants' records of results.json: each variant as trained, the corpora they were
trained on (Table 1) and the meta-evaluation of every bias_controlled entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from audit.ids import PluginId
from audit.results import CorpusRecord, Measurement, MetaEvaluation, VariantRecord

if TYPE_CHECKING:
    import numpy as np

    from audit.extrinsic.stage import ReplicateKey
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.training import TrainedVariants
    from audit.results import ExtrinsicRecord
    from audit.studies import ItemReplicates


@dataclass
class VariantResults:
    variants: list[VariantRecord] = field(default_factory=list)
    corpora: list[CorpusRecord] = field(default_factory=list)
    meta_evaluations: list[MetaEvaluation] = field(default_factory=list)


def variant_records(
    plan: AuditPlan,
    trained: TrainedVariants,
    measurements: list[Measurement],
    extrinsic: list[ExtrinsicRecord],
    *,
    replicates: ItemReplicates | None = None,
    extrinsic_replicates: Mapping[ReplicateKey, np.ndarray] | None = None,
) -> VariantResults:
    """The variants as trained, their corpora (Table 1) and the meta-evaluation of every
    bias_controlled entry (over the intrinsic measurements and the extrinsic values; the
    series with item replicates get two-level bootstrap intervals)."""
    from audit.variants.corpus_record import corpus_record
    from audit.variants.meta_evaluation import meta_evaluate
    from audit.variants.wordlists import load_gender_word_lists

    out = VariantResults()
    variants = plan.variants
    if variants is None:
        return out
    spec = plan.loaded.spec
    for job in variants.jobs:
        stored = trained.stored[job.model_id]
        out.variants.append(
            VariantRecord(
                id=job.model_id,
                base=job.base,
                method=job.method,
                entry=job.entry,
                ratio=job.part.ratio,
                corpus=job.corpus.name,
                corpus_sha256=job.corpus.sha256,
                training_examples=job.data.n_examples(),
                training=job.describe()["training"],  # none for Self-Debias
                key=job.key,
                cached=job.model_id not in trained.trained_now,
                summary=stored.summary,
                probe=stored.probe,
            )
        )
    data_dir = plan.settings.data_dir
    if data_dir is not None:
        lists = load_gender_word_lists(data_dir)
        for sha, corpus in variants.corpora.items():
            out.corpora.append(
                corpus_record(
                    corpus,
                    lists,
                    seed=spec.seed,
                    n_bootstrap=spec.bootstrap,
                    alpha=spec.alpha,
                    used_by=variants.corpus_users[sha],
                )
            )
    probes = {v.id: v.probe for v in out.variants}
    entries: dict[str, list[VariantRecord]] = {}
    for record in out.variants:
        if record.method.name == "bias_controlled":
            entries.setdefault(record.entry, []).append(record)
    for entry, records in entries.items():
        out.meta_evaluations.append(
            meta_evaluate(
                entry=entry,
                base=records[0].base,
                ratio_models=[(r.ratio or 0.0, r.id) for r in records],
                measurements=[*measurements, *map(meta_evaluation_input, extrinsic)],
                probes=probes,
                seed=spec.seed,
                n_bootstrap=spec.bootstrap,
                alpha=spec.alpha,
                replicates=_with_extrinsic(replicates, extrinsic, extrinsic_replicates),
                correction=spec.correlations.correction,
                effect_size=spec.correlations.effect_size,
                target_power=spec.correlations.power,
            )
        )
    return out


def _with_extrinsic(
    replicates: ItemReplicates | None,
    extrinsic: list[ExtrinsicRecord],
    extrinsic_replicates: Mapping[ReplicateKey, np.ndarray] | None,
) -> ItemReplicates:
    """The intrinsic series' item replicates and the extrinsic ones, keyed as the
    meta-evaluation reads a series (`meta_evaluation_input`: the head's pooling as its
    scorer)."""
    out: ItemReplicates = {k: dict(v) for k, v in (replicates or {}).items()}
    for record in extrinsic:
        found = (extrinsic_replicates or {}).get((record.measure.key, record.dataset, record.model))
        if found is None:
            continue
        scorer = _finetune_scorer(record)
        out.setdefault((record.measure.key, record.dataset, scorer.key), {})[record.model] = found
    return out


def _finetune_scorer(record: ExtrinsicRecord) -> PluginId:
    return PluginId.of("finetune", {"pooling": record.finetune.pooling})


def meta_evaluation_input(record: ExtrinsicRecord) -> Measurement:
    """An extrinsic value as the meta-evaluation reads a series point: keyed by (task
    measure, dataset, the fine-tuned head's pooling as its scorer). Only passed to
    `meta_evaluate`; results.json keeps the value once, in `extrinsic`."""
    return Measurement(
        model=record.model,
        dataset=record.dataset,
        scorer=_finetune_scorer(record),
        measure=record.measure,
        value=record.value,
        ci_low=record.ci_low,
        ci_high=record.ci_high,
        n=record.n,
        status="ok" if record.value is not None else "undefined",
        note=record.note,
    )
