"""Page 1 alone, signable: who audited what, when, on which exact spec; each model with a
short fingerprint; every gate check with its verdict and interval; one sentence per
dataset's headline and per study; and the caveats, as many as the Caveats section lists.

The sentences are the ones the rest of the report already derives from results.json
(`audit.report.headlines`, `variant_summary`, `lm_cost`, `extrinsic`, `precision`,
`seat_section`); the robustness, correlation and comparison studies get theirs here, from
their records' verdicts and corrected p-values only.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.report import correlation_words as words
from audit.report.chat import chat_blocks
from audit.report.comparison_verdicts import comparison_words
from audit.report.downstream import downstream_block
from audit.report.extrinsic import summary_blocks as extrinsic_summary_blocks
from audit.report.formatting import (
    fmt_date,
    fmt_num,
    fmt_pct,
    group_name,
    join_words,
    plural,
    upper_first,
)
from audit.report.gate_summary import page_one_gate_table, page_one_gates
from audit.report.headlines import headline_sentence
from audit.report.index import MeasurementIndex, VariantLookup
from audit.report.intrinsic_extrinsic import extrinsic_correlations
from audit.report.lm_cost import lm_cost_blocks
from audit.report.model import Caveat, KeyValue, PageOne, SummaryBlock
from audit.report.precision import precision_blocks
from audit.report.seat_section import seat_summary_block
from audit.report.served import served_blocks
from audit.report.variant_summary import summary_blocks as variant_blocks
from audit.results import GateVerdict

#: Hex digits of a model's fingerprint on page 1 (all 64 are in results.json).
FINGERPRINT_DIGITS = 12

#: Records named one by one in a study's sentence before 'and N more'.
MAX_NAMED = 3


def _named(names: list[str]) -> str:
    shown = names[:MAX_NAMED]
    if len(names) > MAX_NAMED:
        shown.append(f"{len(names) - MAX_NAMED} more")
    return join_words(shown)


def facts(index: MeasurementIndex) -> list[KeyValue]:
    """Owner, date, the spec with its full sha256 (last: it takes a line of its own), the
    tool that wrote the results; the audit's name is page 1's title."""
    result = index.result
    audit = result.audit
    return [
        KeyValue(label="Owner", value=audit.owner or "not stated in the spec"),
        KeyValue(label="Date", value=fmt_date(result.created_at)),
        KeyValue(label="Spec", value=audit.spec_path, kind="code"),
        KeyValue(label="Tool", value=f"bias-audit {result.tool_version}, seed {audit.seed}"),
        KeyValue(label="Spec sha256", value=audit.spec_sha256, kind="code"),
    ]


def model_prints(index: MeasurementIndex) -> list[KeyValue]:
    """Every audited model (variants included) with the first hex digits of its sha256."""
    return [
        KeyValue(
            label=m.id,
            value=m.fingerprint[:FINGERPRINT_DIGITS],
            kind="code",
            title=m.fingerprint,
        )
        for m in index.result.models
    ]


def robustness_block(index: MeasurementIndex) -> SummaryBlock | None:
    """How many measure x rate checks kept the full-data result often enough."""
    records = list(index.result.robustness)
    if not records:
        return None
    rates = sorted({r.rate for r in records})
    span = fmt_num(rates[0], 2) + (f" to {fmt_num(rates[-1], 2)}" if len(rates) > 1 else "")
    counts = {k: sum(r.verdict == k for r in records) for k in ("robust", "not robust")}
    undefined = len(records) - counts["robust"] - counts["not robust"]
    text = (
        f"Of {plural(len(records), 'measure check')} on seeded subsamples (sampling rates "
        f"{span}), {counts['robust']} kept the full-data ordering of the models and their side "
        f"of the ideal value often enough (robust) and {counts['not robust']} did not"
        + (f"; {undefined} undefined" if undefined else "")
        + "."
    )
    fragile = [
        f"{index.cards.name(r.measure)}"
        + (f" ({group_name(r.group)})" if r.group != "all" else "")
        + f" on {index.cards.dataset_title(r.dataset)} at rate {fmt_num(r.rate, 2)} "
        f"(agreement {fmt_pct(r.agreement_share)})"
        for r in records
        if r.verdict == "not robust"
    ]
    if fragile:
        text += f" Not robust: {_named(fragile)}."
    return SummaryBlock(
        heading="Robustness to dataset size.",
        text=text,
        emphasis="warn" if fragile else "",
    )


def correlation_block(index: MeasurementIndex) -> SummaryBlock | None:
    """The correlations between the (intrinsic) measures across models, from their
    corrected Kendall tests; the intrinsic-extrinsic ones have their own sentence."""
    extrinsic = [(c.x, c.y) for c in extrinsic_correlations(index)]
    records = [
        c
        for c in index.result.correlations
        if (c.x, c.y) not in extrinsic and (c.y, c.x) not in extrinsic
    ]
    if not records:
        return None
    alpha = index.result.alpha
    n = max(c.n for c in records)
    lead = f"{plural(len(records), 'pair')} of measures across up to {plural(n, 'model')}"
    if any(c.correction is None for c in records):
        text = (
            f"{lead}; their p-values were not corrected for multiple comparisons (written "
            "before results_version 3.0), so no conclusion is drawn from them here."
        )
        return SummaryBlock(heading="Correlation between measures.", text=text)
    detection = words.best_detection(records)
    if detection is None:  # a file before 4.0: corrected, but no power computed
        # Whether a test could reach significance at all is its floor's to say: a 3.x
        # `conclusive` meant that, but reads False once migrated (4.0: "powered").
        reachable = [
            c
            for c in records
            if c.kendall_tau is not None
            and (c.kendall_p_floor is None or c.kendall_p_floor <= alpha)
        ]
        if not reachable:
            why = words.too_few_sentence(records, alpha)
            text = f"{lead}: too few models to conclude anything ({why})."
            return SummaryBlock(heading="Correlation between measures.", text=text)
    tested = words.counted(records)
    significant = [c for c in tested if words.significant(c, alpha)]
    method = words.correction_name(records[0])
    text = (
        f"{lead}: {len(significant)} of the {plural(len(tested), 'distinct pair')} significant "
        f"after {method}"
    )
    if trivial := words.trivial_sentence(records):
        text += f"; {trivial}"
    text += "."
    if detection is not None:
        text += f" {upper_first(words.detection_short(detection))}."
    else:
        text += (
            " The power of these tests was not computed (results written before 4.0), so a "
            "pair that is not significant says nothing about whether the measures correlate."
        )
    return SummaryBlock(heading="Correlation between measures.", text=text)


def comparison_block(index: MeasurementIndex) -> SummaryBlock | None:
    """Paired comparisons of models other than a variant against its base, tallied."""
    variants = VariantLookup(index.result)
    records = [c for c in index.result.comparisons if not variants.is_base_comparison(c)]
    if not records:
        return None
    words = comparison_words(records, index.cards)
    text = (
        f"Of {words.counted} of one model with another on the same items ({words.family}), "
        f"the later was: {words.tally}."
    )
    text += "".join(f" {upper_first(e)}." for e in words.extra)
    moved = words.moved
    items = moved[:MAX_NAMED]
    if moved:
        text += " Moved, largest change first:"
    if len(moved) > MAX_NAMED:  # the rest counted, never dropped silently
        items.append(f"and {len(moved) - MAX_NAMED} more (see Paired comparison of models)")
    return SummaryBlock(heading="Paired comparison of models.", text=text, items=items)


def caveat_sentence(caveats: Sequence[Caveat]) -> str:
    """All the caveats the Caveats section lists, counted as it lists them: the warnings
    (they qualify the numbers) by title, then the notes for information."""
    if not caveats:
        return "No caveat was triggered by these results."
    warnings = [c.title for c in caveats if c.severity == "warning"]
    notes = [c.title for c in caveats if c.severity != "warning"]
    parts = []
    if warnings:
        verb = "qualifies" if len(warnings) == 1 else "qualify"
        parts.append(f"{len(warnings)} {verb} these numbers: " + "; ".join(warnings))
    if notes:
        parts.append(f"{len(notes)} for information: " + "; ".join(notes))
    return (
        f"{plural(len(caveats), 'caveat')}, listed under Caveats. "
        + ". ".join(p[0].upper() + p[1:] for p in parts)
        + "."
    )


def findings(index: MeasurementIndex) -> list[SummaryBlock]:
    """One sentence per dataset's headline measure and per study present in the results."""
    blocks = served_blocks(index) + chat_blocks(index)
    blocks += [
        b.model_copy(update={"items": []}) for b in precision_blocks(index)
    ]  # the per-model lines stay in the detail (page 2)
    blocks += [b for d in index.result.datasets if (b := headline_sentence(index, d.name))]
    blocks += [b] if (b := seat_summary_block(index.result)) is not None else []
    blocks += variant_blocks(index)
    blocks += [b] if (b := downstream_block(index)) is not None else []
    blocks += lm_cost_blocks(index) + extrinsic_summary_blocks(index)
    for block in (robustness_block(index), correlation_block(index), comparison_block(index)):
        if block is not None:
            blocks.append(block)
    return blocks


def build_page_one(
    index: MeasurementIndex, verdicts: Sequence[GateVerdict], caveats: Sequence[Caveat]
) -> PageOne:
    """Everything page 1 shows, each part from the results (see the module docstring)."""
    level = fmt_num(100 * (1 - index.result.alpha), 0)
    return PageOne(
        facts=facts(index),
        models=model_prints(index),
        models_caption=f"(fingerprint: the first {FINGERPRINT_DIGITS} hex digits of the sha256 "
        "over the model's files"
        + (
            "; of a served model, over the server's model id, the revision and the probe)"
            if any(m.endpoint is not None for m in index.result.models)
            else ")"
        ),
        gates=page_one_gates(index, verdicts),
        gate_table=page_one_gate_table(index, verdicts),
        gates_caption=f"(each check: verdict, value [{level}% confidence interval])",
        findings=findings(index),
        caveat_count=len(caveats),
        caveat_text=caveat_sentence(caveats),
    )
