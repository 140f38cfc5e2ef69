"""What in an audit limits its comparison with a paper, in words, from the facts
results.json records: the models and their sizes, how long the variants were trained, how
many items each dataset kept, and what the tests could detect.

The detection limits are results.json 4.0 fields (`detection` of a correlation or a
meta-evaluation, `detectable_difference` and `correction` of a comparison); a file
without them says so, and the limit falls back to what it has (the family's correction,
the width of the paired intervals).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from audit.report.formatting import fmt_num, join_words, plural
from audit.report.index import MeasurementIndex, unique
from audit.results import (
    ComparisonRecord,
    CorrelationRecord,
    MeasureSeries,
    MetaEvaluation,
    VariantRecord,
)

#: What a results.json written before version 4.0 lacks, in words.
BEFORE_4 = "results.json before 4.0"

#: Each correction's name for people.
_CORRECTIONS = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


def size_words(index: MeasurementIndex, model: str) -> str:
    """'minilm-mlm (22.7M parameters)'; the id alone when no size is recorded."""
    record = next((m for m in index.result.models if m.id == model), None)
    if record is None or record.n_parameters is None:
        return model
    return f"{model} ({fmt_num(record.n_parameters / 1e6, 1)}M parameters)"


def family_words(index: MeasurementIndex, models: Iterable[str]) -> str:
    """The models as their bases with sizes and how many variants of each: 'minilm-mlm
    (22.7M parameters) and 11 of its variants'."""
    models = unique(models)
    bases = unique(index.variants.base_of(m) for m in models)
    parts = []
    for base in bases:
        variants = [m for m in models if m != base and index.variants.base_of(m) == base]
        size = size_words(index, base)
        if base not in models:
            parts.append(f"{plural(len(variants), 'variant')} of {size}")
        elif variants:
            parts.append(f"{size} and {plural(len(variants), 'variant')} of it")
        else:
            parts.append(size)
    return join_words(parts)


def training_words(variants: Sequence[VariantRecord]) -> str:
    """'126 training steps on 1,000 sentences each'; ranges when the variants differ."""
    if not variants:
        return ""
    steps = sorted({v.summary.steps for v in variants})
    examples = sorted({v.training_examples for v in variants})
    step_text = (
        plural(steps[0], "training step")
        if len(steps) == 1
        else f"{fmt_num(steps[0])} to {fmt_num(steps[-1])} training steps"
    )
    sentences = (
        plural(examples[0], "sentence")
        if len(examples) == 1
        else f"{fmt_num(examples[0])} to {fmt_num(examples[-1])} sentences"
    )
    if steps == [0]:
        return f"no training steps (computed from {sentences})"
    return f"{step_text} on {sentences} each"


def items_words(index: MeasurementIndex, datasets: Iterable[str]) -> str:
    """'262 of 1,508 CrowS-Pairs items and 255 of 4,229 StereoSet items'."""
    parts = []
    for name in unique(datasets):
        record = index.dataset_record(name)
        title = index.cards.dataset_title(name)
        if record is None:
            parts.append(f"{title} (items not recorded)")
        else:
            kept, read = fmt_num(record.rows_kept), fmt_num(record.rows_read)
            parts.append(f"{kept} of {read} {title} items")
    return join_words(parts)


def task_items_words(index: MeasurementIndex, series: Iterable[MeasureSeries]) -> str:
    """'1,800 STS-bias items': the items each extrinsic task measured (the most of any
    model), from results.json `extrinsic`."""
    parts = []
    for s in unique(series):
        counts = [e.n for e in index.result.extrinsic if e.measure == s.measure]
        if counts:
            card = index.cards.card(s.measure)
            title = s.measure.name if card is None else card.short_title
            parts.append(f"{fmt_num(max(counts))} {title} items")
    return join_words(parts)


def _power_tail(detection: Any) -> str:
    return (
        f"power {fmt_num(float(detection.power_at_effect), 2)} at τ "
        f"{fmt_num(float(detection.effect_size), 2)}"
    )


def meta_power_words(meta: MetaEvaluation) -> str:
    """What the meta-evaluation's Spearman test could detect."""
    n = len(meta.models)
    detection = getattr(meta, "detection", None)
    if detection is None:
        return f"no detection limit ({BEFORE_4})"
    rho = detection.critical_spearman_rho
    need = (
        f"|ρ| ≥ {fmt_num(float(rho), 2)} needed"
        if rho is not None
        else "no |ρ| can reach significance"
    )
    return f"{plural(n, 'ratio model')}: {need}, {_power_tail(detection)}"


def correlation_power_words(records: Sequence[CorrelationRecord]) -> str:
    """What the intrinsic x extrinsic Kendall tests could detect."""
    detection = next((d for r in records if (d := getattr(r, "detection", None)) is not None), None)
    first = next((r for r in records if r.family_size), None)
    family = (
        f"{_CORRECTIONS.get(first.correction or '', 'no correction')} over "
        f"{plural(first.family_size or 0, 'test')}"
        if first is not None
        else "no test corrected"
    )
    if detection is None:
        return f"{family}; no power recorded ({BEFORE_4})"
    tau = detection.critical_kendall_tau
    need = (
        f"|τ| ≥ {fmt_num(float(tau), 2)} needed"
        if tau is not None
        else "no |τ| can reach significance"
    )
    return f"{family}: {need}, {_power_tail(detection)}"


def comparison_power_words(records: Sequence[ComparisonRecord], level: float) -> str:
    """What the paired comparisons could detect: the smallest detectable difference (4.0),
    else the half-widths of the paired intervals of the differences."""
    detectable = [
        float(d) for r in records if (d := getattr(r, "detectable_difference", None)) is not None
    ]
    corrections = unique(
        (getattr(r, "correction", None), getattr(r, "family_size", None)) for r in records
    )
    method, size = corrections[0] if len(corrections) == 1 else (None, None)
    corrected = (
        f"verdicts corrected by {_CORRECTIONS.get(method, method)} over "
        f"{plural(int(size), 'comparison')}"
        if method and size
        else f"verdicts not corrected for multiple comparisons ({BEFORE_4})"
    )
    if detectable:
        power = next(
            (p for r in records if (p := getattr(r, "detectable_power", None)) is not None), 0.8
        )
        return (
            f"smallest difference detectable at {fmt_num(100 * float(power), 0)}% power: "
            f"{fmt_num(min(detectable), 1)} to {fmt_num(max(detectable), 1)}; {corrected}"
        )
    halves = [
        (r.difference_ci_high - r.difference_ci_low) / 2
        for r in records
        if r.difference_ci_low is not None and r.difference_ci_high is not None
    ]
    if not halves:
        return corrected
    return (
        f"paired {fmt_num(100 * level, 0)}% intervals of the differences ±"
        f"{fmt_num(min(halves), 1)} to ±{fmt_num(max(halves), 1)}; {corrected}"
    )
