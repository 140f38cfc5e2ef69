"""The studies around the measures: robustness to dataset size, correlation between
measures, and model comparisons. Each appears when results.json holds its records and is
otherwise shown as not run, with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from audit.report import cells
from audit.report.cards import measure_title
from audit.report.charts import heatmap, line_chart
from audit.report.formatting import fmt_num, fmt_p, fmt_pct
from audit.report.model import Caveat, Chart, Study, Table
from audit.results import AuditResult

#: Fewer models than this: no correlation between measures can be concluded (METHODS 4).
MIN_MODELS_FOR_CORRELATION = 5


def _records(result: AuditResult, name: str) -> list[dict[str, Any]]:
    raw = getattr(result, name, None)
    if not raw:
        return []
    return [r if isinstance(r, dict) else r.model_dump() for r in raw]


#: Name fragments of extrinsic (downstream-task) measures, for the intrinsic-extrinsic caveat.
EXTRINSIC_MARKERS = ("sts", "bios", "nli", "extrinsic", "tpr")


def is_extrinsic(label: str) -> bool:
    """Whether a measure label names an extrinsic (downstream-task) measure."""
    return any(marker in label.lower() for marker in EXTRINSIC_MARKERS)


@dataclass
class StudyData:
    """The study records of a result (robustness, correlations, comparisons), as dicts."""

    result: AuditResult
    robustness: list[dict[str, Any]] = field(default_factory=list)
    correlations: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, result: AuditResult) -> StudyData:
        return cls(
            result=result,
            robustness=_records(result, "robustness"),
            correlations=_records(result, "correlations"),
            comparisons=_records(result, "comparisons"),
        )

    def intrinsic_extrinsic_text(self) -> str:
        """The measured intrinsic-extrinsic correlations in words, '' when there is none."""
        found = [
            r
            for r in self.correlations
            if is_extrinsic(str(r["measure_x"])) != is_extrinsic(str(r["measure_y"]))
        ]
        return "; ".join(
            f"{r['measure_x']} vs {r['measure_y']}: Kendall tau "
            f"{fmt_num(r.get('kendall_tau'), 2)} (p {fmt_p(r.get('kendall_p'))}, "
            f"{r['n']} models)"
            for r in found
        )

    def caveats(self) -> list[Caveat]:
        fragile = [r for r in self.robustness if r.get("verdict") == "not robust"]
        if not fragile:
            return []
        where = "; ".join(
            f"{measure_title(str(r['measure']))} on {r['dataset']} ({r['scorer']}) at rate "
            f"{fmt_num(r['rate'], 2)}: agreement {fmt_pct(r.get('agreement_share'))} "
            f"< {fmt_pct(r.get('required_share'))}"
            for r in fragile
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
    spec = data.result.spec.get("robustness")
    if not data.robustness:
        reason = (
            "the spec has no `robustness` section"
            if not spec
            else "results.json holds no robustness records"
        )
        return Study(
            id="robustness",
            title="Robustness to dataset size",
            ran=False,
            not_run_reason=f"Not run: {reason}.",
        )
    models = list(dict.fromkeys(m["model"] for r in data.robustness for m in r["models"]))
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
    for r in data.robustness:
        per_model = {m["model"]: m for m in r["models"]}
        digits = cells.digits_for([m.get("mean") for m in r["models"]])
        verdict = str(r["verdict"])
        emphasis = {"robust": "good", "not robust": "bad"}.get(verdict, "warn")
        measure = measure_title(str(r["measure"])) + (
            f" ({r['group']})" if r.get("group", "all") != "all" else ""
        )
        row = [
            cells.text(str(r["dataset"])),
            cells.text(measure, note=f"scorer {r['scorer']}"),
            cells.number(r["rate"], 2),
            cells.count(r.get("n_items")),
        ]
        for model in models:
            m = per_model.get(model)
            row.append(
                cells.Cell(kind="meansd", value=m.get("mean"), low=m.get("spread"), digits=digits)
                if m
                else cells.text("—")
            )
        row += [
            cells.Cell(kind="pct", value=r.get("ordering_share")),
            cells.Cell(kind="pct", value=r.get("side_share")),
            cells.Cell(kind="pct", value=r.get("agreement_share")),
            cells.verdict(verdict, emphasis, note=str(r.get("note") or "")),
        ]
        maker.add(row)
        rows.append(
            {
                "rate": r["rate"],
                "agreement": r.get("agreement_share"),
                "measure": measure_title(str(r["measure"])),
                "dataset": str(r["dataset"]),
            }
        )
    threshold = float(data.robustness[0].get("required_share") or 0.95)
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
    return Study(
        id="robustness",
        title="Robustness to dataset size",
        ran=True,
        tables=[maker.table()],
        charts=charts,
    )


def correlation_study(data: StudyData) -> Study:
    """Correlations between measures across models: table and heatmap."""
    n_models = len(data.result.models)
    if not data.correlations:
        why = (
            f"only {n_models} model(s); at least {MIN_MODELS_FOR_CORRELATION} are needed "
            "before a correlation between measures can be concluded"
            if n_models < MIN_MODELS_FOR_CORRELATION
            else "results.json holds no correlation records"
        )
        return Study(
            id="correlation",
            title="Correlation between measures",
            ran=False,
            not_run_reason=f"Not run: {why}.",
        )
    maker = cells.TableMaker(
        id="correlation-table",
        title="Correlation between measures across models",
        caption="Pearson r, Spearman ρ and Kendall τ with their p-values; MI: mutual "
        "information (Kraskov k-NN estimate, nats).",
        columns=[
            "Measure X",
            "Measure Y",
            "Models",
            "Pearson r",
            "p",
            "Spearman ρ",
            "p",
            "Kendall τ",
            "p",
            "MI",
        ],
        key_columns=2,
    )
    heat = []
    for r in data.correlations:
        x, y = str(r["measure_x"]), str(r["measure_y"])
        note = str(r.get("note") or "")
        if not r.get("conclusive", True) and not note:
            note = "too few models: no correlation can be concluded"
        maker.add(
            [
                cells.text(x),
                cells.text(y),
                cells.Cell(kind="count", value=float(r["n"]), note=note),
                cells.number(r.get("pearson_r"), 2),
                cells.pvalue(r.get("pearson_p")),
                cells.number(r.get("spearman_rho"), 2),
                cells.pvalue(r.get("spearman_p")),
                cells.number(r.get("kendall_tau"), 2),
                cells.pvalue(r.get("kendall_p")),
                cells.number(r.get("mutual_information"), 2),
            ]
        )
        rho = r.get("spearman_rho")
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
                caption="Rank correlation of the measures across the audited models "
                "(Liu 2024, Fig. 4).",
                spec=heatmap(pd.DataFrame(heat), title="Spearman ρ"),
                alt="Heatmap of Spearman correlations between measures",
            )
        )
    return Study(
        id="correlation",
        title="Correlation between measures",
        ran=True,
        tables=[maker.table()],
        charts=charts,
    )


def comparison_study(data: StudyData) -> Study:
    """Paired comparisons of model versions recorded by the run."""
    if not data.comparisons:
        why = (
            "the audit has a single model"
            if len(data.result.models) < 2
            else "results.json holds no paired comparison records (the models are still "
            "shown side by side in every table)"
        )
        return Study(
            id="comparison",
            title="Paired comparison of models",
            ran=False,
            not_run_reason=f"Not run: {why}.",
        )
    return Study(
        id="comparison",
        title="Paired comparison of models",
        ran=True,
        tables=[comparison_table(data.comparisons, table_id="comparison-table")],
    )


def comparison_table(
    records: list[dict[str, Any]],
    *,
    table_id: str,
    title: str = "Paired comparison on the same items",
    label_a: str = "A",
    label_b: str = "B",
) -> Table:
    """ComparisonRecords as a table: both values, A − B with its paired CI, tests, verdict."""
    maker = cells.TableMaker(
        id=table_id,
        title=title,
        caption=f"{label_a} against {label_b} on the same items. Paired bootstrap CI of the "
        f"difference; p: paired-bootstrap test of the distance to the ideal value (McNemar "
        f"for pair outcomes in brackets). Better = {label_a} significantly closer to the "
        "ideal value.",
        columns=[
            "Dataset",
            "Measure",
            f"{label_a} vs {label_b}",
            "Group",
            "Items",
            label_a,
            label_b,
            f"{label_a} − {label_b} (CI)",
            "p",
            "McNemar p",
            f"{label_a} is",
        ],
        key_columns=2,
    )
    for r in records:
        maker.add(comparison_row(r))
    return maker.table()


def comparison_row(r: dict[str, Any]) -> list[cells.Cell]:
    """One ComparisonRecord as a table row."""
    verdict = str(r["verdict"])
    emphasis = {"better": "good", "worse": "bad", "undefined": "warn"}.get(verdict, "")
    digits = cells.digits_for([r.get("value_a"), r.get("value_b")])
    diff = cells.Cell(
        kind="estimate",
        value=r.get("difference"),
        low=r.get("difference_ci_low"),
        high=r.get("difference_ci_high"),
        digits=digits,
    )
    return [
        cells.text(str(r["dataset"]), note=f"scorer {r['scorer']}"),
        cells.text(measure_title(str(r["measure"]))),
        cells.text(f"{r.get('model_a', '')} vs {r.get('model_b', '')}"),
        cells.text(str(r.get("group", "all"))),
        cells.count(r.get("n_items")),
        cells.number(r.get("value_a"), digits),
        cells.number(r.get("value_b"), digits),
        diff,
        cells.pvalue(r.get("p_value")),
        cells.pvalue(r.get("mcnemar_p")),
        cells.verdict(verdict, emphasis, note=str(r.get("note") or "")),
    ]
