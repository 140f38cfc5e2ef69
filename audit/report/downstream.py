"""Debiasing, intrinsic and downstream side by side (Kaneko et al. 2022, "Debiasing isn't
enough"): per debiased variant, what its paired comparisons with its base found on the
intrinsic benchmarks and on each extrinsic task it was fine-tuned on (the mean over its
fine-tuning seeds), each family corrected on its own; and page 1's sentence on the
downstream family.

Read from results.json's `comparisons` (the downstream ones carry `test_family`
"variants against their base, downstream") and `extrinsic` (the seeds behind each mean).
"""

from __future__ import annotations

from audit.report import cells
from audit.report.comparison_verdicts import (
    EMPHASIS,
    MOVED,
    detectable_words,
    distinct,
    family_words,
    moved_words,
    tally,
)
from audit.report.extrinsic import digits_for
from audit.report.formatting import fmt_num, fmt_p, join_words, plural, upper_first
from audit.report.index import MeasurementIndex, unique
from audit.report.model import SummaryBlock, Table
from audit.results import ComparisonRecord, ExtrinsicRecord
from audit.results.studies import DOWNSTREAM_FAMILY


def downstream_records(index: MeasurementIndex) -> list[ComparisonRecord]:
    """The debiased variants against their base on the extrinsic tasks."""
    return [c for c in index.result.comparisons if c.test_family == DOWNSTREAM_FAMILY]


def _extrinsic(
    index: MeasurementIndex, model: str, record: ComparisonRecord
) -> ExtrinsicRecord | None:
    return next(
        (
            r
            for r in index.result.extrinsic
            if r.model == model and r.measure == record.measure and r.dataset == record.dataset
        ),
        None,
    )


def _seed_words(record: ExtrinsicRecord | None) -> str:
    if record is None or not record.seeds:
        return "1 seed"
    kept = sum(s.kept for s in record.seeds)
    spread = (
        f", sd {fmt_num(record.seed_sd, digits_for([record.seed_sd]))}" if record.seed_sd else ""
    )
    return f"mean of {kept} seeds{spread}"


def _largest_intrinsic(mine: list[ComparisonRecord], index: MeasurementIndex) -> cells.Cell:
    """The intrinsic change largest in size relative to what could be detected: the moved
    ones first (largest |change|), else the largest |change| / detectable difference."""
    found = [r for r in distinct(mine) if r.difference is not None]
    if not found:
        return cells.text("—")
    moved = [r for r in found if r.verdict in MOVED]

    def size(r: ComparisonRecord) -> float:
        scale = r.detectable_difference or 1.0
        return abs(r.difference or 0.0) / scale

    best = max(moved, key=lambda r: abs(r.difference or 0.0)) if moved else max(found, key=size)
    digits = cells.digits_for([best.value_a, best.value_b])
    change = f"{best.difference:+.{digits}f}"
    if best.difference_ci_low is not None and best.difference_ci_high is not None:
        change += f" [{best.difference_ci_low:+.{digits}f}, {best.difference_ci_high:+.{digits}f}]"
    return cells.text(
        change,
        sub=f"{index.cards.name(best.measure)}, {index.cards.dataset_title(best.dataset)} "
        f"({best.scorer.label}): {best.verdict}",
    )


def downstream_table(index: MeasurementIndex) -> Table | None:
    """One row per debiased variant and extrinsic task: the intrinsic comparisons counted
    by verdict and the largest of them, then the task's value of the base and the variant,
    their difference with its interval, the corrected p and the verdict."""
    downstream = downstream_records(index)
    if not downstream:
        return None
    intrinsic = [
        c
        for c in index.result.comparisons
        if c.test_family != DOWNSTREAM_FAMILY and index.variants.is_base_comparison(c)
    ]
    maker = cells.TableMaker(
        id="debiasing-downstream",
        title="Debiasing, intrinsic and downstream",
        caption="Each debiased variant against its base: on the intrinsic benchmarks (its "
        "distinct paired comparisons, counted by verdict after the correction over "
        f"{family_words(intrinsic, short=True) or 'their family'}, and the largest change, "
        "moved or not, relative to what could be detected), and after fine-tuning on the "
        "downstream task (the mean over the fine-tuning seeds, the difference's interval "
        "resampling the task's items and each model's seeds; corrected over "
        f"{family_words(downstream, short=True)}). Kaneko et al. 2022 found that debiased "
        "MLMs re-learn bias in downstream fine-tuning.",
        columns=[
            "Variant (of base)",
            "Intrinsic: distinct comparisons",
            "Largest intrinsic change (CI)",
            "Task",
            "Base → variant",
            "Variant − base (CI)",
            "p (corr.)",
            "Downstream",
        ],
    )
    for record in downstream:
        mine = [c for c in intrinsic if c.model_a == record.model_a]
        base = _extrinsic(index, record.model_b, record)
        variant = _extrinsic(index, record.model_a, record)
        digits = digits_for([record.value_a, record.value_b])
        title = index.cards.card_named(variant.task if variant else "")
        task = title.short_title if title is not None else record.measure.label
        maker.add(
            [
                cells.text(
                    record.model_a,
                    sub=f"{index.variants.method_words(record.model_a)} of {record.model_b}",
                ),
                cells.text(tally(mine, short=True) if mine else "—"),
                _largest_intrinsic(mine, index),
                cells.text(task, sub=f"{plural(record.n_items, 'item')}"),
                cells.text(
                    f"{fmt_num(record.value_b, digits)} → {fmt_num(record.value_a, digits)}",
                    sub=f"{_seed_words(base)}; {_seed_words(variant)}",
                ),
                cells.interval(
                    record.difference, record.difference_ci_low, record.difference_ci_high, digits
                ),
                cells.text(
                    fmt_p(record.difference_p_corrected), sub=f"raw {fmt_p(record.difference_p)}"
                ),
                cells.verdict(record.verdict, EMPHASIS[record.verdict], note=record.note),
            ]
        )
    return maker.table()


def downstream_block(index: MeasurementIndex) -> SummaryBlock | None:
    """Page 1: the debiased variants against their base downstream, counted after the
    correction, what moved and what could not have been detected."""
    records = downstream_records(index)
    if not records:
        return None
    tasks = unique(r.measure.label for r in records)
    seeds = unique(_seed_words(_extrinsic(index, r.model_a, r)).split(",")[0] for r in records)
    text = (
        f"Of {plural(len(distinct(records)), 'debiased variant')} fine-tuned on "
        f"{join_words(tasks)} ({join_words(seeds)}) beside their base "
        f"({family_words(records, short=True)}): {tally(records, short=True)}"
    )
    extra = [detectable_words(records, index.cards)]
    text += "".join(f". {upper_first(e)}" for e in extra if e) + "."
    moved = moved_words(records, index.cards)
    return SummaryBlock(heading="Debiasing, downstream.", text=text, items=moved)
