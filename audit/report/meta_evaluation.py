"""The meta-evaluation sections of a report: the measures across bias-controlled ratio
models (Kaneko et al. 2023), the control check stated first, then the measures' correlations
with the male share r and their values across r (from results.json's `meta_evaluations`
and the ratio models' `variants` records)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from audit.report import cells
from audit.report import correlation_words as words
from audit.report.charts import probe_chart, small_multiples
from audit.report.formatting import fmt_num, fmt_p, fmt_pct, plain, plural, upper_first
from audit.report.index import MeasurementIndex, unique
from audit.report.model import Chart, Section, SummaryBlock, Table
from audit.report.tables import slug
from audit.results import CorrelationWithRatio, MetaEvaluation, VariantRecord
from audit.results.variants import same_series

KANEKO_2023 = "Kaneko, Bollegala & Okazaki 2023 (EACL)"


def _ratio_records(index: MeasurementIndex, meta: MetaEvaluation) -> list[VariantRecord | None]:
    return [index.variants.get(m) for m in meta.models]


#: How the engine's reason of a failed control ends; page 1 says it in its own words.
NOT_RANKED_TAIL = " — the measures are not ranked"


def control_reason(meta: MetaEvaluation) -> str:
    """The control check's reason for people, without the engine's 'not ranked' tail."""
    return plain(meta.control.reason).removesuffix(NOT_RANKED_TAIL).rstrip(".")


def control_blocks(meta: MetaEvaluation) -> list[SummaryBlock]:
    """The control check said plainly, and when it failed, why nothing is ranked."""
    control = meta.control
    if control.worked:
        return [
            SummaryBlock(
                heading="The bias control worked.",
                text=f"{control_reason(meta)}. The more male sentences a model was trained "
                "on, the more it prefers 'he' in the probe, so the ratio models differ in "
                "gender bias by construction and a bias measure should follow r. The "
                "measures are ranked by how closely they do (|Spearman ρ|); one is called the "
                "best only when a paired bootstrap tells it apart from every other.",
                emphasis="good",
            )
        ]
    return [
        SummaryBlock(
            heading="The bias control did not work.",
            text=f"{control_reason(meta)}.",
            emphasis="bad",
        ),
        SummaryBlock(
            heading="No ranking of measures.",
            text="The probe shows no reliable rise of the models' preference for 'he' with r, "
            "so the ratio models are not known to differ in bias. Ranking measures by how "
            "they follow r would rank them on noise, and that is not done: the correlations "
            "below are shown for information only.",
            emphasis="warn",
        ),
    ]


def probe_figure(index: MeasurementIndex, meta: MetaEvaluation, anchor: str) -> Chart | None:
    """P(he), P(she) and the he-share across r, from each ratio model's probe."""
    records = _ratio_records(index, meta)
    probes = [r.probe if r is not None else None for r in records]
    first = next((p for p in probes if p is not None), None)
    if first is None:
        return None
    names = (f"P({first.he})", f"P({first.she})", f"P({first.he}) share")
    rows: list[dict[str, Any]] = []
    for r, probe, share in zip(meta.ratios, probes, meta.control.he_share, strict=True):
        if probe is not None:
            rows += [
                {"r": r, "series": names[0], "value": probe.mean_p_he},
                {"r": r, "series": names[1], "value": probe.mean_p_she},
            ]
        if share is not None:
            rows.append({"r": r, "series": names[2], "value": share})
    return Chart(
        id=f"{anchor}-probe",
        title=f"{meta.entry}: the control check across r",
        caption=f"Left: mean {names[0]} and {names[1]} over the "
        f"{plural(len(first.occupations), 'occupation')} of '{first.template}' for each ratio "
        f"model. Right: {names[2]}, the mean of {names[0]} / ({names[0]} + {names[1]}); the "
        "dashed line is 0.5, no preference. If the control worked, the share rises with r.",
        spec=probe_chart(pd.DataFrame(rows), names=names),
        alt=f"{names[0]}, {names[1]} and {names[2]} across the male share r for {meta.entry}",
    )


