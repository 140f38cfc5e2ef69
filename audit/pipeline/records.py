"""The records of results.json that describe what was audited: the audit's settings,
the datasets, the models (a variant named by its cache key), the plug-in cards used,
and the settings the cross-model studies take from the plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.models.prepared import read_facts
from audit.models.served import ServedFacts
from audit.results import (
    AuditInfo,
    BootstrapSettings,
    ChatTemplateRecord,
    ComparisonSettings,
    CorrelationSettings,
    DatasetChatRecord,
    DatasetRecord,
    EndpointRecord,
    ModelRecord,
    RobustnessSettings,
)
from audit.studies import StudySettings

if TYPE_CHECKING:
    from audit.cards import PluginCard
    from audit.data.items import LoadedDataset
    from audit.models.chat_template import ChatFormat
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.worker import RunModels
    from audit.spec.loader import LoadedSpec
    from audit.spec.models import DatasetSpec


def audit_info(loaded: LoadedSpec) -> AuditInfo:
    """What was audited, by whom, with which statistical settings (results.json `audit`)."""
    spec = loaded.spec
    robustness = spec.robustness
    return AuditInfo(
        name=spec.name,
        owner=spec.owner,
        description=spec.description,
        spec_path=str(loaded.path),
        spec_sha256=loaded.sha256,
        seed=spec.seed,
        alpha=spec.alpha,
        bootstrap=BootstrapSettings(resamples=spec.bootstrap, level=1 - spec.alpha),
        robustness=None
        if robustness is None
        else RobustnessSettings(
            rates=list(robustness.rates),
            repeats=robustness.repeats,
            agreement=robustness.agreement,
            seed=robustness.seed,
        ),
        correlations=CorrelationSettings(
            correction=spec.correlations.correction,
            failed_dev_check=spec.correlations.failed_dev_check,
            effect_size=spec.correlations.effect_size,
            power=spec.correlations.power,
        ),
        comparisons=ComparisonSettings(
            correction=spec.comparisons.correction, power=spec.comparisons.power
        ),
        report_formats=list(spec.report.formats),
    )


def study_settings(plan: AuditPlan, models: RunModels) -> StudySettings:
    """What the cross-model studies take from the plan: variants follow their base and
    are compared with it only."""
    spec = plan.loaded.spec
    return StudySettings(
        model_order=models.ids(),
        variant_bases=plan.variant_bases(),
        seed=spec.seed,
        alpha=spec.alpha,
        bootstrap=spec.bootstrap,
        robustness=spec.robustness,
        correction=spec.correlations.correction,
        keep_failed_dev_check=spec.correlations.failed_dev_check == "keep",
        effect_size=spec.correlations.effect_size,
        power=spec.correlations.power,
        comparison_correction=spec.comparisons.correction,
        comparison_power=spec.comparisons.power,
        ratio_models=frozenset(plan.ratio_models()),
        model_types={model_id: model.model_type for model_id, model in models.items()},
    )


def model_records(plan: AuditPlan, models: RunModels) -> list[ModelRecord]:
    """Every model in run order; a trained variant's source is its cache key, not the
    cache path."""
    jobs = {job.model_id: job for job in plan.variant_jobs}
    records = []
    for model_id, model in models.items():
        job = jobs.get(model_id)
        source = (
            model.resolved.source
            if job is None
            else f"variant:{job.key[:16]} ({job.method.label} of {job.base})"
        )
        facts = read_facts(plan.settings.cache_dir, model.fingerprint)
        records.append(
            ModelRecord(
                id=model.spec.id,
                source=source,
                model_type=model.model_type,  # type: ignore[arg-type]
                fingerprint=model.fingerprint,
                n_parameters=facts.get("n_parameters"),  # type: ignore[arg-type]
                device=model.device,
                precision=model.precision,
                endpoint=None if model.served is None else endpoint_record(model.served),
                chat_template=chat_record(model.chat),
            )
        )
    return records


def endpoint_record(facts: ServedFacts) -> EndpointRecord:
    """A served model's facts as results.json keeps them (no credentials in any)."""
    return EndpointRecord(
        url=facts.endpoint,
        model=facts.model,
        server_model=facts.server_model,
        revision=facts.revision,
        bos_text=facts.bos_text,
        probe_digest=facts.probe_digest,
        probe_verdict=facts.probe_verdict,
        probe_changed_from=facts.changed_from,
        logprobs_request=facts.logprobs_request,
    )


def chat_record(chat: ChatFormat | None) -> ChatTemplateRecord | None:
    """A chat template as results.json keeps it (None: raw text)."""
    if chat is None:
        return None
    return ChatTemplateRecord(
        source=chat.source, sha256=chat.sha256, system_prompt=chat.system_prompt
    )


def dataset_chat_record(dataset: DatasetSpec, models: RunModels) -> DatasetChatRecord | None:
    """A dataset's own chat template and what each model's prompts of it were wrapped in;
    None when the dataset gives none (its models' own apply)."""
    if dataset.chat_template is None:
        return None
    return DatasetChatRecord(
        setting=dataset.chat_template,
        system_prompt=dataset.system_prompt,
        models={
            model_id: chat_record(model.chat_for(dataset.name))
            for model_id, model in models.items()
            if dataset.name in model.dataset_chats.names()
        },
    )


def dataset_record(ds: LoadedDataset, chat: DatasetChatRecord | None = None) -> DatasetRecord:
    from collections import Counter

    if ds.shape == "pairs":
        counts = Counter(item.bias_type for item in ds.pair_items())
    elif ds.shape == "choices":
        counts = Counter(item.bias_type for item in ds.choice_items())
    else:
        counts = Counter(g for item in ds.labelled_items() for g in item.groups)
    return DatasetRecord(
        name=ds.name,
        shape=ds.shape,
        source=ds.source,
        sha256=ds.sha256,
        rows_read=ds.rows_read,
        rows_kept=ds.rows_kept,
        skipped=ds.skipped,
        filtered=ds.filtered,
        groups=dict(sorted(counts.items())),
        chat_template=chat,
    )


def used_plugin_cards(plan: AuditPlan) -> list[PluginCard]:
    """The cards of the built-in datasets, scorers and measures this run used, each kind
    in its registry's order (the report takes the first `headline` measure it finds)."""
    from audit.data.catalog import DATASETS
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import SCORERS

    scoring = plan.scoring
    datasets = set(plan.datasets)
    scorers = {u.scorer.name for u in scoring.units} | {s.scorer.name for s in scoring.skipped}
    measures = {t.measure.name for t in scoring.measures} | {
        t.measure.name for t in scoring.corpus_measures
    }
    measures |= {run.measure.name for run in plan.seat.runs} if plan.seat is not None else set()
    cards: list[PluginCard] = []
    for registry, used in ((DATASETS, datasets), (SCORERS, scorers), (MEASURES, measures)):
        cards.extend(e.card for e in registry.entries() if e.name in used)
    if plan.variants is not None:
        from audit.variants.catalog import VARIANT_METHODS

        methods = {job.method.name for job in plan.variants.jobs}
        cards.extend(e.card for e in VARIANT_METHODS.entries() if e.name in methods)
    if plan.extrinsic:
        from audit.extrinsic.catalog import EXTRINSIC_TASKS

        tasks = {t.name for t in plan.extrinsic}
        cards.extend(e.card for e in EXTRINSIC_TASKS.entries() if e.name in tasks)
    return cards
