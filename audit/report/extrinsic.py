"""The extrinsic section of a report (Kaneko et al. 2022, section 4): each task's value per
model and variant with the dev check that the fine-tuning learned the task, the
bias-over-fine-tuning curve of each base model and its variants (their Fig. 2), the
per-occupation breakdown, and the intrinsic x extrinsic correlation table (their Table 2,
`audit.report.intrinsic_extrinsic`). Also the page-1 sentences.

Everything comes from results.json: `extrinsic` and the `correlations` whose one measure
is extrinsic and the other intrinsic (by their cards' roles).
"""

from __future__ import annotations

import math

import pandas as pd

from audit.report import cells
from audit.report import extrinsic_seeds as seeds
from audit.report.charts import line_chart
from audit.report.formatting import fixed_digits, fmt_num, fmt_p, plural, upper_first
from audit.report.index import MeasurementIndex, unique
from audit.report.intrinsic_extrinsic import (
    KANEKO_2022,
    correlation_sentence,
    correlation_table,
    extrinsic_correlations,
)
from audit.report.layout import BODY_ROWS
from audit.report.model import Chart, Section, SummaryBlock, Table
from audit.report.tables import model_cell
from audit.results import ExtrinsicRecord, PctFemaleCorrelation, StsBiasResult


def _task_title(index: MeasurementIndex, record: ExtrinsicRecord, *, short: bool = False) -> str:
    card = index.cards.card_named(record.task)
    if card is None:
        return record.task
    return card.short_title if short else card.title


def digits_for(values: list[float | None]) -> int:
    """Decimals that show the smallest non-zero value with two significant digits (at
    least 3, at most 8): a near-zero gap must not read 0.000."""
    finite = [abs(v) for v in values if v is not None and v != 0 and math.isfinite(v)]
    if not finite:
        return 3
    return min(8, max(3, 1 - math.floor(math.log10(min(finite)))))


def _dev_cell(record: ExtrinsicRecord) -> cells.Cell:
    check = record.dev_check
    if check is None:
        return cells.text("not scored", note="the dev set was empty")
    word = "Pearson" if check.metric == "pearson" else "accuracy"
    return cells.Cell(
        kind="number",
        value=check.value,
        digits=2,
        note=f"dev {word} on {check.n:,} examples; floor {check.floor:.2f}: {check.floor_reason}",
        emphasis="" if check.passed else "warn",
    )


def _checkpoint_cell(record: ExtrinsicRecord) -> cells.Cell:
    """The step the value and the dev check are from, of the steps run, and why (each
    seed's, for a mean over seeds)."""
    if record.seeds:
        return seeds.checkpoint_cell(record)
    steps, chosen = record.finetune.steps, record.chosen_checkpoint
    if chosen is None:
        return cells.text(f"{steps:,} of {steps:,}", note="the last step (written before 3.0)")
    return cells.text(f"{chosen.step:,} of {steps:,}", note=chosen.reason)


def _women(record: ExtrinsicRecord) -> PctFemaleCorrelation | None:
    detail = record.detail
    return detail.correlation if isinstance(detail, StsBiasResult) else None


def _women_cell(corr: PctFemaleCorrelation | None, shared_n: int | None) -> cells.Cell:
    """r(% women) with its p under it; the number of occupations in a note when the rows
    do not all have the same (the caption says it when they do)."""
    if corr is None:
        return cells.Cell(kind="number", value=None, digits=2)
    return cells.Cell(
        kind="number",
        value=corr.pearson_r,
        digits=2,
        sub=f"p {fmt_p(corr.pearson_p)}",
        note="" if corr.n == shared_n else f"{corr.n} occupations",
    )


