"""Semantic checks of a spec against the plug-in registries, and cross-references.

Everything here is light: the registries carry their metadata and options models, and
no plug-in implementation (torch, numpy, pandas) is imported. Each check returns
`Finding`s located by their path in the spec; the loader adds lines and columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from audit.measures.catalog import MEASURES
from audit.measures.seat_options import SENTENCE_SETS
from audit.registry import Registry, did_you_mean
from audit.scoring.catalog import SCORERS
from audit.spec.dataset_checks import check_dataset_paths, check_datasets, dataset_shape_of
from audit.spec.models import (
    DatasetSpec,
    ExtrinsicSpec,
    GateSpec,
    GGUFSource,
    ModelSpec,
    PathSource,
    PluginRef,
    ScorerSelection,
    VariantSpec,
)
from audit.spec.options_check import check_options
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.sections import Items, SpecSections
from audit.spec.served_checks import check_served_models
from audit.spec.spec_paths import resolve_spec_path
from audit.variants.catalog import VARIANT_METHODS, output_only_variants
from audit.variants.settings import BUILTIN_CORPUS_NAMES

_MODEL_TYPES = ("masked", "causal")
T = TypeVar("T")


def run_checks(sections: SpecSections, *, base_dir: Path | None = None) -> list[Finding]:
    """Every semantic error and warning of a spec. Parts that are None are skipped.

    `base_dir` is the folder relative file paths are read from (the spec file's folder);
    with it, a dataset file that does not exist is an error (the run reads it here) and a
    model path that does not exist a warning.
    """
    findings: list[Finding] = []
    if sections.models is not None:
        findings += check_model_ids(sections.models)
        if base_dir is not None:
            findings += warn_missing_model_paths(sections.models, base_dir)
    if sections.datasets is not None:
        findings += check_datasets(sections.datasets)
        if base_dir is not None:
            findings += check_dataset_paths(sections.datasets, base_dir)
    if sections.scorers is not None:
        findings += check_scorers(sections.scorers)
    if sections.measures is not None:
        findings += check_measures(sections.measures)
        if sections.datasets is not None:
            findings += warn_unused_measures(sections.measures, sections.datasets)
    if sections.variants is not None:
        findings += check_variants(sections.variants, sections.models)
    if sections.extrinsic is not None:
        findings += check_extrinsic(sections.extrinsic, sections.models, sections.variants)
    if sections.gates is not None:
        findings += check_gates(sections.gates, sections)
    findings += check_served_models(sections)
    return findings


def check_model_ids(models: Items[ModelSpec]) -> list[Finding]:
    """Model ids name results and reports, so each may appear once."""
    findings = []
    first: dict[str, int] = {}
    for i, model in models.valid():
        if model.id in first:
            findings.append(
                Finding(
                    ("models", i, "id"),
                    f"model id '{model.id}' is used twice (first by models[{first[model.id]}])",
                    expected="a unique id per model",
                )
            )
        else:
            first[model.id] = i
    return findings


def check_scorers(scorers: ScorerSelection) -> list[Finding]:
    """Known names, fitting model type, valid options, no repeats within a list."""
    findings: list[Finding] = []
    for model_type in _MODEL_TYPES:
        fitting = [n for n in SCORERS.names() if model_type in SCORERS.entry(n).info.model_types]
        seen: set[str] = set()
        for i, ref in enumerate(getattr(scorers, model_type)):
            loc: Loc = ("scorers", model_type, i)
            if ref.name not in SCORERS:
                findings.append(_unknown("scorer", ref.name, loc, SCORERS.names(), fitting))
                continue
            types = SCORERS.entry(ref.name).info.model_types
            if model_type not in types:
                kinds = " and ".join(sorted(types))
                findings.append(
                    Finding(
                        (*loc, "name"),
                        f"scorer '{ref.name}' scores {kinds} models, not {model_type} ones",
                        got=show(ref.name),
                        expected=f"a {model_type} scorer: {one_of(fitting)}",
                    )
                )
                continue
            if ref.label in seen:
                findings.append(Finding((*loc, "name"), f"scorer '{ref.label}' is listed twice"))
            seen.add(ref.label)
            findings += check_options(
                ref.options,
                SCORERS.entry(ref.name).options,
                loc=loc,
                what=f"scorer '{ref.name}'",
            )
    return findings


def check_measures(measures: Items[PluginRef]) -> list[Finding]:
    """Known names, valid options, no repeats."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, ref in measures.valid():
        loc: Loc = ("measures", i)
        if ref.name not in MEASURES:
            findings.append(_unknown("measure", ref.name, loc, MEASURES.names()))
            continue
        if ref.label in seen:
            findings.append(Finding((*loc, "name"), f"measure '{ref.label}' is listed twice"))
        seen.add(ref.label)
        findings += check_options(
            ref.options, MEASURES.entry(ref.name).options, loc=loc, what=f"measure '{ref.name}'"
        )
    return findings


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
        findings += _named_plugin(
            "variant method", VARIANT_METHODS, variant.method, variant.options, loc, "method"
        )
        if models is not None and models.complete and variant.base not in model_ids:
            findings.append(
                _not_in_spec("model", variant.base, (*loc, "base"), list(model_ids), "models")
            )
        findings += _variant_corpus(variant, loc)
        corpus = variant.corpus.name if variant.corpus is not None else None
        if corpus is not None and corpus not in BUILTIN_CORPUS_NAMES:
            findings.append(
                _unknown("built-in corpus", corpus, (*loc, "corpus"), list(BUILTIN_CORPUS_NAMES))
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
        findings += _named_plugin(
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
                    _not_in_spec("model", model_id, (*loc, "models", j), known, "models")
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


def check_gates(gates: Items[GateSpec], sections: SpecSections) -> list[Finding]:
    """A gate must name a measure, dataset, model and scorer that the spec has.

    A cross-reference is checked only when the list it refers to validated whole.
    """
    findings: list[Finding] = []
    measures = _names(sections.measures, lambda m: m.name)
    registry_only = measures is not None and any(name not in MEASURES for name in measures)
    if registry_only:
        # A misspelt measure is reported where it is misspelt; a gate on the measure
        # meant is right as it is, so gates are checked against the registry only.
        measures = None
    models = _names(sections.models, lambda m: m.id)
    datasets = None
    if sections.datasets is not None and sections.datasets.complete:
        datasets = {d.name: d for _, d in sections.datasets.valid()}
    for i, gate in gates.valid():
        loc: Loc = ("gates", i)
        if gate.measure in MEASURES and MEASURES.entry(gate.measure).shape == SENTENCE_SETS:
            findings.append(_ungateable(gate.measure, (*loc, "measure"), measures))
            continue
        if measures is not None and gate.measure not in measures:
            findings.append(
                _not_in_spec("measure", gate.measure, (*loc, "measure"), measures, "measures")
            )
        elif registry_only and gate.measure not in MEASURES:
            hint = did_you_mean(gate.measure, MEASURES.names())
            findings.append(
                Finding(
                    (*loc, "measure"),
                    f"unknown measure '{gate.measure}'" + (f"; {hint}" if hint else ""),
                    got=show(gate.measure),
                    expected=one_of(MEASURES.names(), "measure"),
                )
            )
        if datasets is not None and gate.dataset not in datasets:
            findings.append(
                _not_in_spec("dataset", gate.dataset, (*loc, "dataset"), list(datasets), "datasets")
            )
        if models is not None and gate.model is not None and gate.model not in models:
            findings.append(_not_in_spec("model", gate.model, (*loc, "model"), models, "models"))
        if sections.scorers is not None and gate.scorer is not None:
            used = [r.name for t in _MODEL_TYPES for r in getattr(sections.scorers, t)]
            if gate.scorer not in used:
                findings.append(
                    _not_in_spec("scorer", gate.scorer, (*loc, "scorer"), used, "scorers")
                )
        if datasets is not None and gate.dataset in datasets and gate.measure in MEASURES:
            findings += _gate_shape(gate, datasets[gate.dataset], loc)
    return findings


def _ungateable(measure: str, loc: Loc, in_spec: list[str] | None) -> Finding:
    """A gate on SEAT (shape sentence_sets): its results are per-test effect sizes with a
    permutation p-value and no confidence interval, and a gate is judged on the interval;
    they are not measurements of a spec dataset either."""
    names = in_spec if in_spec is not None else MEASURES.names()
    gateable = [n for n in names if n in MEASURES and MEASURES.entry(n).shape != SENTENCE_SETS]
    return Finding(
        loc,
        f"measure '{measure}' cannot be gated: SEAT reports per test an effect size and a "
        "permutation p-value, with no confidence interval, and a gate is judged on the "
        "interval (it passes only when the whole interval lies in its band); read SEAT in "
        "the report, and gate a measure that has an interval",
        got=show(measure),
        expected=one_of(gateable, "measure with a confidence interval"),
    )


def _gate_shape(gate: GateSpec, dataset: DatasetSpec, loc: Loc) -> list[Finding]:
    measure_fits = MEASURES.entry(gate.measure).shape
    data_holds = dataset_shape_of(dataset)
    if data_holds is None or data_holds == measure_fits:
        return []
    return [
        Finding(
            (*loc, "dataset"),
            f"measure '{gate.measure}' applies to {measure_fits} datasets, but "
            f"'{dataset.name}' holds {data_holds}",
            got=show(dataset.name),
            expected=f"a {measure_fits} dataset",
        )
    ]


def warn_unused_measures(measures: Items[PluginRef], datasets: Items[DatasetSpec]) -> list[Finding]:
    """A measure whose data shape none of the datasets has computes nothing. SEAT (shape
    sentence_sets) reads its own test files from `<data dir>/seat/`, not the spec's
    datasets: planning the run checks that folder (`audit.pipeline.seat_plan`)."""
    shapes = {dataset_shape_of(d) for _, d in datasets.valid()}
    if None in shapes or not datasets.complete:
        return []  # a broken or unknown dataset is already an error; do not guess
    findings = []
    for i, ref in measures.valid():
        if ref.name not in MEASURES or (fits := MEASURES.entry(ref.name).shape) == SENTENCE_SETS:
            continue
        if fits not in shapes:
            reason = unused_measure_reason(ref.name, fits, shapes)
            findings.append(Finding(("measures", i), reason, severity="warning"))
    return findings


#: What a dataset of each shape holds, in words.
SHAPE_WORDS = {
    "pairs": "pairs of a stereotypical and an anti-stereotypical sentence",
    "labelled": "sentences labelled harmful or benign",
    "choices": "multiple-choice questions",
}


def shape_needs(fits: str) -> str:
    """Datasets of shape `fits` in words, naming built-ins of that shape:
    'labelled datasets (sentences labelled harmful or benign, such as toxigen)'."""
    from audit.data.catalog import DATASETS

    examples = [e.name for e in DATASETS.entries() if e.card.shape == fits][:2]
    what = SHAPE_WORDS.get(fits)
    such_as = f"such as {' or '.join(examples)}" if examples else ""
    parts = ", ".join(x for x in (what, such_as) if x)
    return f"{fits} datasets" + (f" ({parts})" if parts else "")


def held_shapes(held: Iterable[str | None]) -> str:
    """'pairs', 'labelled and pairs' (or 'nothing')."""
    return " and ".join(sorted(str(s) for s in held if s is not None)) or "nothing"


def unused_measure_reason(measure: str, fits: str, held: Iterable[str | None]) -> str:
    """Why a measure that reads `fits` datasets computes nothing on datasets of `held`
    shapes: one sentence without its full stop."""
    return (
        f"measure '{measure}' applies to {shape_needs(fits)}, but the spec's datasets hold "
        f"only {held_shapes(held)}: it will compute nothing"
    )


def warn_missing_model_paths(models: Items[ModelSpec], base_dir: Path) -> list[Finding]:
    """Local model paths that do not exist here (they may on the machine that runs it)."""
    findings = []
    for i, model in models.valid():
        source = model.source
        if isinstance(source, PathSource):
            key, value = "path", source.path
        elif isinstance(source, GGUFSource):
            key, value = "gguf", source.gguf
        else:
            continue
        findings += _warn_missing(value, ("models", i, "source", key), base_dir)
    return findings


def _warn_missing(value: str, loc: Loc, base_dir: Path) -> list[Finding]:
    resolved = resolve_spec_path(value, base_dir)
    if resolved.exists():
        return []
    return [
        Finding(
            loc,
            "no such file or folder on this machine; the run fails unless it exists where "
            "the audit runs",
            got=str(resolved),
            severity="warning",
        )
    ]


def _names(items: Items[T] | None, name_of: Callable[[T], str]) -> list[str] | None:
    """The names in a list that validated whole; None when it did not (or is missing)."""
    if items is None or not items.complete:
        return None
    return [name_of(item) for _, item in items.valid()]


def _unknown(
    kind: str, name: str, loc: Loc, known: list[str], suggested: list[str] | None = None
) -> Finding:
    message = f"unknown {kind} '{name}'"
    hint = did_you_mean(name, known)
    if hint:
        message += f"; {hint}"
    listed = known if suggested is None else suggested
    return Finding((*loc, "name"), message, expected=one_of(listed, kind))


def _named_plugin(
    kind: str,
    registry: Registry[Any, Any],
    name: str,
    options: Mapping[str, Any],
    loc: Loc,
    key: str,
) -> list[Finding]:
    """The finding of an unknown plug-in name (the spec entry at `loc` names it in `key`),
    else those of its options."""
    if name not in registry:
        return [_unknown(kind, name, (*loc, key), registry.names())]
    return check_options(
        options, registry.entry(name).options, loc=(*loc, "options"), what=f"{kind} '{name}'"
    )


def _not_in_spec(kind: str, name: str, loc: Loc, present: list[str], section: str) -> Finding:
    message = f"{kind} '{name}' is not in `{section}` of this spec"
    hint = did_you_mean(name, present)
    if hint:
        message += f"; {hint}"
    return Finding(loc, message, got=show(name), expected=one_of(present))
