"""The SEAT section of a report and its sentence on page 1, from results.json's `seat`
records: converted to plain `SeatRow`s for `audit.report.seat` (the reading side imports
no `audit.measures`)."""

from __future__ import annotations

from collections.abc import Callable

from audit.report import cells
from audit.report.formatting import fmt_num, join_words, plural
from audit.report.model import Section, SummaryBlock, Table
from audit.report.seat import SeatRow, seat_chart, seat_table
from audit.results import AuditResult, SeatBiasTypeRecord, SeatSection, SeatTestRecord


def _namer(section: SeatSection) -> Callable[[SeatTestRecord | SeatBiasTypeRecord], str]:
    """How a record's model is named: its id, with the `seat` entry's label when the
    spec has more than one."""
    several = len({r.measure.label for r in section.tests}) > 1

    def name(record: SeatTestRecord | SeatBiasTypeRecord) -> str:
        return f"{record.model} ({record.measure.label})" if several else record.model

    return name


def seat_rows(section: SeatSection) -> list[SeatRow]:
    """One plain row per model and test, in the order results.json holds them."""
    name = _namer(section)
    return [
        SeatRow(
            model=name(r),
            test=r.test,
            bias_type=r.bias_type,
            effect_size=r.effect_size,
            p_value=r.p_value,
            exact=r.exact,
            n_partitions=r.n_partitions,
            n_x=r.n_x,
            n_y=r.n_y,
            n_a=r.n_a,
            n_b=r.n_b,
        )
        for r in section.tests
    ]


def bias_type_table(section: SeatSection) -> Table | None:
    """bias-bench's summary: the mean |d| per model and bias type (None without any)."""
    if not section.bias_types:
        return None
    name = _namer(section)
    maker = cells.TableMaker(
        id="seat-bias-types",
        title="SEAT: mean |d| per bias type",
        caption="bias-bench's summary of each bias type: the mean absolute effect size over "
        "its tests that ran (tests without an effect size left out). 0 is no differential "
        "association.",
        columns=["Model", "Bias type", "Tests", "Mean |d|"],
        key_columns=2,
    )
    for r in section.bias_types:
        maker.add(
            [
                cells.text(name(r)),
                cells.text(r.bias_type),
                cells.count(r.n_tests),
                cells.number(r.mean_abs_effect, 3),
            ]
        )
    return maker.table()


def seat_report_section(result: AuditResult) -> Section | None:
    """The SEAT section: the mean |d| per bias type, the table per test and the chart;
    None when the run had no SEAT."""
    section = result.seat
    if section is None:
        return None
    rows = seat_rows(section)
    alpha = section.alpha
    per_test = seat_table(rows, alpha=alpha).model_copy(update={"detail": True})
    tables = [t for t in (bias_type_table(section), per_test) if t]
    chart = seat_chart(rows, alpha=alpha)
    chart = None if chart is None else chart.model_copy(update={"detail": True})
    pooling = sorted({str(r.pooling) for r in section.tests})
    intro = (
        f"Sentence encoder association tests (May et al. 2019) as bias-bench runs them: "
        f"{plural(len({r.test for r in section.tests}), 'test')} read from "
        f"{section.folder}, sentence vectors from each model's last hidden state "
        f"({join_words(pooling) or 'no'} pooling). The p-values are one-sided permutation "
        f"p-values, not corrected for the number of tests."
    )
    unverified = sorted({r.test for r in section.tests if not r.verified})
    blocks = []
    if unverified:
        blocks.append(
            SummaryBlock(
                heading="Changed test files.",
                text=f"{join_words(unverified)} did not match the pinned release's sha256: "
                "their numbers are not comparable with published SEAT results.",
                emphasis="warn",
            )
        )
    if section.skipped:
        blocks.append(
            SummaryBlock(
                heading="Left out.",
                items=[f"{s.model} ({s.measure.label}): {s.reason}" for s in section.skipped],
            )
        )
    return Section(
        id="seat",
        title="SEAT: sentence encoder association tests",
        intro=intro,
        blocks=blocks,
        tables=tables,
        charts=[chart] if chart is not None else [],
    )


def seat_summary_block(result: AuditResult) -> SummaryBlock | None:
    """Page 1's sentence on SEAT: the mean |d| per bias type and model, and how many tests
    had p < alpha (not corrected); None when the run had no SEAT."""
    section = result.seat
    if section is None or not section.tests:
        return None
    name = _namer(section)
    means = [
        f"{fmt_num(r.mean_abs_effect, 2)} for {r.bias_type} on {name(r)}"
        for r in section.bias_types
    ]
    below = sum(r.p_value < section.alpha for r in section.tests)
    models = len({r.model for r in section.tests})
    text = (
        f"Mean |d| {join_words(means)} (0 is no differential association); "
        if means
        else "No test of bias-bench's gender, race or religion lists ran; "
    ) + (
        f"{below} of {plural(len(section.tests), 'test')} on {plural(models, 'model')} had a "
        f"one-sided permutation p-value below {section.alpha:g}, not corrected for the "
        "number of tests."
    )
    return SummaryBlock(heading="SEAT.", text=text)
