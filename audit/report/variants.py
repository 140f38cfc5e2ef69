"""The variant sections of a report: how each variant was trained and on what corpus
(Kaneko et al. 2022, Table 1), each variant against its base, and the meta-evaluation of
measures across bias-controlled ratio models (Kaneko et al. 2023), with the control check
stated first. Also the page-1 sentences about them.

Everything comes from results.json: `variants`, `corpora`, `meta_evaluations` and the
`comparisons` whose model A is a variant and model B its base.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from audit.report import cells
from audit.report.charts import probe_chart, small_multiples
from audit.report.formatting import fmt_num, fmt_seconds, group_name, plain, plural
from audit.report.index import MeasurementIndex, unique
from audit.report.model import Chart, Section, SummaryBlock, Table
from audit.report.studies import comparison_row
from audit.report.tables import model_cell, slug
from audit.results import ComparisonRecord, CorpusRecord, MetaEvaluation, VariantRecord

KANEKO_2022 = "Kaneko, Bollegala & Okazaki 2022 (COLING), Table 1"
KANEKO_2023 = "Kaneko, Bollegala & Okazaki 2023 (EACL)"
KURITA = "Kurita et al. 2019"


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _option_value(value: Any) -> str:
    """An option value for people; a long list of numbers as its count and range."""
    if isinstance(value, list) and len(value) > 4:
        numbers = [v for v in value if isinstance(v, int | float)]
        if len(numbers) == len(value):
            return f"{len(value)} values, {min(numbers):g} to {max(numbers):g}"
        return f"{len(value)} values"
    return str(value)


def _options(record: VariantRecord) -> str:
    options = record.method.options
    if not options:
        return "default options"
    return ", ".join(f"{k} = {_option_value(options[k])}" for k in sorted(options))


# --------------------------------------------------------------------------- the variants


def _ordered(index: MeasurementIndex) -> list[VariantRecord]:
    return [v for entry in index.variants.entries().values() for v in entry]


def variants_table(index: MeasurementIndex) -> Table:
    """One row per variant: method and options, corpus, whether this run trained it, the
    he/she probe and the cache key."""
    variants = index.variants
    maker = cells.TableMaker(
        id="variants-table",
        title="Variants",
        caption="Each variant is a model of its own, audited like its base and shown beside "
        "it in every table. Probe: the mean over its occupations of P(he), P(she) and the "
        "he-share P(he) / (P(he) + P(she)); 0.5 is no preference.",
        columns=[
            "Variant",
            "Method and options",
            "Corpus",
            "Examples",
            "This run",
            "P(he)",
            "P(she)",
            "P(he) share",
            "Cache key",
        ],
    )
    for v in _ordered(index):
        run = "from the cache" if v.cached else "trained"
        if not v.cached and v.summary.resumed_from_step is not None:
            run = f"trained (resumed at step {v.summary.resumed_from_step:,})"
        probe = v.probe
        probe_note = (
            ""
            if probe is None
            else f"probe: '{probe.template}' over {plural(len(probe.occupations), 'occupation')}"
            f", P({probe.he}) against P({probe.she})"
        )
        maker.add(
            [
                model_cell(index, v.id),
                cells.text(variants.method_title(v), sub=_options(v)),
                cells.text(v.corpus, note=f"sha256 {v.corpus_sha256[:12]}"),
                cells.count(v.training_examples),
                cells.text(run),
                cells.number(None if probe is None else probe.mean_p_he, 3),
                cells.number(None if probe is None else probe.mean_p_she, 3),
                cells.Cell(
                    kind="number",
                    value=None if probe is None else probe.he_share,
                    digits=2,
                    note=probe_note,
                ),
                cells.code(v.key[:8]),
            ]
        )
    table = maker.table()
    return table.model_copy(update={"long_rows": True})


def _setting(training: dict[str, Any], key: str) -> Any:
    return training.get(key)


#: The training objectives of TrainingSummary in words.
OBJECTIVES = {
    "masked_lm": "masked LM",
    "causal_lm": "next-token LM",
    "at": "AT: debias + regulariser",
}


def _lora(v: VariantRecord) -> cells.Cell:
    lora = _setting(v.training, "lora")
    if not lora:
        return cells.text("no")
    parts = (
        [f"rank {lora.get('r')}", f"alpha {lora.get('alpha')}"] if isinstance(lora, dict) else []
    )
    trainable = v.summary.trainable_parameters
    note = f"{trainable:,} trainable parameters" if trainable is not None else ""
    return cells.text(", ".join(parts) or "yes", note=note)


def training_table(index: MeasurementIndex) -> Table:
    """How each variant was trained: settings, time and loss."""
    maker = cells.TableMaker(
        id="variant-training",
        title="Training of each variant",
        caption="Continued training of the base model with its own objective. Steps: "
        "optimiser steps trained; time: the training itself, all sessions (a variant from "
        "the cache was trained by an earlier run); loss: mean of the first and of the last "
        "logged window of steps.",
        columns=[
            "Variant",
            "Objective",
            "Steps",
            "Learning rate",
            "Batch",
            "Max length",
            "Seed",
            "LoRA",
            "Device",
            "Time",
            "Loss first → last",
        ],
    )
    for v in _ordered(index):
        s = v.summary
        epochs = _setting(v.training, "epochs")
        steps_note = f"{epochs:g} epoch(s) of {s.examples:,} examples" if epochs else ""
        lr = _setting(v.training, "learning_rate")
        loss = (
            f"{fmt_num(s.first_loss, 3)}\u00a0→\u00a0{fmt_num(s.last_loss, 3)}"
            if s.first_loss is not None and s.last_loss is not None
            else "—"
        )
        maker.add(
            [
                cells.text(v.id),
                cells.text(OBJECTIVES.get(s.objective, s.objective)),
                cells.Cell(kind="count", value=float(s.steps), note=steps_note),
                cells.text(f"{lr:g}" if isinstance(lr, int | float) else "—"),
                cells.count(_setting(v.training, "batch_size")),
                cells.count(_setting(v.training, "max_length")),
                cells.text(str(_setting(v.training, "seed"))),
                _lora(v),
                cells.text(s.device),
                cells.text(fmt_seconds(s.seconds).replace(" ", "\u00a0")),
                cells.text(loss),
            ]
        )
    return maker.table().model_copy(update={"long_rows": True})


def loss_chart(index: MeasurementIndex) -> Chart | None:
    """The loss curve of every variant that logged at least two windows."""
    rows = [
        {"variant": v.id, "step": p.step, "loss": p.loss}
        for v in index.variants.records.values()
        if len(v.summary.curve) >= 2
        for p in v.summary.curve
    ]
    if not rows:
        return None
    order = [v.id for entry in index.variants.entries().values() for v in entry]
    frame = pd.DataFrame(rows)
    drawn = [m for m in order if m in set(frame["variant"])]
    return Chart(
        id="variant-loss-chart",
        title="Training loss of each variant",
        caption="Mean training loss of each logged window of steps, one panel per variant "
        "(each with its own scale). " + index.variants.legend(drawn),
        spec=small_multiples(
            frame,
            x="step",
            y="loss",
            facet="variant",
            x_title="step",
            y_title="loss",
            order=drawn,
        ),
        alt="Training loss per step of " + ", ".join(drawn),
    )


def _lean(c: CorpusRecord) -> cells.Cell:
    if c.ilps is None:
        return cells.text("—")
    if c.ilps_ci_low is not None and c.ilps_ci_high is not None:
        if c.ilps_ci_high < 0:
            return cells.verdict("male-skewed", "warn")
        if c.ilps_ci_low > 0:
            return cells.verdict("female-skewed", "warn")
        return cells.verdict("no clear skew", "good", note="the interval includes 0")
    side = "male" if c.ilps < 0 else "female" if c.ilps > 0 else ""
    if not side:
        return cells.text("balanced")
    return cells.text(f"{side}-leaning", note="no interval: the lean may be chance")


def corpora_table(corpora: list[CorpusRecord]) -> Table:
    """The training corpora as Kaneko et al. 2022, Table 1 gives them."""
    maker = cells.TableMaker(
        id="corpora-table",
        title="Training corpora",
        caption=f"As in {KANEKO_2022}: sentences with only female words, only male words, "
        "both, or none (from the paired gender word lists). ILPS = log(P_f / P_m), P_f and "
        f"P_m the relative frequencies of female and male words ({KURITA}), with its "
        "confidence interval: negative = male-skewed, positive = female-skewed, 0 = "
        "balanced.",
        columns=[
            "Corpus",
            "Sentences",
            "Female-only",
            "Male-only",
            "Mixed",
            "No gendered word",
            "ILPS (CI)",
            "Skew",
            "Used by",
        ],
    )
    for c in corpora:
        maker.add(
            [
                cells.text(c.name, note=f"source: {c.source}; sha256 {c.sha256[:12]}"),
                cells.count(c.sentences),
                cells.count(c.female_only),
                cells.count(c.male_only),
                cells.count(c.mixed),
                cells.count(c.neutral),
                cells.Cell(
                    kind="estimate",
                    value=c.ilps,
                    low=c.ilps_ci_low,
                    high=c.ilps_ci_high,
                    digits=3,
                    note=plain(c.ilps_note),
                ),
                _lean(c),
                cells.text(", ".join(c.used_by) or "—"),
            ]
        )
    return maker.table()


def base_comparisons(index: MeasurementIndex) -> list[ComparisonRecord]:
    """The comparisons of a variant (model A) with its base (model B), by dataset, measure
    and the variants' order."""
    result = index.result
    found = [c for c in result.comparisons if index.variants.is_base_comparison(c)]
    datasets = unique([d.name for d in result.datasets] + [c.dataset for c in found])
    measures = unique([m.measure for m in result.measurements] + [c.measure for c in found])
    models = index.model_order

    def key(c: ComparisonRecord) -> tuple[int, int, int, str]:
        rank = models.index(c.model_a) if c.model_a in models else len(models)
        return (datasets.index(c.dataset), measures.index(c.measure), rank, c.group)

    return sorted(found, key=key)


