"""The caveat on variants trained briefly or from small models: what their numbers show
is what the method does to this model with this training budget."""

from __future__ import annotations

from audit.report.formatting import listed, plural
from audit.report.index import MeasurementIndex
from audit.report.model import Caveat
from audit.report.studies import StudyData
from audit.results import VariantRecord

#: Fewer parameters than BERT-base (110 million): a small model.
SMALL_MODEL = 100_000_000
#: Fewer optimiser steps than this: a short training.
FEW_STEPS = 1_000


def _millions(n: int) -> str:
    """'22.7 million', '100 million', '1.2 billion'."""
    value, unit = (n / 1e6, "million") if n < 1e9 else (n / 1e9, "billion")
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


def small_variants_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Variants trained for few steps or from small models: what their numbers show is what
    the method does to this model with this budget. Built from each variant's steps and
    its base's parameter count in results.json. A variant with 0 steps was not trained
    (a post-hoc projection, Self-Debias): it has no training budget to qualify."""
    parameters = {m.id: m.n_parameters for m in index.result.models}

    def small_base(v: VariantRecord) -> bool:
        n = parameters.get(v.base)
        return n is not None and n < SMALL_MODEL

    found: list[str] = []
    short: list[int] = []
    small: dict[str, int] = {}
    for entry, records in index.variants.entries().items():
        trained = [v for v in records if v.summary.steps > 0]
        flagged = [v for v in trained if v.summary.steps < FEW_STEPS or small_base(v)]
        if not flagged:
            continue
        first = flagged[0]
        steps = sorted({v.summary.steps for v in flagged})
        short += [n for n in steps if n < FEW_STEPS]
        n_base = parameters.get(first.base)
        if small_base(first) and n_base is not None:
            small[first.base] = n_base
        size = f"{_millions(n_base)} parameters" if n_base is not None else "size not recorded"
        step_text = (
            f"{steps[0]:,} steps" if len(steps) == 1 else f"{steps[0]:,} to {steps[-1]:,} steps"
        )
        who = first.id if len(flagged) == 1 else f"{entry} ({len(flagged)} models)"
        each = " each" if len(flagged) > 1 else ""
        found.append(
            f"{who}: {step_text}{each} on {plural(first.training_examples, 'sentence')} "
            f"from {first.base} ({size})"
        )
    if not found:
        return None
    how = []
    if short:
        low, high = min(short), max(short)
        how.append(f"for {low:,} steps" if low == high else f"for {low:,} to {high:,} steps")
    if small:
        sizes = ", ".join(f"{base} has {_millions(n)}" for base, n in small.items())
        how.append(f"from base models under {_millions(SMALL_MODEL)} parameters ({sizes})")
    unlike = (
        "BERT-size models (110 million parameters and more) trained for longer"
        if small
        else "these models trained for longer"
    )
    title = (
        "Variants of small models, briefly trained"
        if small and short
        else "Variants of small models"
        if small
        else "Briefly trained variants"
    )
    return Caveat(
        id="small-variants",
        title=title,
        text=f"These variants were trained {', '.join(how)}. Their numbers show what each "
        "method does to these models with this training budget, not what it would do to "
        f"{unlike}, as in the papers the methods come from. Read a variant's difference from "
        "its base as evidence about this model only.",
        trigger=listed(found),
    )