def meta_table(index: MeasurementIndex, meta: MetaEvaluation, anchor: str) -> Table:
    worked = meta.control.worked
    level = fmt_num(100 * (1 - index.result.alpha), 0)
    resamples = index.result.audit.bootstrap.resamples
    two_level = any(r.items_resampled for r in meta.rows)
    over = (
        "two-level bootstrap: the ratio models resampled, and within each its benchmark items"
        if two_level
        else "bootstrap over the ratio models (each model's value taken as exact: the item "
        "noise is left out)"
    )
    caption = (
        f"Correlation between r and each measure across the {len(meta.models)} ratio models; "
        f"n: ratio models with a value. The intervals of ρ and of |ρ₁| − |ρ| are {level}% "
        f"percentile intervals of a {over} ({resamples:,} seeded resamples, none below 5 "
        "models). p: raw; the Spearman p is corrected over the series "
        f"({_correction_name(meta)}), raw under it."
    )
    if meta.detection is not None:
        caption += " " + upper_first(words.detection_words(meta.detection)) + "."
    if worked:
        caption = (
            "Ranked by |Spearman ρ| (ties by |Pearson r|): rank 1 follows the controlled bias "
            "most closely; the sign says whether the measure rises or falls with r. Measures "
            "with the same values on every ratio model are one series, ranked once (one row). "
            "|ρ₁| − |ρ|: how far each series falls behind rank 1, with a paired bootstrap "
            "interval (the ratio models both have, resampled together); where it reaches 0 "
            "the series ties with rank 1, and rank 1 is the best only when none does. " + caption
        )
    else:
        caption = "Not ranked: the bias control did not work. " + caption
    maker = cells.TableMaker(
        id=f"{anchor}-table",
        title=f"{meta.entry}: measures against r" + ("" if worked else " (not ranked)"),
        caption=caption,
        columns=[
            "Rank",
            "Measure",
            "Dataset",
            "Scorer",
            "n",
            "Pearson r",
            "p",
            "Spearman ρ (CI)",
            "p",
            "|ρ₁| − |ρ| (CI)",
        ],
        key_columns=2,
    )
    leaders: list[int] = []
    for i, series in enumerate(table_series(meta)):
        row = series[0]
        note = plain(row.note)
        if not worked:
            note = "; ".join(p for p in note.split("; ") if not p.startswith("not ranked"))
        titles = " = ".join(dict.fromkeys(index.cards.title(r.measure) for r in series))
        if row.rank == 1 or row.ties_first:
            leaders.append(i)
        maker.add(
            [
                _rank_cell(row),
                cells.text(titles),
                cells.text(index.cards.dataset_title(row.dataset)),
                cells.text(index.cards.scorer_name(row.scorer)),
                cells.Cell(kind="count", value=float(row.n), note=note),
                cells.number(row.pearson, 2),
                cells.pvalue(row.pearson_p),
                cells.interval(row.spearman, row.spearman_ci_low, row.spearman_ci_high, 2),
                _spearman_p(row),
                cells.interval(
                    row.gap_to_first, row.gap_to_first_ci_low, row.gap_to_first_ci_high, 2
                ),
            ]
        )
    # The body keeps rank 1 and every series that ties with it, then the ranks in order;
    # on a phone each p cell says whose p it is.
    labels = [*[""] * 6, "Pearson p", "", "Spearman p", ""]
    return maker.table().model_copy(
        update={
            "key_rows": leaders,
            "key_rows_words": "rank 1 or tied with it",
            "cell_labels": labels,
            # the body ranks by Spearman: the Pearson p is in the appendix's whole table
            "body_columns": [i for i in range(len(labels)) if i != 6],
        }
    )


def _correction_name(meta: MetaEvaluation) -> str:
    return words.CORRECTION_NAMES.get(meta.correction or "", "not corrected: before 4.0")


def _spearman_p(row: CorrelationWithRatio) -> cells.Cell:
    """The corrected Spearman p with the raw one under it (a file before 4.0: raw only)."""
    if row.spearman_p_corrected is None:
        return cells.pvalue(row.spearman_p)
    return cells.text(fmt_p(row.spearman_p_corrected), sub=f"raw {fmt_p(row.spearman_p)}")


def following(meta: MetaEvaluation, alpha: float, *, short: bool = False) -> str:
    """How many distinct series follow r after the correction, and what a series that does
    not could still hide: 'k of m series follow r significantly (Holm); with 11 ratio
    models ... could not have detected ...' (`short`: page 1's form)."""
    series = [s[0] for s in same_series(meta.rows) if s[0].spearman_p_corrected is not None]
    if not series or meta.detection is None:
        return ""
    found = [r for r in series if (r.spearman_p_corrected or 1.0) <= alpha]
    detection = meta.detection
    if short:
        critical = detection.critical_spearman_rho
        reach = f"|ρ| had to reach {fmt_num(critical, 2)}" if critical is not None else "none could"
        return (
            f"{len(found)} of {plural(len(series), 'distinct series', 'distinct series')} follow "
            f"r after {_correction_name(meta)} ({reach}; power {fmt_pct(detection.power_at_effect)}"
            f" at τ {detection.effect_size:g})"
        )
    text = (
        f"{len(found)} of the {plural(len(series), 'distinct series', 'distinct series')} "
        f"follow r significantly ({_correction_name(meta)}-corrected Spearman p <= {alpha:g})"
    )
    text += f"; {words.detection_words(detection)}"
    if len(found) < len(series) and not detection.powered:
        text += (
            f", so a series that is not significant may still follow r: "
            f"{words.undetectable_words(detection)}"
        )
    return text