def variant_comparison_table(index: MeasurementIndex) -> Table | None:
    """Each variant against its base on the same items: both values, the difference with
    its paired CI, the paired tests and the verdict (as the comparison study shows them)."""
    records = base_comparisons(index)
    if not records:
        return None
    maker = cells.TableMaker(
        id="variant-comparison-table",
        title="Variants against their base",
        caption="Each variant against its base on the same items. Paired bootstrap CI of the "
        "difference; p: paired-bootstrap test of the distance to the ideal value (McNemar's "
        "test of the pair outcomes where the measure has them). Better = the variant is "
        "significantly closer to the measure's ideal value than its base.",
        columns=[
            "Dataset",
            "Measure",
            "Variant",
            "Base",
            "Variant value",
            "Base value",
            "Variant − base (CI)",
            "p",
            "McNemar p",
            "Variant is",
        ],
        key_columns=2,
    )
    for r in records:
        row = comparison_row(r, index.cards)
        # comparison_row: dataset, measure, "A vs B", group, items, A, B, A - B, p, McNemar
        # p, verdict; here the two models get a column each, a group joins the measure and
        # the items join the dataset's note.
        measure = row[1]
        if r.group != "all":
            measure = cells.text(f"{measure.text} ({group_name(r.group)})")
        dataset = cells.text(
            r.dataset,
            note=f"{plural(r.n_items, 'item')}, scored by {index.cards.scorer_name(r.scorer)}",
        )
        maker.add(
            [
                dataset,
                measure,
                cells.text(r.model_a, sub=index.variants.method_words(r.model_a)),
                cells.text(r.model_b),
                *row[5:],
            ]
        )
    return maker.table()


