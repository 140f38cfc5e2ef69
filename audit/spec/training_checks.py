"""Checks of the spec's sections that train: `variants` (known methods with valid options,
a base among the spec's models, a corpus where the method trains on one, unique model
ids) and `extrinsic` (known tasks, each once, fine-tunable models of the spec, a
fine-tuning long enough to learn the task)."""

from __future__ import annotations

from collections.abc import Mapping

from audit.spec.models import ExtrinsicSpec, ModelSpec, VariantSpec
from audit.spec.problems import Finding, Loc, show
from audit.spec.reference_findings import named_plugin, not_in_spec, unknown_name
from audit.spec.sections import Items
from audit.variants.catalog import VARIANT_METHODS, output_only_variants
from audit.variants.settings import BUILTIN_CORPUS_NAMES


def _variant_corpus(variant: VariantSpec, loc: Loc) -> list[Finding]:
    """A training method without a corpus, or a scoring-time method (Self-Debias) with
    one (an unknown method is reported by `_named_plugin`)."""
    if variant.method not in VARIANT_METHODS.names():
        return []
    needs = VARIANT_METHODS.entry(variant.method).needs_corpus
    if needs and variant.corpus is None:
        return [
            Finding(
                (*loc, "corpus"),
                f"method {variant.method} trains on a corpus and none is given; add one, "
                "e.g. `corpus: sts_b` or `corpus: {path: my.txt}`",
            )
        ]
    if not needs and variant.corpus is not None:
        return [
            Finding(
                (*loc, "corpus"),
                f"method {variant.method} reads no corpus (it changes the output "
                "distribution at scoring time); remove `corpus`",
            )
        ]
    return []


def check_variants(variants: Items[VariantSpec], models: Items[ModelSpec] | None) -> list[Finding]:
    """Known methods with valid options, `base` naming one of the spec's models, and
    variant model ids (ratio models included) unique among models and variants."""
    from audit.variants.methods.options import BiasControlledOptions

    findings: list[Finding] = []
    model_ids: dict[str, str] = {}
    if models is not None:
        model_ids = {m.id: f"models[{i}]" for i, m in models.valid()}
    taken = dict(model_ids)
    for i, variant in variants.valid():
        loc: Loc = ("variants", i)
        findings += named_plugin(
            "variant method", VARIANT_METHODS, variant.method, variant.options, loc, "method"
        )
        if models is not None and models.complete and variant.base not in model_ids:
            findings.append(
                not_in_spec("model", variant.base, (*loc, "base"), list(model_ids), "models")
            )
        findings += _variant_corpus(variant, loc)
        corpus = variant.corpus.name if variant.corpus is not None else None
        if corpus is not None and corpus not in BUILTIN_CORPUS_NAMES:
            findings.append(
                unknown_name(
                    "built-in corpus", corpus, (*loc, "corpus"), list(BUILTIN_CORPUS_NAMES)
                )
            )
        ids = [variant.id]
        if variant.method == "bias_controlled":
            from audit.variants.methods.bias_controlled import ratio_suffix

            try:
                ratios = BiasControlledOptions.model_validate(variant.options).ratios
            except ValueError:
                ratios = []
            ids = [variant.id + ratio_suffix(r) for r in ratios]
        for model_id in ids:
            if model_id in taken:
                findings.append(
                    Finding(
                        (*loc, "id"),
                        f"variant model id '{model_id}' is already used by {taken[model_id]}",
                        expected="an id no model or other variant uses",
                    )
                )
            else:
                taken[model_id] = f"variants[{i}]"
    return findings


def check_extrinsic(
    tasks: Items[ExtrinsicSpec],
    models: Items[ModelSpec] | None,
    variants: Items[VariantSpec] | None,
) -> list[Finding]:
    """Known tasks with valid options, each task once, and `models` naming models or
    variants of the spec, none of them a variant that cannot be fine-tuned (its method
    changes only the output distribution: Self-Debias); a task that brings such a
    variant in with its base (or by default) leaves it out, with a warning."""
    from audit.extrinsic.catalog import EXTRINSIC_TASKS

    findings: list[Finding] = []
    known: list[str] | None = None
    if models is not None and models.complete:
        known = [m.id for _, m in models.valid()]
        if variants is not None and variants.complete:
            known += [v.id for _, v in variants.valid()]
    spec_variants = [v for _, v in variants.valid()] if variants is not None else []
    output_only = output_only_variants(spec_variants)
    bases = {v.id: v.base for v in spec_variants}
    first: dict[str, int] = {}
    for i, task in tasks.valid():
        loc: Loc = ("extrinsic", i)
        findings += named_plugin(
            "extrinsic task", EXTRINSIC_TASKS, task.task, task.options, loc, "task"
        )
        if task.task in first:
            findings.append(
                Finding(
                    (*loc, "task"),
                    f"extrinsic task '{task.task}' is listed twice (first as "
                    f"extrinsic[{first[task.task]}])",
                    expected="each task once",
                )
            )
        first.setdefault(task.task, i)
        findings += _warn_finetune_budget(task, loc)
        for j, model_id in enumerate(task.models or []):
            if model_id in output_only:
                findings.append(_output_only_named(model_id, output_only[model_id], loc, j))
            elif known is not None and model_id not in known:
                findings.append(
                    not_in_spec("model", model_id, (*loc, "models", j), known, "models")
                )
        brought = [
            v
            for v in output_only
            if task.models is None or (v not in task.models and bases[v] in task.models)
        ]
        if brought:
            findings.append(_output_only_left_out(task.task, brought, output_only, loc))
    return findings


def _output_only_named(model_id: str, method: str, loc: Loc, j: int) -> Finding:
    from audit.extrinsic.settings import OUTPUT_ONLY_REASON

    return Finding(
        (*loc, "models", j),
        f"variant '{model_id}' cannot be fine-tuned: "
        f"{OUTPUT_ONLY_REASON.format(method=method)}; leave it out of `models`",
        got=show(model_id),
    )


def _output_only_left_out(
    task: str, brought: list[str], output_only: Mapping[str, str], loc: Loc
) -> Finding:
    from audit.extrinsic.settings import OUTPUT_ONLY_REASON

    why = "; ".join(f"'{v}': {OUTPUT_ONLY_REASON.format(method=output_only[v])}" for v in brought)
    return Finding(
        loc,
        f"extrinsic task '{task}' leaves out {', '.join(repr(v) for v in brought)} ({why})",
        severity="warning",
    )


def _warn_finetune_budget(task: ExtrinsicSpec, loc: Loc) -> list[Finding]:
    """Warnings about a fine-tuning too short to learn the task (`audit.extrinsic.budget`),
    judged by the task's known training size; `audit plan` judges it by the data read."""
    from audit.extrinsic.budget import budget_warnings
    from audit.extrinsic.catalog import EXTRINSIC_TASKS

    if task.task not in EXTRINSIC_TASKS:
        return []
    n_train = EXTRINSIC_TASKS.entry(task.task).training_examples
    return [
        Finding((*loc, "finetune", w.field), w.message, severity="warning")
        for w in budget_warnings(task.finetune, n_train)
    ]