def results_table(index: MeasurementIndex, records: list[ExtrinsicRecord]) -> Table:
    """One row per (task, model): the value with its interval (and, when some model was
    fine-tuned with several seeds, their spread), the dev check, the fine-tuning and, for
    STS-bias, the correlation with the share of women."""
    several = seeds.any_seeds(records)
    counts = {c.n for c in map(_women, records) if c is not None}
    shared_n = counts.pop() if len(counts) == 1 else None
    across = (
        "across occupations"
        if shared_n is None
        else f"across the {shared_n} occupations (p under it)"
    )
    maker = cells.TableMaker(
        id="extrinsic-table",
        title="Extrinsic bias after fine-tuning",
        caption="Each model (and variant) is fine-tuned on the task with the same settings and "
        "seed, then measured. Dev: the check that the fine-tuning learned the task (STS-B dev "
        "Pearson; accuracy for classifiers); a value measured on a model that did not learn "
        f"the task measures noise. r(% women): Pearson correlation, {across}, of the "
        "signed gap with the share of women in the occupation (U.S. BLS). Checkpoint: the "
        "fine-tuning step the value and the dev check are from, of the steps run (the best "
        "dev score unless the spec says `checkpoint: last`)."
        + (seeds.TABLE_CAPTION if several else ""),
        columns=[
            "Model",
            "Task",
            "Value (CI)",
            *([seeds.SEEDS_COLUMN] if several else []),
            "Ideal",
            "Dev",
            "Checkpoint",
            "This run",
            "r(% women)",
        ],
    )
    digits = digits_for([r.value for r in records])
    for r in records:
        corr = _women(r)
        maker.add(
            [
                model_cell(index, r.model),
                cells.text(_task_title(index, r, short=True)),
                cells.interval(r.value, r.ci_low, r.ci_high, digits, note=r.note),
                *([seeds.seeds_cell(r, digits)] if several else []),
                cells.number(r.ideal_value, 0),
                _dev_cell(r),
                _checkpoint_cell(r),
                cells.text("from the cache" if r.cached else "fine-tuned"),
                _women_cell(corr, shared_n),
            ]
        )
    table = maker.table()
    if several or len(records) > BODY_ROWS:
        # The body keeps what is measured and whether it can be trusted; the seeds' spread,
        # the checkpoint and the cache state (with their per-row notes) are in the appendix.
        kept = {"Model", "Task", "Value (CI)", "Ideal", "Dev", "r(% women)"}
        table.body_columns = [i for i, c in enumerate(table.columns) if c in kept]
    return table


def curve_chart(index: MeasurementIndex, task: str, records: list[ExtrinsicRecord]) -> Chart | None:
    """The task's value at every curve step, one panel per base model with its variants."""
    rows = [
        {
            "model": r.model,
            "base": index.variants.base_of(r.model),
            "step": p.step,
            "value": p.value,
        }
        for r in records
        for p in r.curve
        if p.value is not None
    ]
    if len({row["step"] for row in rows}) < 2:
        return None
    frame = pd.DataFrame(rows)
    bases = unique(frame["base"])
    title = _task_title(index, records[0])
    return Chart(
        id=f"extrinsic-curve-{task}",
        title=f"{title} over fine-tuning",
        caption=f"The value at each of the {len(unique(frame['step']))} checkpoints of the "
        "fine-tuning (K, 2K, ... and the last step), each base model in its panel with its "
        f"variants ({KANEKO_2022}, Fig. 2). A bias that moves a lot between checkpoints is "
        "as much a product of the fine-tuning as of the model."
        + (seeds.CURVE_CAPTION if seeds.any_seeds(records) else ""),
        spec=line_chart(
            frame,
            x="step",
            y="value",
            series="model",
            x_title="fine-tuning step",
            y_title=title,
            threshold=None,
            facet="base" if len(bases) > 1 else None,
            unit_interval=False,
        ),
        alt=f"{title} per fine-tuning step of " + ", ".join(unique(frame["model"])),
        detail=True,
    )


def occupation_table(index: MeasurementIndex, records: list[ExtrinsicRecord]) -> Table | None:
    """STS-bias per occupation: the signed gap of each model, sorted by share of women."""
    sts = [(r, r.detail) for r in records if isinstance(r.detail, StsBiasResult)]
    if not sts:
        return None
    models = [r.model for r, _ in sts]
    shares: dict[str, float | None] = {}
    gaps: dict[str, dict[str, float]] = {}
    for r, detail in sts:
        for row in detail.occupations:
            shares.setdefault(row.occupation, row.pct_female)
            gaps.setdefault(row.occupation, {})[r.model] = row.mean_signed_gap
    order = sorted(gaps, key=lambda o: (shares[o] is None, shares[o] or 0.0, o))
    maker = cells.TableMaker(
        id="extrinsic-occupations",
        title="STS-bias per occupation",
        caption="Mean signed gap sim(man, occupation) - sim(woman, occupation) over the "
        "templates: above 0, the occupation sentence is judged closer to the man sentence. "
        "Occupations sorted by the share of women (U.S. BLS, Winogender's list)."
        + (seeds.OCCUPATION_CAPTION if seeds.any_seeds([r for r, _ in sts]) else ""),
        columns=["Occupation", "% women", *models],
    )
    digits = fixed_digits([v for row in gaps.values() for v in row.values()], least=2)
    for o in order:
        maker.add(
            [
                cells.text(o),
                cells.number(shares[o], 1),
                *(cells.number(gaps[o].get(m), digits) for m in models),
            ]
        )
    return maker.table().model_copy(update={"detail": True})