def variants_section(index: MeasurementIndex) -> Section | None:
    """The Variants section: the variants, their training and corpora, each against its base."""
    variants = index.variants
    if not variants and not index.result.corpora:
        return None
    entries = variants.entries()
    bases = unique(v.base for v in variants.records.values())
    n_ratio = sum(v.ratio is not None for v in variants.records.values())
    if variants:
        intro = (
            f"{plural(len(variants.records), 'variant')} of {_join(bases)} from "
            f"{plural(len(entries), 'variant entry', 'variant entries')} of the spec"
        )
        if n_ratio:
            intro += f" ({n_ratio} of them bias-controlled ratio models, see Meta-evaluation)"
        compared = variant_comparison_table(index)
        intro += (
            ". Each was trained from its base and then audited exactly like a model: it "
            "appears beside its base in every table and chart above"
            + (
                ", and against it, on the same items and with a paired test, below."
                if compared is not None
                else ". No paired comparison of a variant with its base is in results.json."
            )
        )
    else:
        compared = None
        intro = "results.json holds training corpora but no trained variant."
    tables: list[Table] = []
    if variants:
        tables += [variants_table(index), training_table(index)]
    if index.result.corpora:
        tables.append(corpora_table(list(index.result.corpora)))
    if compared is not None:
        tables.append(compared)
    charts = [c] if variants and (c := loss_chart(index)) is not None else []
    return Section(id="variants", title="Variants", intro=intro, tables=tables, charts=charts)


# --------------------------------------------------------------------------- meta-evaluation


