"""The studies around the measures: robustness to dataset size, correlation between
measures, and model comparisons. Each appears when results.json holds its records and is
otherwise shown as not run, with the reason."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from audit.report import cells
from audit.report import correlation_words as words
from audit.report.cards import MeasureCards
from audit.report.charts import heatmap, line_chart
from audit.report.comparison_table import comparison_table
from audit.report.formatting import fmt_num, fmt_pct, group_name, plural
from audit.report.index import VariantLookup
from audit.report.model import Caveat, Chart, Study, Table
from audit.results import AuditResult, ComparisonRecord, CorrelationRecord, RobustnessRecord

#: Each study's section id and title.
STUDY_TITLES = {
    "robustness": "Robustness to dataset size",
    "correlation": "Correlation between measures",
    "comparison": "Paired comparison of models",
}


def _not_run(study_id: str, why: str) -> Study:
    return Study(
        id=study_id, title=STUDY_TITLES[study_id], ran=False, not_run_reason=f"Not run: {why}."
    )


def _ran(study_id: str, tables: list[Table], charts: list[Chart] | None = None) -> Study:
    return Study(
        id=study_id, title=STUDY_TITLES[study_id], ran=True, tables=tables, charts=charts or []
    )


@dataclass
class StudyData:
    """The study records of a result (robustness, correlations, comparisons)."""

    result: AuditResult
    cards: MeasureCards
    robustness: list[RobustnessRecord] = field(default_factory=list)
    correlations: list[CorrelationRecord] = field(default_factory=list)
    comparisons: list[ComparisonRecord] = field(default_factory=list)

    @classmethod
    def of(cls, result: AuditResult) -> StudyData:
        return cls(
            result=result,
            cards=MeasureCards.of(result),
            robustness=list(result.robustness),
            correlations=list(result.correlations),
            comparisons=list(result.comparisons),
        )

    def caveats(self) -> list[Caveat]:
        fragile = [r for r in self.robustness if r.verdict == "not robust"]
        if not fragile:
            return []
        where = "; ".join(
            dict.fromkeys(
                f"{self.cards.title(r.measure)}"
                + (f" ({group_name(r.group)})" if r.group != "all" else "")
                + f" on {r.dataset} ({self.cards.scorer_name(r.scorer)}) at rate "
                f"{fmt_num(r.rate, 2)}: agreement {fmt_pct(r.agreement_share)} "
                f"< {fmt_pct(r.required_share)}"
                for r in fragile
            )
        )
        return [
            Caveat(
                id="non-robust",
                title="Measures not robust at small sampling rates",
                text="On seeded random subsets of the data these measures did not keep the "
                "full-data ordering of the models (and each model's side of the ideal "
                "value) often enough. On a dataset of that size their ranking of models is "
                "not reliable.",
                trigger=where,
                citation="Liu 2024, Fig. 5",
            )
        ]


def robustness_study(data: StudyData) -> Study:
    """Per measure and sampling rate: model means and spreads, agreement share, verdict."""
    if not data.robustness:
        requested = data.result.audit.robustness is not None
        reason = (
            "results.json holds no robustness records"
            if requested
            else "the spec has no robustness section"
        )
        return _not_run("robustness", reason)
    models = list(dict.fromkeys(m.model for r in data.robustness for m in r.models))
    maker = cells.TableMaker(
        id="robustness-table",
        title="Robustness across sampling rates",
        caption="Per rate: each model's mean ± spread (standard deviation) over the draws; "
        "ordering / side: share of draws keeping the full-data ordering of the models / every "
        "model's side of the ideal value; agreement: both at once.",
        columns=[
            "Dataset",
            "Measure",
            "Rate",
            "Items",
            *models,
            "Ordering",
            "Side",
            "Agreement",
            "Verdict",
        ],
        key_columns=2,
    )
    rows = []
    fragile: list[int] = []
    for r in data.robustness:
        per_model = {m.model: m for m in r.models}
        digits = cells.digits_for([m.mean for m in r.models])
        emphasis = {"robust": "good", "not robust": "bad"}.get(r.verdict, "warn")
        title = data.cards.title(r.measure)
        measure = title + (f" ({group_name(r.group)})" if r.group != "all" else "")
        row = [
            cells.text(r.dataset),
            cells.text(measure, note=f"scored by {data.cards.scorer_name(r.scorer)}"),
            cells.number(r.rate, 2),
            cells.count(r.n_items),
        ]
        for model in models:
            m = per_model.get(model)
            row.append(cells.mean_sd(m.mean, m.spread, digits) if m else cells.text("—"))
        row += [
            cells.Cell(kind="pct", value=r.ordering_share),
            cells.Cell(kind="pct", value=r.side_share),
            cells.Cell(kind="pct", value=r.agreement_share),
            cells.verdict(r.verdict, emphasis, note=r.note),
        ]
        maker.add(row)
        if r.verdict == "not robust":
            fragile.append(len(maker.rows) - 1)
        rows.append(
            {"rate": r.rate, "agreement": r.agreement_share, "measure": title, "dataset": r.dataset}
        )
    threshold = float(data.robustness[0].required_share or 0.95)
    frame = pd.DataFrame(rows).dropna(subset=["agreement"])
    charts = []
    if not frame.empty:
        charts.append(
            Chart(
                id="robustness-chart",
                title="Agreement with the full data across sampling rates",
                caption="Share of seeded subsamples that keep the full-data result, per "
                f"sampling rate (Liu 2024, Fig. 5); the dashed line is the required share "
                f"{threshold:g}.",
                spec=line_chart(
                    frame,
                    x="rate",
                    y="agreement",
                    series="measure",
                    x_title="sampling rate",
                    y_title="agreement share",
                    threshold=threshold,
                    facet="dataset" if frame["dataset"].nunique() > 1 else None,
                ),
                alt="Agreement share per sampling rate for each measure",
            )
        )
    table = maker.table().model_copy(update={"key_rows": fragile, "key_rows_words": "not robust"})
    return _ran("robustness", [table], charts)


def _min_models(alpha: float) -> int:
    """The fewest models whose exact Kendall test can reach p <= alpha at all (2/n!)."""
    n = 2
    while 2.0 / math.factorial(n) > alpha:
        n += 1
    return n


def correlation_study(data: StudyData) -> Study:
    """Correlations between measures across models: table and heatmap. Each series is a
    measure on a dataset (and scorer), as each model's distance to the measure's ideal; the
    p-values are shown raw and corrected for multiple comparisons."""
    n_models = len(data.result.models)
    alpha = data.result.alpha
    if not data.correlations:
        fewest = _min_models(alpha)
        why = (
            f"only {plural(n_models, 'model')}; at least {fewest} are needed before an exact "
            f"Kendall test can reach p <= {alpha:g} at all"
            if n_models < fewest
            else "results.json holds no correlation records"
        )
        return _not_run("correlation", why)
    records = data.correlations
    maker = cells.TableMaker(
        id="correlation-table",
        title="Correlation between measures across models",
        caption="Each measure enters as each model's distance to its ideal value (under each "
        "measure, its direction). Pearson r, Spearman ρ and Kendall τ with their p-values; "
        f"{words.correction_sentence(records)} MI: mutual information (Kraskov k-NN "
        "estimate, nats). A row is conclusive only when its corrected Kendall test can "
        "reach significance with its number of models.",
        columns=[
            "Measure X",
            "Measure Y",
            "Models",
            "Pearson r",
            "p",
            "p (corr.)",
            "Spearman ρ",
            "p",
            "p (corr.)",
            "Kendall τ",
            "p",
            "p (corr.)",
            "MI",
        ],
        key_columns=2,
    )
    if excluded := words.excluded_sentence(records):
        maker.extra_notes.append(excluded)
    heat: list[dict[str, Any]] = []
    key_rows = [i for i, r in enumerate(records) if words.significant(r, alpha)]
    rank = sorted(range(len(records)), key=lambda i: -words.strength(records[i]))
    for r in records:
        x, y = words.series_name(data.cards, r.x), words.series_name(data.cards, r.y)
        note = "; ".join(filter(None, [r.note, words.mixed_note(r)]))
        if not r.conclusive and not note:
            note = "too few models: no correlation can be concluded"
        maker.add(
            [
                cells.text(x, sub=words.direction(data.cards, r.x)),
                cells.text(y, sub=words.direction(data.cards, r.y)),
                cells.Cell(
                    kind="count",
                    value=float(r.n),
                    note=note,
                    emphasis="warn" if r.mixes_families or not r.conclusive else "",
                ),
                cells.number(r.pearson_r, 2),
                cells.pvalue(r.pearson_p),
                cells.pvalue(r.pearson_p_corrected),
                cells.number(r.spearman_rho, 2),
                cells.pvalue(r.spearman_p),
                cells.pvalue(r.spearman_p_corrected),
                cells.number(r.kendall_tau, 2),
                cells.pvalue(r.kendall_p),
                cells.pvalue(r.kendall_p_corrected),
                cells.number(r.mutual_information, 2),
            ]
        )
        rho = r.spearman_rho
        if rho is not None:
            heat += [{"a": x, "b": y, "value": rho}, {"a": y, "b": x, "value": rho}]
    charts = []
    if heat:
        names = list(dict.fromkeys(h["a"] for h in heat))
        heat += [{"a": n, "b": n, "value": 1.0} for n in names]
        charts.append(
            Chart(
                id="correlation-chart",
                title="Spearman correlation between measures",
                caption="Rank correlation of the measures' distances to their ideal values "
                "across the audited models (Liu 2024, Fig. 4); uncorrected, see the table "
                "for the tests.",
                spec=heatmap(pd.DataFrame(heat), title="Spearman ρ"),
                alt="Heatmap of Spearman correlations between measures",
                detail=True,
            )
        )
    # The body keeps every row significant after correction, then the strongest |τ|.
    table = maker.table().model_copy(
        update={
            "key_rows": key_rows,
            "key_rows_words": "significant after correction",
            "rank": rank,
            "body_limit": words.body_limit(records, alpha),
            # The body: the measures, n, Spearman and Kendall with their corrected p.
            "body_columns": [0, 1, 2, 6, 8, 9, 11],
            # On a phone, whose p each p cell is.
            "cell_labels": [
                *[""] * 4,
                *("Pearson p", "Pearson p (corr.)", ""),
                *("Spearman p", "Spearman p (corr.)", ""),
                *("Kendall p", "Kendall p (corr.)", ""),
            ],
        }
    )
    return _ran("correlation", [table], charts)


def comparison_study(data: StudyData) -> Study:
    """Paired comparisons of model versions recorded by the run. A variant against its own
    base is shown with the variants (Variants against their base), not here."""
    variants = VariantLookup(data.result)
    records = [c for c in data.comparisons if not variants.is_base_comparison(c)]
    if not records:
        why = (
            "the audit has a single model"
            if len(data.result.models) < 2
            else "results.json holds no paired comparison records (the models are still "
            "shown side by side in every table)"
        )
        if data.comparisons:
            why = (
                "the only paired comparisons are of variants against their base; they are "
                "under Variants against their base"
            )
        return _not_run("comparison", why)
    return _ran("comparison", [comparison_table(records, data.cards, table_id="comparison-table")])