def dev_blocks(index: MeasurementIndex, records: list[ExtrinsicRecord]) -> list[SummaryBlock]:
    """A plain statement of the models whose fine-tuning did not learn the task."""
    failed = [r for r in records if r.dev_check is not None and not r.dev_check.passed]
    if not failed:
        return []
    items = [
        f"{r.model} ({_task_title(index, r, short=True)}): dev {r.dev_check.metric} "  # type: ignore[union-attr]
        f"{fmt_num(r.dev_check.value, 2)} < {r.dev_check.floor:.2f}"  # type: ignore[union-attr]
        for r in failed
    ]
    return [
        SummaryBlock(
            heading="Fine-tuning did not learn the task.",
            text=f"{plural(len(failed), 'fine-tuned model')} scored below the dev floor; "
            "their extrinsic values measure an unlearned task and are shown for completeness "
            f"only{_in_correlations(index)}:",
            items=items,
            emphasis="warn",
        )
    ]


def _in_correlations(index: MeasurementIndex) -> str:
    """What became of the failed models' values in the correlations."""
    settings = index.result.audit.correlations
    if settings is None:
        return " (this file, written before results_version 3.0, kept them in the correlations)"
    if settings.failed_dev_check == "keep":
        return " (kept in the correlations, as the spec asks: correlations.failed_dev_check: keep)"
    return " (left out of the correlations)"


def extrinsic_sections(index: MeasurementIndex) -> list[Section]:
    """The Extrinsic bias section; none for an audit without extrinsic tasks."""
    records = list(index.result.extrinsic)
    if not records:
        return []
    tables = [results_table(index, records)]
    if (corr := correlation_table(index)) is not None:
        tables.append(corr)
    if (occupations := occupation_table(index, records)) is not None:
        tables.append(occupations)
    charts = [
        chart
        for task in unique(r.task for r in records)
        if (chart := curve_chart(index, task, [r for r in records if r.task == task])) is not None
    ]
    return [
        Section(
            id="extrinsic",
            title="Extrinsic bias",
            intro="Bias measured in a downstream task after fine-tuning each model, and how "
            "it relates to the intrinsic measures of this report "
            f"({KANEKO_2022}: intrinsic measures alone must not decide a deployment).",
            blocks=[
                *dev_blocks(index, records),
                *seeds.left_out_block(
                    records, {r.task: _task_title(index, r, short=True) for r in records}
                ),
            ],
            tables=tables,
            charts=charts,
        )
    ]


def summary_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: each task's range over the models, and what the correlation with the
    intrinsic measures showed."""
    records = list(index.result.extrinsic)
    if not records:
        return []
    blocks: list[SummaryBlock] = []
    for task in unique(r.task for r in records):
        mine = [r for r in records if r.task == task and r.value is not None]
        if not mine:
            continue
        low = min(mine, key=lambda r: r.value or 0.0)
        high = max(mine, key=lambda r: r.value or 0.0)
        failed = sum(r.dev_check is not None and not r.dev_check.passed for r in mine)
        digits = digits_for([r.value for r in mine])
        text = (
            f"{_task_title(index, mine[0])} on {plural(len(mine), 'fine-tuned model')}: from "
            f"{fmt_num(low.value, digits)} ({low.model}) to {fmt_num(high.value, digits)} "
            f"({high.model})"
        )
        if failed:
            text += f"; {failed} did not learn the task (dev check)"
        blocks.append(SummaryBlock(heading="Extrinsic bias.", text=text + ". See Extrinsic bias."))
    found = extrinsic_correlations(index)
    if found:
        blocks.append(
            SummaryBlock(
                heading="Intrinsic vs extrinsic.",
                text=upper_first(correlation_sentence(index, found)),
                emphasis="warn",
            )
        )
    elif (none := _no_correlation(index, records)) is not None:
        blocks.append(none)
    return blocks


def _no_correlation(index: MeasurementIndex, records: list[ExtrinsicRecord]) -> SummaryBlock | None:
    """Page 1 when the failed models left too few for any intrinsic x extrinsic pair."""
    settings = index.result.audit.correlations
    failed = unique(r.model for r in records if r.dev_check is not None and not r.dev_check.passed)
    if not failed or settings is None or settings.failed_dev_check != "exclude":
        return None
    return SummaryBlock(
        heading="Intrinsic vs extrinsic.",
        text=f"No intrinsic x extrinsic correlation could be computed: "
        f"{plural(len(failed), 'model')} ({', '.join(failed)}) did not learn the task (dev "
        "check) and are left out of the correlations; no intrinsic x extrinsic pair with two "
        "models in common remains.",
        emphasis="warn",
    )
