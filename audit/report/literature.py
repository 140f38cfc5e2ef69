"""The report's "Compared with the literature" section: for each study of results.json
that a source paper also ran, the paper's headline figure (with its table and page) beside
this audit's, whether they agree, and what in this audit limits the comparison.

- a meta-evaluation (`meta_evaluations`) against Kaneko et al. 2023's order of measures;
- the intrinsic x extrinsic correlations (`correlations` of an intrinsic with an extrinsic
  measure) against Kaneko et al. 2022, Table 2;
- debiased variants (`variants` without a ratio, their `comparisons` with the base)
  against the direction of debiasing in Kaneko et al. 2022, Figure 1.

The papers' numbers are in `audit.report.literature_figures`, the verdicts in
`audit.report.literature_agreement`, the limits in `audit.report.literature_limits`. An
audit with none of these studies has no such section.
"""

from __future__ import annotations

from audit.report import cells
from audit.report.formatting import join_words
from audit.report.index import MeasurementIndex, unique
from audit.report.intrinsic_extrinsic import extrinsic_correlations
from audit.report.literature_agreement import (
    EMPHASIS,
    Finding,
    correlation_finding,
    direction_finding,
    order_finding,
)
from audit.report.literature_figures import (
    KANEKO_2022_FIGURE_1,
    KANEKO_2022_TABLE_2,
    KANEKO_2023_TABLE_1,
    Figure,
)
from audit.report.literature_limits import (
    comparison_power_words,
    correlation_power_words,
    family_words,
    items_words,
    meta_power_words,
    size_words,
    task_items_words,
    training_words,
)
from audit.report.model import Cell, Section, Table
from audit.results import MeasureSeries, MetaEvaluation, VariantRecord

SECTION_ID = "literature"
TITLE = "Compared with the literature"
COLUMNS = ["Study", "Paper's figure", "This audit", "Agrees?", "What limits the comparison"]


def short(index: MeasurementIndex, series: MeasureSeries) -> str:
    """A series in few words: 'Bias score on StereoSet (sss)', 'STS-bias'."""
    card = index.cards.card(series.measure)
    title = series.measure.name if card is None else card.short_title
    if series.scorer is None:
        return title
    return f"{title} on {index.cards.dataset_title(series.dataset)} ({series.scorer.label})"


def _row(study: Cell, figure: Figure, headline: str, finding: Finding, limits: str) -> list[Cell]:
    return [
        study,
        cells.text(headline, sub=figure.source()),
        cells.text(finding.audit),
        cells.verdict(finding.verdict, EMPHASIS[finding.verdict], note=finding.why),
        cells.text(limits),
    ]


def meta_row(index: MeasurementIndex, meta: MetaEvaluation) -> list[Cell]:
    """A meta-evaluation against Kaneko et al. 2023's order of measures."""
    figure = KANEKO_2023_TABLE_1
    finding = order_finding(figure, meta, index.cards)
    records = [r for m in meta.models if (r := index.variants.get(m)) is not None]
    missing = [
        m.name
        for m in figure.order
        if not any((r.measure.name, r.scorer.name) == (m.measure, m.scorer) for r in meta.rows)
    ]
    limits = [
        f"{len(meta.models)} ratio models of {size_words(index, meta.base)}",
        training_words(records),
        items_words(index, unique(m.dataset for m in figure.order)),
        meta_power_words(meta),
    ]
    if missing:
        limits.append(f"not measured here: {join_words(missing)}")
    study = cells.text(f"Meta-evaluation {meta.entry}", sub=f"ratio models of {meta.base}")
    return _row(study, figure, figure.headline(), finding, "; ".join(filter(None, limits)))


