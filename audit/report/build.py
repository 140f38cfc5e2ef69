"""Build the report model of one audit from its AuditResult (and scores, for the charts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from audit.finetune_copies import without_finetune_copies
from audit.gates import gate_exit_code
from audit.ids import PluginId
from audit.report import cells
from audit.report.caveats import build_caveats
from audit.report.charts import distribution_charts
from audit.report.dataset_table import datasets_table
from audit.report.extrinsic import extrinsic_sections
from audit.report.formatting import (
    fmt_band,
    fmt_date,
    fmt_num,
    fmt_precision,
    group_name,
    plural,
)
from audit.report.gate_summary import overall_verdict, verdict_reason
from audit.report.group_charts import group_charts
from audit.report.index import MeasurementIndex
from audit.report.literature import literature_section
from audit.report.model import (
    Chart,
    Cover,
    DatasetSection,
    GateSection,
    KeyValue,
    ReportModel,
    SignOff,
    Table,
)
from audit.report.precision import precision_table
from audit.report.seat_section import seat_report_section
from audit.report.served import model_source
from audit.report.studies import (
    StudyData,
    comparison_study,
    correlation_study,
    robustness_study,
)
from audit.report.summary import build_summary
from audit.report.tables import (
    diagnostic_tables,
    group_tables,
    model_cell,
    overview_table,
    slug,
)
from audit.report.unread import unread_block
from audit.report.variants import variant_sections
from audit.results import AuditResult, GateVerdict

if TYPE_CHECKING:
    import pandas as pd

VERDICT_EMPHASIS = {"PASS": "good", "FAIL": "bad", "INCONCLUSIVE": "warn"}
SIGNOFF_FIELDS = ["Reviewer (name, role)", "Date", "Signature"]
SIGNOFF_DECISIONS = ["Approve", "Approve with conditions", "Reject"]


#: A dataset's items and groups in words, by shape (labelled sets otherwise).
_SHAPE_WORDS = {
    "pairs": ("pairs", "bias type", "bias types"),
    "choices": ("multiple-choice questions", "category", "categories"),
}


def build_cover(result: AuditResult, index: MeasurementIndex | None = None) -> Cover:
    index = index or MeasurementIndex(result)
    audit = result.audit
    models = cells.TableMaker(
        id="models",
        title="Models",
        columns=["Model", "Type", "Source", "Parameters", "Fingerprint"],
        caption="Fingerprint: the first 16 hex digits of the sha256 over the model's files "
        "(all 64 are in results.json)"
        + (
            "; of a served model, over the server's model id, the stated revision and the "
            "probe's digest (the canary's echoed log-probabilities)."
            if any(m.endpoint is not None for m in result.models)
            else "."
        ),
    )
    for m in result.models:
        how = (
            "through an endpoint"
            if m.endpoint is not None
            else fmt_precision(m.precision, m.device)
        )
        models.add(
            [
                model_cell(index, m.id),
                cells.text(f"{m.model_type} LM, {how}"),
                cells.text(model_source(m)),
                cells.count(m.n_parameters),
                cells.code(m.fingerprint[:16]),
            ]
        )
    packages = cells.TableMaker(
        id="packages", title="Package versions", columns=["Package", "Version"]
    )
    env = result.environment
    packages.add([cells.text("python"), cells.code(env.python)])
    for name, version in env.packages.items():
        packages.add([cells.text(name), cells.code(version)])
    facts = [
        KeyValue(label="Audit", value=audit.name),
        KeyValue(label="Owner", value=audit.owner or "not stated in the spec"),
        KeyValue(label="Date", value=fmt_date(result.created_at)),
        KeyValue(label="Spec", value=audit.spec_path, kind="code"),
        KeyValue(label="Spec sha256", value=audit.spec_sha256, kind="code"),
        KeyValue(label="Seed", value=str(audit.seed), kind="code"),
        KeyValue(
            label="Confidence level",
            value=f"{fmt_num(100 * (1 - audit.alpha), 0)}% (alpha {audit.alpha:g})",
        ),
        KeyValue(label="Bootstrap resamples", value=str(audit.bootstrap.resamples)),
        KeyValue(label="Tool", value=f"bias-audit {result.tool_version}"),
        KeyValue(label="Platform", value=f"{env.platform}, device {env.device}"),
    ]
    return Cover(
        title=f"Bias audit: {audit.name or 'unnamed'}",
        audit_name=audit.name,
        description=audit.description,
        spec_sha256=audit.spec_sha256,
        facts=facts,
        models=models.table(),
        datasets=datasets_table(result),
        packages=packages.table(),
    )


def gate_table(index: MeasurementIndex, verdicts: list[GateVerdict]) -> Table:
    """Every gate verdict with its band, value, CI and the reason for the verdict."""
    maker = cells.TableMaker(
        id="gates-table",
        title="Release gates",
        caption="PASS only when the whole confidence interval lies inside the band; FAIL "
        "when it lies wholly outside; INCONCLUSIVE otherwise.",
        columns=[
            "Gate",
            "Measure",
            "Dataset",
            "Model",
            "Scorer",
            "Group",
            "Band",
            "Value (CI)",
            "Verdict",
        ],
        key_columns=1,
    )
    for v in verdicts:
        digits = cells.digits_for([v.value, v.low, v.high])
        maker.add(
            [
                cells.count(v.gate_index + 1),
                cells.text(index.cards.title(v.measure)),
                cells.text(v.dataset),
                model_cell(index, v.model) if v.model else cells.text("—"),
                cells.text(index.cards.scorer_name(v.scorer) if v.scorer is not None else "—"),
                cells.text(group_name(v.group)),
                cells.text(fmt_band(v.low, v.high)),
                cells.interval(v.value, v.ci_low, v.ci_high, digits),
                cells.verdict(v.verdict, VERDICT_EMPHASIS[v.verdict], note=verdict_reason(v)),
            ]
        )
    # A shortened body table shows the failing checks first, then the inconclusive ones.
    order = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}
    rank = sorted(range(len(verdicts)), key=lambda i: order[verdicts[i].verdict])
    return maker.table().model_copy(update={"rank": rank})


def gate_summary_table(index: MeasurementIndex, verdicts: list[GateVerdict]) -> Table:
    """One row per gate of the spec: its rule and how many of its checks pass."""
    maker = cells.TableMaker(
        id="gates-summary",
        title="Gates at a glance",
        columns=["Gate", "Rule", "Checks", "Pass", "Fail", "Inconclusive", "Gate verdict"],
    )
    for gate_index in dict.fromkeys(v.gate_index for v in verdicts):
        mine = [v for v in verdicts if v.gate_index == gate_index]
        first = mine[0]
        who = f"model {first.model}" if len({v.model for v in mine}) == 1 else "every model"
        groups = {v.group for v in mine}
        group = group_name(first.group) if len(groups) == 1 else "each group"
        rule = (
            f"{index.cards.title(first.measure)} on {first.dataset}, {who}, {group}: "
            f"{fmt_band(first.low, first.high)}"
        )
        counts = {k: sum(v.verdict == k for v in mine) for k in ("PASS", "FAIL", "INCONCLUSIVE")}
        overall = overall_verdict(mine)
        maker.add(
            [
                cells.count(gate_index + 1),
                cells.text(rule),
                cells.count(len(mine)),
                cells.count(counts["PASS"]),
                cells.count(counts["FAIL"]),
                cells.count(counts["INCONCLUSIVE"]),
                cells.verdict(overall, VERDICT_EMPHASIS[overall]),
            ]
        )
    return maker.table()


def build_gates(index: MeasurementIndex) -> GateSection:
    """The gates section from the verdicts results.json stores (no tables without any)."""
    verdicts = list(index.result.gate_verdicts)
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    n_fail = sum(v.verdict == "FAIL" for v in verdicts)
    n_inc = len(verdicts) - n_pass - n_fail
    overall = overall_verdict(verdicts)
    return GateSection(
        verdicts=verdicts,
        summary_table=gate_summary_table(index, verdicts) if verdicts else None,
        table=gate_table(index, verdicts) if verdicts else None,
        n_pass=n_pass,
        n_fail=n_fail,
        n_inconclusive=n_inc,
        overall=overall,
        exit_code=gate_exit_code(verdicts),
    )


def build_dataset(
    index: MeasurementIndex, name: str, scores: pd.DataFrame | None
) -> DatasetSection:
    record = index.dataset_record(name)
    tables: list[Table] = []
    charts: list[Chart] = []
    if (t := overview_table(index, name)) is not None:
        tables.append(t)
    for measure in index.measures(name):
        tables += group_tables(index, name, measure, record)
    tables += diagnostic_tables(index, name)
    if scores is not None:
        charts += distribution_charts(scores, index, name)
    for measure in index.measures(name):
        if index.cards.has_role(measure, "group_chart"):
            charts += group_charts(index, name, measure)
    if record is None:
        description = "Measured, but not listed among the datasets read."
    else:
        kind, group, groups = _SHAPE_WORDS.get(
            record.shape, ("labelled sentences", "target group", "target groups")
        )
        description = (
            f"{fmt_num(record.rows_kept)} {kind} kept of {fmt_num(record.rows_read)} rows read, "
            f"{plural(len(record.groups), group, groups)}."
        )
        if record.shape == "choices":
            description += f" Categories: {', '.join(record.groups)}."
    if not tables:
        description += " No measure was computed on this dataset."
    return DatasetSection(
        name=name,
        anchor=slug("dataset", name),
        description=description,
        tables=tables,
        charts=charts,
    )


def _unit_cells(
    index: MeasurementIndex, model: str, dataset: str, scorer: PluginId
) -> list[cells.Cell]:
    """The Model, Dataset and Scorer cells of a scoring unit (done or left out)."""
    return [cells.text(model), cells.text(dataset), cells.text(index.cards.scorer_name(scorer))]


def build_appendix(index: MeasurementIndex) -> list[Table]:
    result = index.result
    units = cells.TableMaker(
        id="units",
        title="Scoring units",
        caption="Sentences: the dataset's sentences this unit read. A pair scorer scores each "
        "pair of sentences at once, so its work is counted in pairs; a sentence scorer's in "
        "sentences (items: a scorer without its card in results.json). Scored now: computed "
        "by this run; from cache: reused from an earlier run.",
        columns=["Model", "Dataset", "Scorer", "Sentences", "Scored now", "From cache", "Seconds"],
        key_columns=3,
    )
    for u in result.units:
        # Without the scorer's card (an older results.json) the unit is not known.
        unit = {"pair": "pair", "sentence": "sentence"}.get(
            index.cards.scorer_shape(u.scorer) or "", "item"
        )
        units.add(
            [
                *_unit_cells(index, u.model, u.dataset, u.scorer),
                cells.count(u.sentences),
                cells.text(plural(u.computed, unit)),
                cells.text(plural(u.cached, unit)),
                cells.number(u.seconds, 1),
            ]
        )
    tables = [units.table()]
    if result.skipped_units:
        skipped = cells.TableMaker(
            id="skipped",
            title="Combinations left out",
            columns=["Model", "Dataset", "Scorer", "Reason"],
            key_columns=3,
        )
        for s in result.skipped_units:
            skipped.add([*_unit_cells(index, s.model, s.dataset, s.scorer), cells.text(s.reason)])
        tables.append(skipped.table())
    timings = cells.TableMaker(id="timings", title="Time per stage", columns=["Stage", "Seconds"])
    for stage, seconds in result.timings.items():
        timings.add([cells.text(stage), cells.number(seconds, 1)])
    tables.append(timings.table())
    if (precision := precision_table(index)) is not None:
        tables.append(precision)
    return tables


def build_report(result: AuditResult, scores: pd.DataFrame | None = None) -> ReportModel:
    """The report model of `result`; `scores` (scores.parquet) adds distribution charts."""
    result = without_finetune_copies(result)
    index = MeasurementIndex(result)
    studies = StudyData.of(result)
    gates = build_gates(index)
    caveats = build_caveats(index, studies)
    measures = list(dict.fromkeys(m.measure for m in result.measurements))
    measures += list(dict.fromkeys(r.measure for r in result.seat.tests)) if result.seat else []
    cards = [c for measure in measures if (c := index.cards.view(measure)) is not None]
    dataset_names = [d.name for d in result.datasets]
    dataset_names += [
        n for n in dict.fromkeys(m.dataset for m in result.measurements) if n not in dataset_names
    ]
    return ReportModel(
        cover=build_cover(result, index),
        summary=build_summary(index, gates.verdicts, caveats),
        unread=unread_block(result),
        gates=gates,
        datasets=[build_dataset(index, name, scores) for name in dataset_names],
        seat=seat_report_section(result),
        variant_sections=variant_sections(index) + extrinsic_sections(index),
        studies=[robustness_study(studies), correlation_study(studies), comparison_study(studies)],
        literature=literature_section(index),
        caveats=caveats,
        cards=cards,
        signoff=SignOff(fields=SIGNOFF_FIELDS, decisions=SIGNOFF_DECISIONS),
        appendix=build_appendix(index),
    )
