"""The tables `audit run` ends with on the terminal: every measurement on the whole dataset
(dataset, measure, model, value, confidence interval, gate verdict), then a table per gate
(its rule in the title; model, value, CI, verdict and a short reason per verdict).

Numbers read as in the report: a measure's decimals come from its values on the dataset
(`report.cells.digits_for`), narrowed to what its interval supports
(`report.formatting.ci_digits`). Per-group values, charts and caveats stay in the report.
The tables go to stderr, as rich tables: coloured on a terminal, plain text elsewhere;
cells wrap so that 80 columns hold them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from audit.report.cells import digits_for
from audit.report.formatting import (
    MISSING,
    ci_digits,
    fmt_ci,
    fmt_num,
    group_name,
    plain,
    plain_band,
)
from audit.results import AuditResult, GateVerdict, Measurement

if TYPE_CHECKING:
    from rich.console import Group
    from rich.table import Table

#: Verdicts worst first, and how a terminal shows them.
VERDICT_ORDER = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}
VERDICT_STYLE = {"FAIL": "bold red", "INCONCLUSIVE": "yellow", "PASS": "green"}


def measure_digits(result: AuditResult) -> dict[tuple[str, str], int]:
    """Decimals per (dataset, measure label), as the report's tables choose them."""
    values: dict[tuple[str, str], list[float | None]] = {}
    for m in result.measurements:
        values.setdefault((m.dataset, m.measure.label), []).append(m.value)
    return {key: digits_for(found) for key, found in values.items()}


def _ordered(result: AuditResult) -> list[Measurement]:
    """The whole-dataset measurements, by dataset, measure (as first measured) and model."""
    whole = [m for m in result.measurements if m.group == "all"]
    datasets = {d.name: i for i, d in enumerate(result.datasets)}
    models = {m.id: i for i, m in enumerate(result.models)}
    measures: dict[str, int] = {}
    for m in whole:
        measures.setdefault(m.measure.label, len(measures))
    return sorted(
        whole,
        key=lambda m: (
            datasets.get(m.dataset, len(datasets)),
            m.dataset,
            measures[m.measure.label],
            models.get(m.model, len(models)),
        ),
    )


def _several_scorers(rows: Sequence[Measurement]) -> bool:
    """Whether a model is measured with more than one scorer somewhere (then rows name it)."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    for m in rows:
        seen.setdefault((m.dataset, m.measure.label, m.model), set()).add(m.scorer.label)
    return any(len(s) > 1 for s in seen.values())


def _gate_cell(m: Measurement, verdicts: Sequence[GateVerdict]) -> str:
    """The verdicts of the gates on this measurement: 'PASS'; 'FAIL (gate 2)' when several
    gates judge it; a per-group gate as 'FAIL 2/9 groups' (how many did not pass, or
    'PASS 9/9 groups'); '' when no gate does."""
    mine = [
        v
        for v in verdicts
        if v.dataset == m.dataset
        and v.measure == m.measure
        and v.model == m.model
        and (v.scorer is None or v.scorer == m.scorer)
    ]
    words = []
    several = len({v.gate_index for v in mine}) > 1
    for index in sorted({v.gate_index for v in mine}):
        gate = [v for v in mine if v.gate_index == index]
        named = f" (gate {index + 1})" if several else ""
        whole = [v for v in gate if v.group == "all"]
        groups = [v for v in gate if v.group != "all"]
        if whole:
            words.append(f"{_worst(whole)}{named}")
        if groups:
            bad = sum(v.verdict != "PASS" for v in groups)
            worst = _worst(groups)
            words.append(f"{worst} {bad or len(groups)}/{len(groups)} groups{named}")
    return ", ".join(words)


def _worst(verdicts: Sequence[GateVerdict]) -> str:
    return min((v.verdict for v in verdicts), key=lambda x: VERDICT_ORDER.get(x, 3))


def _styled(text: str) -> str:
    """Verdict words in their colour (rich markup; plain text off a terminal)."""
    from rich.markup import escape

    out = escape(text)
    for verdict, style in VERDICT_STYLE.items():
        out = out.replace(verdict, f"[{style}]{verdict}[/{style}]")
    return out


def _table(title: str | None) -> Table:
    """A table in the style of both: a rule under the heading, no frame, one space and
    the column's padding between columns, title and caption on the left."""
    from rich import box
    from rich.table import Table

    return Table(
        title=title,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        title_justify="left",
        caption_justify="left",
        title_style="bold",
        caption_style="dim",
    )