def correlation_row(index: MeasurementIndex) -> list[Cell] | None:
    """The intrinsic x extrinsic correlations against Kaneko et al. 2022, Table 2."""
    found = extrinsic_correlations(index)
    if not found:
        return None
    figure = KANEKO_2022_TABLE_2
    finding = correlation_finding(figure, found, index.result.alpha, lambda s: short(index, s))
    tasks = unique(c.y for c in found)
    paper_tasks = [c.extrinsic for c in figure.cells]
    absent = unique(t.name for t in paper_tasks if all(s.measure.name != t.measure for s in tasks))
    models = unique(m for c in found for m in c.models)
    limits = [
        family_words(index, models),
        items_words(index, unique(c.x.dataset for c in found)),
        task_items_words(index, tasks),
        correlation_power_words(found),
    ]
    if absent:
        limits.append(f"not measured here: {join_words(absent)}")
    study = cells.text(
        "Intrinsic against extrinsic",
        sub=join_words([short(index, t) for t in tasks]),
    )
    return _row(study, figure, figure.headline(), finding, "; ".join(filter(None, limits)))


def _debiased(index: MeasurementIndex) -> list[VariantRecord]:
    return [v for v in index.variants.records.values() if v.ratio is None]


def debiasing_row(index: MeasurementIndex) -> list[Cell] | None:
    """Debiased variants against the direction of debiasing in Kaneko et al. 2022."""
    variants = _debiased(index)
    if not variants:
        return None
    figure = KANEKO_2022_FIGURE_1
    methods = {m.method for m in figure.methods}
    types = {m.id: m.model_type for m in index.result.models}
    same = [v for v in variants if v.method.name in methods and types.get(v.base) == "masked"]
    others = [v for v in variants if v not in same]
    names = join_words([v.id for v in same])
    study = cells.text("Debiasing", sub=join_words(unique(v.base for v in variants)))
    paper_methods = join_words([m.name for m in figure.methods])
    if not same:
        described = join_words([index.variants.describe(v.id) for v in variants])
        finding = Finding(
            audit=f"variants here: {described}",
            verdict="not comparable",
            why=f"the paper debiased masked LMs with {paper_methods} only",
        )
        none = "no variant made by the paper's methods"
        return _row(study, figure, figure.headline(), finding, none)
    ids = {v.id for v in same}
    records = [
        c
        for c in index.result.comparisons
        if c.model_a in ids and index.variants.is_base_comparison(c)
    ]
    finding = direction_finding(figure, records, names, index.cards)
    shown = [
        c
        for c in records
        if c.group == "all"
        and any(
            (c.measure.name, c.scorer.name, c.dataset) == (m.measure, m.scorer, m.dataset)
            for m in figure.measures
        )
    ]
    limits = [
        join_words([size_words(index, b) for b in unique(v.base for v in same)]),
        training_words(same),
        items_words(index, unique(m.dataset for m in figure.measures)),
        comparison_power_words(shown, 1 - index.result.alpha),
    ]
    if others:
        limits.append(
            f"left out: {join_words([v.id for v in others])} (the paper studied "
            f"{paper_methods} on masked LMs only)"
        )
    return _row(study, figure, figure.headline(), finding, "; ".join(filter(None, limits)))


def literature_table(index: MeasurementIndex) -> Table | None:
    """One row per study a source paper also ran; None when there is none."""
    rows = [meta_row(index, m) for m in index.result.meta_evaluations]
    rows += [r for r in (correlation_row(index), debiasing_row(index)) if r is not None]
    if not rows:
        return None
    maker = cells.TableMaker(
        id="literature-table",
        title="This audit beside its source papers",
        caption="Agrees: this audit's result is the paper's, told apart by its own tests; "
        "cannot tell: ties, too few models or too little power leave it open; disagrees: "
        "told apart and opposite; not comparable: not measured as the paper did. The notes "
        "say why.",
        columns=COLUMNS,
    )
    for row in rows:
        maker.add(row)
    return maker.table().model_copy(update={"long_rows": True})


def literature_section(index: MeasurementIndex) -> Section | None:
    """The section, or None when results.json has no study a source paper also ran."""
    table = literature_table(index)
    if table is None:
        return None
    return Section(
        id=SECTION_ID,
        title=TITLE,
        intro="Each study of this audit that a source paper also ran, beside the paper's "
        "headline figure (with its table and page), and what in this audit limits the "
        "comparison: a different model, shorter training, fewer items, less power.",
        tables=[table],
    )
