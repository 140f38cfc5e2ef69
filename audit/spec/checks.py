"""Semantic checks of a spec against the plug-in registries, and cross-references: all of
them run by `run_checks`; those of `variants` and `extrinsic` are in `training_checks.py`,
those of `gates` in `gate_checks.py`.

Everything here is light: the registries carry their metadata and options models, and
no plug-in implementation (torch, numpy, pandas) is imported. Each check returns
`Finding`s located by their path in the spec; the loader adds lines and columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from audit.measures.catalog import MEASURES
from audit.measures.seat_options import SENTENCE_SETS
from audit.scoring.catalog import SCORERS
from audit.spec.chat_checks import check_dataset_chat
from audit.spec.dataset_checks import check_dataset_paths, check_datasets, dataset_shape_of
from audit.spec.gate_checks import MODEL_TYPES, check_gates
from audit.spec.models import (
    DatasetSpec,
    GGUFSource,
    ModelSpec,
    PathSource,
    PluginRef,
    ScorerSelection,
)
from audit.spec.options_check import check_options
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.reference_findings import unknown_name
from audit.spec.sections import Items, SpecSections
from audit.spec.served_checks import check_served_models
from audit.spec.spec_paths import resolve_spec_path
from audit.spec.training_checks import check_extrinsic, check_variants


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
    findings += check_dataset_chat(sections)
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
    for model_type in MODEL_TYPES:
        fitting = [n for n in SCORERS.names() if model_type in SCORERS.entry(n).info.model_types]
        seen: set[str] = set()
        for i, ref in enumerate(getattr(scorers, model_type)):
            loc: Loc = ("scorers", model_type, i)
            if ref.name not in SCORERS:
                findings.append(unknown_name("scorer", ref.name, loc, SCORERS.names(), fitting))
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
            findings.append(unknown_name("measure", ref.name, loc, MEASURES.names()))
            continue
        if ref.label in seen:
            findings.append(Finding((*loc, "name"), f"measure '{ref.label}' is listed twice"))
        seen.add(ref.label)
        findings += check_options(
            ref.options, MEASURES.entry(ref.name).options, loc=loc, what=f"measure '{ref.name}'"
        )
    return findings


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