def _measure_words(index: MeasurementIndex, row: Any) -> str:
    return (
        f"{index.cards.name(row.measure)} on {index.cards.dataset_title(row.dataset)} "
        f"({index.cards.scorer_name(row.scorer)})"
    )


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
                "measures are ranked by how closely they do (|Spearman ρ|).",
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
    caption = (
        f"Correlation between r and each measure across the {len(meta.models)} ratio models; "
        f"n: ratio models with a value. The interval of ρ is a {level}% percentile bootstrap "
        f"over the ratio models ({resamples:,} seeded resamples, none below 5 models)."
    )
    if worked:
        caption = (
            "Ranked by |Spearman ρ| (ties by |Pearson r|): rank 1 follows the controlled bias "
            "best; the sign says whether the measure rises or falls with r. " + caption
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
        ],
        key_columns=2,
    )
    for row in meta.rows:
        note = plain(row.note)
        if not worked:
            note = "; ".join(p for p in note.split("; ") if not p.startswith("not ranked"))
        maker.add(
            [
                cells.text(str(row.rank) if row.rank is not None else "—"),
                cells.text(index.cards.title(row.measure)),
                cells.text(index.cards.dataset_title(row.dataset)),
                cells.text(index.cards.scorer_name(row.scorer)),
                cells.Cell(kind="count", value=float(row.n), note=note),
                cells.number(row.pearson, 2),
                cells.pvalue(row.pearson_p),
                cells.Cell(
                    kind="estimate",
                    value=row.spearman,
                    low=row.spearman_ci_low,
                    high=row.spearman_ci_high,
                    digits=2,
                ),
                cells.pvalue(row.spearman_p),
            ]
        )
    return maker.table()


def values_figure(index: MeasurementIndex, meta: MetaEvaluation, anchor: str) -> Chart | None:
    """Each measure's values across r, one small panel per measure."""
    rows: list[dict[str, Any]] = []
    order: list[str] = []
    for row in meta.rows:
        if sum(v is not None for v in row.values) < 2:
            continue
        label = f"{index.cards.title(row.measure)}, {row.dataset} ({row.scorer.label})" + (
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
            y_title="value",
            order=order,
            columns=3,
        ),
        alt=f"Values of each measure across the male share r for {meta.entry}",
    )


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
        blocks=control_blocks(meta),
        lead_charts=[probe] if probe is not None else [],
        tables=[meta_table(index, meta, anchor)],
        charts=[values] if values is not None else [],
    )


def variant_sections(index: MeasurementIndex) -> list[Section]:
    """The Variants section (when the result has variants or corpora), then one section
    per meta-evaluation; none for an audit without variants."""
    sections = [s] if (s := variants_section(index)) is not None else []
    return sections + [meta_section(index, m) for m in index.result.meta_evaluations]


# --------------------------------------------------------------------------- page 1


def _tally(records: list[ComparisonRecord]) -> str:
    counts = {
        k: sum(r.verdict == k for r in records)
        for k in ("better", "worse", "not distinguishable", "undefined")
    }
    parts = [
        f"{counts['better']} better",
        f"{counts['worse']} worse",
        f"{counts['not distinguishable']} not distinguishable",
    ]
    if counts["undefined"]:
        parts.append(f"{counts['undefined']} undefined")
    return _join(parts)


def summary_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: one sentence per base model's debiased variants and per meta-evaluation."""
    variants = index.variants
    blocks: list[SummaryBlock] = []
    debiased: dict[str, list[VariantRecord]] = {}
    for entry in variants.entries().values():
        for v in entry:
            if v.ratio is None:
                debiased.setdefault(v.base, []).append(v)
    comparisons = base_comparisons(index)
    for base, mine in debiased.items():
        methods = unique(variants.method_name(v) for v in mine)
        ids = {v.id for v in mine}
        against = [c for c in comparisons if c.model_a in ids]
        text = (
            f"{plural(len(mine), 'debiased variant')} of {base} ({_join(methods)}) audited "
            "beside their base"
        )
        if against:
            compared = plural(len(against), "paired comparison")
            text += f"; against the base on the same items, of {compared}: {_tally(against)}"
        blocks.append(SummaryBlock(heading="Debiased variants.", text=text + ". See Variants."))
    for meta in index.result.meta_evaluations:
        ratios = f"r = {min(meta.ratios):g} to {max(meta.ratios):g}"
        lead = f"{plural(len(meta.models), 'bias-controlled model')} of {meta.base} ({ratios}): "
        if meta.control.worked:
            best = next((r for r in meta.rows if r.rank == 1), None)
            follow = (
                f"The measure that follows it best is {_measure_words(index, best)} "
                f"(Spearman {fmt_num(best.spearman, 2)})"
                if best is not None
                else "No measure has a defined correlation with r"
            )
            text = f"{lead}the bias control worked: {control_reason(meta)}. {follow}."
            emphasis = "good"
        else:
            text = (
                f"{lead}the bias control did not work, so no measure is ranked: "
                f"{control_reason(meta)}."
            )
            emphasis = "warn"
        blocks.append(
            SummaryBlock(
                heading="Meta-evaluation.",
                text=text + " See Meta-evaluation.",
                emphasis=emphasis,  # type: ignore[arg-type]
            )
        )
    return blocks