def table_series(meta: MetaEvaluation) -> list[list[CorrelationWithRatio]]:
    """The rows as the table shows them: rows that share a rank (one series, identical
    values) on the same dataset and scorer folded into one, in the record's order."""
    series: list[list[CorrelationWithRatio]] = []
    for row in meta.rows:
        same = next(
            (
                s
                for s in series
                if row.rank is not None
                and s[0].rank == row.rank
                and (s[0].dataset, s[0].scorer) == (row.dataset, row.scorer)
            ),
            None,
        )
        if same is None:
            series.append([row])
        else:
            same.append(row)
    return series


def _rank_cell(row: CorrelationWithRatio) -> cells.Cell:
    if row.rank is None:
        return cells.text("—")
    if row.ties_first:
        return cells.text(str(row.rank), sub="ties 1")
    return cells.text(str(row.rank))


def values_figure(index: MeasurementIndex, meta: MetaEvaluation, anchor: str) -> Chart | None:
    """Each measure's values across r, one small panel per measure."""
    rows: list[dict[str, Any]] = []
    order: list[str] = []
    for series in table_series(meta):
        row = series[0]
        if sum(v is not None for v in row.values) < 2:
            continue
        titles = " = ".join(dict.fromkeys(index.cards.title(r.measure) for r in series))
        label = f"{titles}, {row.dataset} ({row.scorer.label})" + (
            f" #{row.rank}" if row.rank is not None else ""
        )
        order.append(label)
        rows += [
            {"measure": label, "r": r, "value": v}
            for r, v in zip(meta.ratios, row.values, strict=True)
            if v is not None
        ]
    if not rows:
        return None
    return Chart(
        id=f"{anchor}-values",
        title=f"{meta.entry}: each measure across r",
        caption="The value of each measure on each ratio model (one panel per measure, each "
        "with its own scale"
        + ("; # is the rank" if meta.control.worked else "")
        + "). A measure that tracks the controlled bias rises or falls steadily with r.",
        spec=small_multiples(
            pd.DataFrame(rows),
            x="r",
            y="value",
            facet="measure",
            x_title="male share r",
            order=order,
            columns=3,
        ),
        alt=f"Values of each measure across the male share r for {meta.entry}",
        detail=True,
    )


def _following_block(index: MeasurementIndex, meta: MetaEvaluation) -> list[SummaryBlock]:
    text = following(meta, index.result.alpha)
    if not text or not meta.control.worked:
        return []
    return [SummaryBlock(heading="What the table could detect.", text=upper_first(text) + ".")]


def meta_section(index: MeasurementIndex, meta: MetaEvaluation) -> Section:
    anchor = slug("meta", meta.entry)
    records = [r for r in _ratio_records(index, meta) if r is not None]
    method = index.variants.method_name(records[0]) if records else "bias-controlled fine-tuning"
    examples = unique(r.training_examples for r in records)
    per_model = f" on {plural(examples[0], 'sentence')} each" if len(examples) == 1 else ""
    ratios = f"r = {min(meta.ratios):g} to {max(meta.ratios):g}" if meta.ratios else ""
    intro = (
        f"{KANEKO_2023}: {plural(len(meta.models), 'copy', 'copies')} of {meta.base} were "
        f"fine-tuned{per_model}, a share r of them male-only sentences and the rest "
        f"female-only ({ratios}). If the control worked, the models' gender bias grows with "
        "r, and a good bias measure follows r. The control is checked first, with a probe "
        "of the models' own preference for 'he' over 'she'."
    )
    probe = probe_figure(index, meta, anchor)
    values = values_figure(index, meta, anchor)
    return Section(
        id=anchor,
        title=f"Meta-evaluation: {meta.entry} ({method} of {meta.base})",
        intro=intro,
        blocks=control_blocks(meta) + _following_block(index, meta),
        lead_charts=[probe] if probe is not None else [],
        tables=[meta_table(index, meta, anchor)],
        charts=[values] if values is not None else [],
    )
