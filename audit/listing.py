"""Plain-text listings for the CLI: registries (`audit list`) and plans (`audit plan`)."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from audit.registry import Registry

if TYPE_CHECKING:
    from audit.engine import Prepared
    from audit.measures.base import MeasureCard
    from audit.scoring.cache import ScoreCache


def _registry(kind: str) -> Registry[object]:
    if kind == "datasets":
        from audit.data.catalog import DATASETS

        return DATASETS  # type: ignore[return-value]
    if kind == "scorers":
        from audit.scoring.catalog import SCORERS

        return SCORERS  # type: ignore[return-value]
    if kind == "measures":
        from audit.measures.catalog import MEASURES

        return MEASURES  # type: ignore[return-value]
    if kind == "variants":
        from audit.variants.catalog import VARIANTS

        return VARIANTS
    raise ValueError(f"unknown registry kind {kind!r}")


def format_card(card: MeasureCard, indent: str = "    ") -> str:
    """A measure card as indented plain text."""
    lines = [
        f"{card.title}",
        f"What: {card.what}",
        f"Inputs: {card.inputs}",
        f"Direction: {card.direction}",
        f"Ideal: {card.ideal}",
        f"Citation: {card.citation}",
        "Limitations:",
        *[f"  - {item}" for item in card.limitations],
    ]
    wrapped = [textwrap.fill(line, 96, subsequent_indent="  ") for line in lines]
    return textwrap.indent("\n".join(wrapped), indent)


def describe_registry(kind: str, *, verbose: bool = False) -> str:
    """One line per registered name with its summary; measure cards with `verbose`."""
    registry = _registry(kind)
    entries = registry.entries()
    if not entries:
        return f"no {kind} registered yet"
    width = max(len(e.name) for e in entries)
    lines: list[str] = []
    for entry in entries:
        extra = ""
        if kind == "scorers":
            info = entry.meta["info"]
            extra = f" [{'/'.join(sorted(info.model_types))}]"  # type: ignore[attr-defined]
        elif "applies_to" in entry.meta:
            extra = f" [{entry.meta['applies_to']}]"
        elif "shape" in entry.meta:
            extra = f" [{entry.meta['shape']}]"
        lines.append(f"{entry.name:<{width}}  {entry.summary}{extra}")
        card = entry.meta.get("card")
        if verbose and card is not None:
            lines.append(format_card(card))  # type: ignore[arg-type]
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
        measures = [t.label for t in prepared.plan.measures if t.unit == unit]
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
            f"  {unit.model} x {unit.dataset} x {unit.label} -> "
            f"{', '.join(measures) or '-'}{cached}"
        )
    for task in prepared.plan.corpus_measures:
        lines.append(f"  corpus measure: {task.label}")
    if prepared.plan.skipped:
        lines.append("Skipped:")
        for skipped in prepared.plan.skipped:
            lines.append(
                f"  {skipped.model} x {skipped.dataset} x {skipped.scorer}: {skipped.reason}"
            )
    return "\n".join(lines)
