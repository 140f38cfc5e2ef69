"""The Variants section of a report: how each variant was trained and on what corpus
(Kaneko et al. 2022, Table 1) and each variant against its base; then one meta-evaluation
section per ratio-model entry (`audit.report.meta_evaluation`).

Everything comes from results.json: `variants`, `corpora` and the `comparisons` whose
model A is a variant and model B its base.
"""

from __future__ import annotations

from typing import Any

from audit.report import cells
from audit.report.comparison_table import comparison_row
from audit.report.comparison_verdicts import count_verdicts, distinct, verdict_key
from audit.report.corpora import corpora_table
from audit.report.downstream import downstream_table
from audit.report.formatting import group_name, join_words, plural
from audit.report.index import MeasurementIndex, unique
from audit.report.layout import BODY_ROWS
from audit.report.lm_cost import lm_cost_table
from audit.report.meta_evaluation import meta_section
from audit.report.model import Section, Table
from audit.report.tables import model_cell
from audit.report.variant_training import loss_chart, ordered_variants, training_table
from audit.results import ComparisonRecord, VariantRecord
from audit.results.studies import DOWNSTREAM_FAMILY


def _option_value(value: Any) -> str:
    """An option value for people: a list as its items ('age, socioeconomic'), never its
    Python repr; a long list of numbers as its count and range."""
    if isinstance(value, list | tuple):
        if len(value) > 4:
            numbers = [v for v in value if isinstance(v, int | float)]
            if len(numbers) == len(value):
                return f"{len(value)} values, {min(numbers):g} to {max(numbers):g}"
            return f"{len(value)} values"
        return ", ".join(_option_value(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_option_value(v)}" for k, v in value.items()) or "none"
    return str(value)


def _options(record: VariantRecord) -> str:
    options = record.method.options
    if not options:
        return "default options"
    return ", ".join(f"{k} = {_option_value(options[k])}" for k in sorted(options))


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
    for v in ordered_variants(index):
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


def base_comparisons(index: MeasurementIndex) -> list[ComparisonRecord]:
    """The comparisons of a variant (model A) with its base (model B), by dataset, measure
    and the variants' order."""
    result = index.result
    found = [
        c
        for c in result.comparisons
        if index.variants.is_base_comparison(c) and c.test_family != DOWNSTREAM_FAMILY
    ]
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
        "difference (uncorrected); p dist.: the paired-bootstrap test of the distance to the "
        "ideal value; p diff.: McNemar's exact test for the bias score, else the paired "
        "bootstrap; both corrected over the family (raw p under each); detectable: the "
        "smallest |variant − base| the corrected test finds with the stated power. "
        + verdict_key("the variant", "its base"),
        columns=[
            "Dataset",
            "Measure",
            "Variant (of base)",
            "Variant value",
            "Base value",
            "Variant − base (CI)",
            "p dist. (corr.)",
            "p diff. (corr.)",
            "Detectable",
            "Variant is",
        ],
        key_columns=2,
    )
    for r in records:
        row = comparison_row(r, index.cards)
        # comparison_row: dataset, measure, "A vs B", group, items, A, B, A - B, p dist., p
        # diff., detectable, verdict; here the variant names its method and base under
        # it, a group joins the measure and the items join the dataset's note.
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
                cells.text(
                    r.model_a, sub=f"{index.variants.method_words(r.model_a)} of {r.model_b}"
                ),
                *row[5:],
            ]
        )
    return maker.table().model_copy(update={"detail": True})


def variant_tally_table(index: MeasurementIndex) -> Table | None:
    """The body's view of Variants against their base: per variant, how many of its paired
    comparisons moved closer to or further from the ideal (the rows are in the appendix)."""
    records = base_comparisons(index)
    if not records:
        return None
    maker = cells.TableMaker(
        id="variant-comparison-tally",
        title="Variants against their base, counted",
        caption="Per variant, its distinct paired comparisons with its base on the same items "
        "(every dataset, measure and group; one repeated under another measure's name, as the "
        "bias score and StereoSet's SS, is counted once), counted by verdict after the "
        "correction over the family; each comparison is a row of the table 'Variants against "
        "their base' in the appendix. " + verdict_key("the variant", "its base"),
        columns=[
            "Variant",
            "Base",
            "Comparisons",
            "Closer to the ideal",
            "Further from the ideal",
            "Changed",
            "Borderline",
            "No detectable change",
            "Undefined",
        ],
    )
    further: list[int] = []
    moved: list[int] = []
    for i, variant in enumerate(unique(r.model_a for r in records)):
        mine = [r for r in records if r.model_a == variant]
        counts = count_verdicts(mine)
        if counts["further from the ideal"]:
            further.append(i)
        elif counts["no detectable change"] < len(distinct(mine)):
            moved.append(i)
        maker.add(
            [
                cells.text(variant, sub=index.variants.method_words(variant)),
                cells.text(join_words(unique(r.model_b for r in mine))),
                cells.count(len(distinct(mine))),
                cells.count(counts["closer to the ideal"]),
                cells.Cell(
                    kind="count",
                    value=float(counts["further from the ideal"]),
                    emphasis="bad" if counts["further from the ideal"] else "",
                ),
                cells.count(counts["changed"]),
                cells.count(counts["borderline"]),
                cells.count(counts["no detectable change"]),
                cells.count(counts["undefined"]),
            ]
        )
    # A variant that moved any measure away from the ideal comes first in the body. In a
    # table longer than the body's, a variant with no detectable change anywhere is left to
    # the appendix (the caption says so; with none that moved, the body shows no row).
    table = maker.table()
    update: dict[str, object] = {"key_rows": further, "key_rows_words": "further from the ideal"}
    shown = len(further) + len(moved)
    if len(table.rows) > BODY_ROWS and shown < len(table.rows):
        quiet = len(table.rows) - shown
        update["key_rows"] = further + moved
        update["key_rows_words"] = "with a verdict other than no detectable change"
        update["body_limit"] = min(shown, BODY_ROWS)
        update["caption"] = table.caption + (
            f" The {plural(quiet, 'variant')} whose every comparison is 'no detectable change' "
            + ("are" if quiet > 1 else "is")
            + " in the appendix only"
            + ("; here no variant has any other verdict." if not shown else ".")
        )
    return table.model_copy(update=update)


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
            f"{plural(len(variants.records), 'variant')} of {join_words(bases)} from "
            f"{plural(len(entries), 'variant entry', 'variant entries')} of the spec"
        )
        if n_ratio:
            intro += f" ({n_ratio} of them bias-controlled ratio models, see Meta-evaluation)"
        compared = variant_comparison_table(index)
        intro += (
            ". Each was derived from its base (trained, or with 0 steps computed once or "
            "applied at scoring time) and then audited exactly like a model: it "
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
        tables += [t for t in (variant_tally_table(index), compared) if t is not None]
    if (downstream := downstream_table(index)) is not None:
        tables.append(downstream)
    if (cost := lm_cost_table(index)) is not None:
        tables.append(cost)
    charts = [c] if variants and (c := loss_chart(index)) is not None else []
    return Section(id="variants", title="Variants", intro=intro, tables=tables, charts=charts)


def variant_sections(index: MeasurementIndex) -> list[Section]:
    """The Variants section (when the result has variants or corpora), then one section
    per meta-evaluation; none for an audit without variants."""
    sections = [s] if (s := variants_section(index)) is not None else []
    return sections + [meta_section(index, m) for m in index.result.meta_evaluations]
