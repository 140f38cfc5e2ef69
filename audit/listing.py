"""Plain-text listings for the CLI: registries (`audit list`) and plans (`audit plan`)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry

if TYPE_CHECKING:
    from audit.engine import Prepared
    from audit.scoring.cache import ScoreCache


def _registry(kind: str) -> Registry[Any, Any]:
    if kind == "datasets":
        from audit.data.catalog import DATASETS

        return DATASETS
    if kind == "scorers":
        from audit.scoring.catalog import SCORERS

        return SCORERS
    if kind == "measures":
        from audit.measures.catalog import MEASURES

        return MEASURES
    if kind == "variants":
        from audit.variants.catalog import VARIANT_METHODS

        return VARIANT_METHODS
    if kind == "extrinsic":
        from audit.extrinsic.catalog import EXTRINSIC_TASKS

        return EXTRINSIC_TASKS
    raise ValueError(f"unknown registry kind {kind!r}")


def format_card(card: PluginCard, indent: str = "    ") -> str:
    """A plug-in card's long texts as indented plain text (those it has)."""
    lines = [card.title]
    for heading, text in (
        ("What", card.what),
        ("Inputs", card.inputs),
        ("Direction", card.direction),
        ("Ideal", card.ideal),
        ("Citation", card.citation),
    ):
        if text:
            lines.append(f"{heading}: {text}")
    if card.roles:
        lines.append(f"Roles: {', '.join(card.roles)}")
    if card.limitations:
        lines += ["Limitations:", *[f"  - {item}" for item in card.limitations]]
    wrapped = [textwrap.fill(line, 96, subsequent_indent="  ") for line in lines]
    return textwrap.indent("\n".join(wrapped), indent)


def _shape_note(entry: PluginEntry) -> str:
    model_types = getattr(entry, "model_types", None)
    info = getattr(entry, "info", None)
    if info is not None:
        model_types = info.model_types
    types = f"{'/'.join(sorted(model_types))} LMs, " if model_types else ""
    return f" [{types}{entry.shape}]"


def describe_registry(kind: str, *, verbose: bool = False) -> str:
    """One line per registered name with its summary; the cards with `verbose`."""
    registry = _registry(kind)
    entries = sorted(registry.entries(), key=lambda e: e.name)
    if not entries:
        return f"no {kind} registered yet"
    width = max(len(e.name) for e in entries)
    lines: list[str] = []
    for entry in entries:
        lines.append(f"{entry.name:<{width}}  {entry.summary}{_shape_note(entry)}")
        if verbose:
            lines.append(format_card(entry.card))
            lines.append("")
    return "\n".join(lines)


def describe_plan(prepared: Prepared, cache: ScoreCache | None = None) -> str:
    """What `audit run` would do: datasets, models, units (with how much of each is
    already in the score cache), measures, and what is skipped and why."""
    lines = ["Datasets:"]
    for ds in prepared.datasets.values():
        lines.append(f"  {ds.name}: {ds.shape}, {ds.rows_kept} items ({ds.source})")
    lines.append("Models:")
    for model_id, model in prepared.models.items():
        lines.append(
            f"  {model_id}: {model.model_type} LM, {model.resolved.source}, "
            f"fingerprint {model.fingerprint[:12]}, {model.precision}"
        )
    lines.append("Scoring units (model x dataset x scorer):")
    for unit in prepared.plan.units:
        measures = [t.measure.label for t in prepared.plan.measures if t.unit == unit]
        cached = ""
        if cache is not None:
            from audit.scoring.runner import cached_entries

            model = prepared.models[unit.model]
            total, found = cached_entries(
                unit,
                dataset=prepared.datasets[unit.dataset],
                cache=cache,
                fingerprint=model.fingerprint,
                precision=model.precision,
            )
            cached = f" [{found}/{total} cached]"
        lines.append(
            f"  {unit.model} x {unit.dataset} x {unit.scorer.label} -> "
            f"{', '.join(measures) or '-'}{cached}"
        )
    for task in prepared.plan.corpus_measures:
        lines.append(f"  corpus measure: {task.measure.label}")
    if prepared.plan.skipped:
        lines.append("Skipped:")
        for skipped in prepared.plan.skipped:
            lines.append(
                f"  {skipped.model} x {skipped.dataset} x {skipped.scorer.label}: {skipped.reason}"
            )
    return "\n".join(lines)