def results_table(result: AuditResult) -> Table | None:
    """Every measure on the whole dataset, per model: value, CI and gate verdict;
    None when the run measured nothing."""
    from rich.markup import escape

    rows = _ordered(result)
    if not rows:
        return None
    digits = measure_digits(result)
    scorers = _several_scorers(rows)
    gated = bool(result.gate_verdicts)
    level = f"{100 * (1 - result.alpha):g}%"
    table = _table("Results (whole dataset)")
    table.caption = "Per-group values, charts and caveats are in the report."
    table.add_column("Dataset", overflow="fold")
    table.add_column("Measure", overflow="fold")
    table.add_column("Model", overflow="fold")
    table.add_column("Value", justify="right", no_wrap=True)
    table.add_column(f"{level} CI", justify="right", no_wrap=True)
    if gated:
        table.add_column("Gate", min_width=12)
    previous: tuple[str, str] | None = None
    for m in rows:
        key = (m.dataset, m.measure.label)
        model = f"{m.model} · {m.scorer.label}" if scorers else m.model
        if m.status != "ok" or m.value is None:
            value, interval = MISSING, f"undefined: {_first_clause(m.note)}"
        else:
            d = ci_digits(m.ci_low, m.ci_high, digits.get(key, 3))
            value = fmt_num(m.value, d)
            interval = fmt_ci(m.ci_low, m.ci_high, d) or "no interval"
        cells = [
            escape(m.dataset) if key[0] != (previous or ("", ""))[0] else "",
            escape(m.measure.label) if key != previous else "",
            escape(model),
            value,
            escape(interval),
        ]
        if gated:
            cells.append(_styled(_gate_cell(m, result.gate_verdicts)))
        table.add_row(*cells)
        previous = key
    return table


def _first_clause(note: str) -> str:
    """A note cut to its first clause (before '; '), without backticks."""
    text = plain(note).split("; ")[0].strip()
    return text or "no value"


def short_reason(v: GateVerdict) -> str:
    """Why a verdict is what it is, in a few words: 'CI inside', 'CI above', 'CI below',
    'CI crosses 51', 'no CI', 'undefined: too few items', 'not measured'."""
    if v.ci_low is not None and v.ci_high is not None and v.value is not None:
        low = float("-inf") if v.low is None else v.low
        high = float("inf") if v.high is None else v.high
        if v.verdict == "PASS":
            return "CI inside"
        if v.verdict == "FAIL":
            return "CI above" if v.ci_low > high else "CI below"
        crossed = [
            f"{b:g}" for b, past in ((low, v.ci_low < low), (high, v.ci_high > high)) if past
        ]
        return f"CI crosses {' and '.join(crossed)}" if crossed else plain(v.reason)
    if v.value is not None:
        return "no CI"
    if v.reason.startswith("measure undefined: "):
        return "undefined: " + _first_clause(v.reason.removeprefix("measure undefined: "))
    return "not measured"


def gates_tables(result: AuditResult) -> list[Group]:
    """One table per gate under a heading with its rule and tally ('Gate 2: safety_score
    on toxigen, required at least 0.4: 9 FAIL, 4 INCONCLUSIVE'), one row per verdict,
    failures first: model (scorer and group where they tell verdicts apart), value, CI,
    verdict and a short reason. A table per gate keeps each within 80 columns."""
    from rich.console import Group
    from rich.markup import escape
    from rich.text import Text

    digits = measure_digits(result)
    tables = []
    for index in sorted({v.gate_index for v in result.gate_verdicts}):
        mine = sorted(
            (v for v in result.gate_verdicts if v.gate_index == index),
            key=lambda v: (VERDICT_ORDER.get(v.verdict, 3), v.model or ""),
        )
        first = mine[0]
        tally = ", ".join(
            f"{n} {k}" for k in VERDICT_ORDER if (n := sum(v.verdict == k for v in mine))
        )
        heading = Text.from_markup(
            f"Gate {index + 1}: {escape(first.measure.label)} on {escape(first.dataset)}, "
            f"required {escape(plain_band(first.low, first.high))}: {_styled(tally)}",
            style="bold",
        )
        table = _table(None)
        scorers = len({v.scorer.label if v.scorer else "" for v in mine}) > 1
        grouped = any(v.group != "all" for v in mine)
        table.add_column("Model", overflow="fold")
        if scorers:
            table.add_column("Scorer", overflow="fold")
        if grouped:
            table.add_column("Group", overflow="fold")
        table.add_column("Value", justify="right", no_wrap=True)
        table.add_column("CI", justify="right", no_wrap=True)
        table.add_column("Verdict", no_wrap=True)
        table.add_column("Why", overflow="fold")
        for v in mine:
            d = ci_digits(v.ci_low, v.ci_high, digits.get((v.dataset, v.measure.label), 3))
            cells = [v.model or "every model"]
            if scorers:
                cells.append(v.scorer.label if v.scorer else "")
            if grouped:
                cells.append(group_name(v.group))
            cells += [fmt_num(v.value, d), fmt_ci(v.ci_low, v.ci_high, d)]
            table.add_row(*map(escape, cells), _styled(v.verdict), escape(short_reason(v)))
        tables.append(Group(heading, table))
    return tables


def print_run_tables(result: AuditResult, stream: TextIO, width: int | None = None) -> None:
    """The results table, then the gates table (when there are gates), on `stream`:
    colours only when it is a terminal; `width` fixes the columns (default: the
    terminal's, 80 off a terminal)."""
    from rich.console import Console

    console = Console(file=stream, width=width, highlight=False, soft_wrap=False)
    for table in [results_table(result), *gates_tables(result)]:
        if table is not None:
            console.print()
            console.print(table)
