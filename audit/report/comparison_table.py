"""Paired comparisons (`ComparisonRecord`s) as a table: both values, the difference with
its paired interval, the corrected tests, the detectable difference and the verdict. Used
by the comparison study, the variants against their base and `audit compare`."""

from __future__ import annotations

from audit.report import cells
from audit.report.cards import MeasureCards
from audit.report.comparison_verdicts import EMPHASIS as VERDICT_EMPHASIS
from audit.report.comparison_verdicts import verdict_key
from audit.report.formatting import fmt_num, fmt_p, fmt_pct, group_name
from audit.report.model import Table
from audit.results import ComparisonRecord


def comparison_table(
    records: list[ComparisonRecord],
    cards: MeasureCards,
    *,
    table_id: str,
    title: str = "Paired comparison on the same items",
    label_a: str = "A",
    label_b: str = "B",
    pair_column: bool = True,
) -> Table:
    """ComparisonRecords as a table: both values, A − B with its paired CI, tests, verdict.
    Without `pair_column` (every record of one pair, which the title names) the models
    are not repeated on each row."""
    maker = cells.TableMaker(
        id=table_id,
        title=title,
        caption=f"{label_a} against {label_b} on the same items. Paired bootstrap CI of the "
        f"difference (uncorrected); p dist.: the paired-bootstrap test of the distance to the "
        f"ideal value; p {label_a} − {label_b}: McNemar's exact test for the bias score, else "
        "the paired bootstrap; both corrected over the family (raw p under each); detectable: "
        f"the smallest |{label_a} − {label_b}| the corrected test finds with the stated power. "
        f"{verdict_key(label_a, label_b)}",
        columns=[
            "Dataset",
            "Measure",
            *([f"{label_a} vs {label_b}"] if pair_column else []),
            "Group",
            "Items",
            label_a,
            label_b,
            f"{label_a} − {label_b} (CI)",
            "p dist. (corr.)",
            f"p {label_a} − {label_b} (corr.)",
            "Detectable",
            f"{label_a} is",
        ],
        key_columns=2,
    )
    for r in records:
        row = comparison_row(r, cards)
        maker.add(row if pair_column else row[:2] + row[3:])
    # A move towards or away from the ideal comes first in the body.
    moved = [
        i
        for i, r in enumerate(records)
        if r.verdict in ("closer to the ideal", "further from the ideal")
    ]
    return maker.table().model_copy(
        update={"key_rows": moved, "key_rows_words": "closer to or further from the ideal"}
    )


def comparison_row(r: ComparisonRecord, cards: MeasureCards) -> list[cells.Cell]:
    """One ComparisonRecord as a table row."""
    emphasis = VERDICT_EMPHASIS[r.verdict]
    digits = cells.digits_for([r.value_a, r.value_b])
    diff = cells.interval(r.difference, r.difference_ci_low, r.difference_ci_high, digits)
    return [
        cells.text(r.dataset, note=f"scored by {cards.scorer_name(r.scorer)}"),
        cells.text(cards.title(r.measure)),
        cells.text(f"{r.model_a} vs {r.model_b}"),
        cells.text(group_name(r.group)),
        cells.count(r.n_items),
        cells.number(r.value_a, digits),
        cells.number(r.value_b, digits),
        diff,
        *test_cells(r, digits),
        cells.verdict(r.verdict, emphasis, note=verdict_note(r)),
    ]


def test_cells(r: ComparisonRecord, digits: int) -> list[cells.Cell]:
    """The corrected p of the distance test and of the difference test (raw under each;
    a file before 4.0 shows its raw p-values alone), and the detectable difference."""
    if r.correction is None:
        return [
            cells.pvalue(r.p_value),
            cells.pvalue(r.mcnemar_p),
            cells.text("—", note="not computed (results written before 4.0)"),
        ]
    test = "McNemar" if r.difference_test == "exact McNemar" else "bootstrap"
    detectable = (
        cells.text("—")
        if r.detectable_difference is None
        else cells.text(fmt_num(r.detectable_difference, digits), sub=_power(r))
    )
    return [
        cells.text(fmt_p(r.p_value_corrected), sub=f"raw {fmt_p(r.p_value)}"),
        cells.text(fmt_p(r.difference_p_corrected), sub=f"raw {fmt_p(r.difference_p)}, {test}"),
        detectable,
    ]


def _power(r: ComparisonRecord) -> str:
    return "" if r.detectable_power is None else f"{fmt_pct(r.detectable_power)} power"


def verdict_note(r: ComparisonRecord) -> str:
    """Why a verdict is borderline, or that the record repeats another, and the record's
    own note."""
    parts = [f"borderline: {r.borderline_reason}" if r.borderline_reason else "", r.note]
    return "; ".join(p for p in parts if p)
