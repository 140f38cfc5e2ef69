"""Where each part of a report is printed: a short body and an appendix.

The body keeps what a reviewer signs on: each section's headline tables, a long table cut
to the rows that matter (its `key_rows`, such as the correlations significant after
correction, are never left out; then its `rank`, such as |Kendall τ|, up to the row
limit) with a line that links to the whole table. Everything marked `detail` (per-group and
per-occupation tables, histograms, per-variant comparison rows, curves) and the whole of
every shortened table go to the appendix, one part per body section, each linked from the
end of its section; then the measure cards and the environment of the run. The HTML shows
each part collapsed (`<details>`); the PDF prints it after the body, from a new page.

The body is bounded by design: at most BODY_ROWS rows per table (key rows first, those
left out counted), whatever the size of the study.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from string import ascii_uppercase

from audit.report.formatting import plural
from audit.report.model import (
    AppendixPart,
    AppendixSection,
    CardView,
    Chart,
    Layout,
    Link,
    ReportModel,
    Section,
    Study,
    Table,
)

#: Most rows of a table in the body (rows in `key_rows` come on top).
BODY_ROWS = 6

#: The appendices, in the order of the body: (key, title).
GROUPS = (
    ("measurements", "Gates and datasets in detail"),
    ("studies", "Studies in detail"),
    ("cards", "Measure cards"),
    ("run", "Environment and run"),
)


@dataclass
class _Plan:
    """A part of the appendix before it is labelled."""

    group: str
    id: str
    title: str
    source: str = ""
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    cards: list[CardView] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.tables or self.charts or self.cards)


def body_rows(table: Table, limit: int) -> list[int]:
    """The rows the body shows of `table`, in the table's order: every row when it has at
    most `limit`; else its key rows first (in `rank` order), then the other rows in `rank`
    order (or the table's), never more than `limit`: the body stays bounded however many
    key rows there are, and `shorten` says how many of them it left out."""
    n = len(table.rows)
    if n <= limit:
        return list(range(n))
    order = [*table.rank, *range(n)]
    key = set(i for i in table.key_rows if 0 <= i < n)
    keep = list(dict.fromkeys(i for i in order if i in key))[:limit]
    for i in order:
        if len(keep) >= limit:
            break
        if 0 <= i < n and i not in keep:
            keep.append(i)
    return sorted(keep)


def _limit(table: Table) -> int:
    return BODY_ROWS if table.body_limit is None else table.body_limit


def _columns(table: Table) -> list[int]:
    n = len(table.columns)
    return [i for i in table.body_columns if 0 <= i < n] or list(range(n))


def _too_long(table: Table) -> bool:
    return len(table.rows) > _limit(table) or len(_columns(table)) < len(table.columns)


def _note_shown(note: str, refs: set[int]) -> bool:
    """A numbered table note ('3. ...') is kept when a shown cell refers to it; an
    unnumbered one (about the whole table) always."""
    number, dot, _ = note.partition(". ")
    return not (dot and number.isdigit()) or int(number) in refs


def shorten(table: Table, label: str) -> Table:
    """The body's copy of a long table: the rows `body_rows` picks, the `body_columns`,
    and a line linking to the whole table (which keeps its id) in Appendix `label`;
    `table` itself when it is shown whole."""
    if not _too_long(table):
        return table
    keep = body_rows(table, _limit(table))
    columns = _columns(table)
    n, m = len(table.rows), len(table.columns)
    shown = [f"{len(keep)} of {plural(n, 'row')}" if len(keep) < n else f"all {plural(n, 'row')}"]
    if len(columns) < m:
        shown.append(f"{len(columns)} of {m} columns")
    key = {i for i in table.key_rows if 0 <= i < n}
    left_out = len(key - set(keep))
    key_words = (
        f" ({len(key)} {table.key_rows_words}: {left_out} of them not shown here)"
        if left_out
        else ""
    )
    if not keep:  # a body limit of 0: the caption says why no row matters here
        shown = [f"None of its {plural(n, 'row')} is"]
    more = Link(
        href=f"#{table.id}",
        text=f"{' and '.join(shown)} shown here{key_words}; the whole table is in "
        f"Appendix {label}.",
    )
    rows = [[table.rows[i][j] for j in columns if j < len(table.rows[i])] for i in keep]
    refs = {c.note_ref for row in rows for c in row if c.note_ref is not None}
    subs, labels = table.column_subs, table.cell_labels
    return table.model_copy(
        update={
            "id": f"{table.id}-body",
            "rows": rows,
            "columns": [table.columns[j] for j in columns],
            "column_subs": [subs[j] for j in columns] if len(subs) == m else subs,
            "cell_labels": [labels[j] for j in columns] if len(labels) == m else labels,
            "key_columns": sum(j < table.key_columns for j in columns),
            "notes": [n for n in table.notes if _note_shown(n, refs)],
            "more": more,
        }
    )


def _plan(
    group: str, part_id: str, title: str, source: str, tables: list[Table], charts: list[Chart]
) -> _Plan:
    """A section's appendix part: its detail tables, the whole of its long tables, and its
    detail charts (in the section's order)."""
    return _Plan(
        group=group,
        id=part_id,
        title=title,
        source=source,
        tables=[t for t in tables if t.detail or _too_long(t)],
        charts=[c for c in charts if c.detail],
    )


def _body_tables(tables: list[Table], label: str) -> list[Table]:
    return [shorten(t, label) for t in tables if not t.detail]


def _body_charts(charts: list[Chart]) -> list[Chart]:
    return [c for c in charts if not c.detail]


def _letters(plans: list[_Plan]) -> tuple[dict[str, str], list[AppendixSection]]:
    """Each part's label ('B.2') by id, and the appendices with their parts."""
    labels: dict[str, str] = {}
    sections: list[AppendixSection] = []
    for key, title in GROUPS:
        mine = [p for p in plans if p.group == key and not p.empty()]
        if not mine:
            continue
        letter = ascii_uppercase[len(sections)]
        parts = []
        for number, p in enumerate(mine, 1):
            label = f"{letter}.{number}"
            labels[p.id] = label
            parts.append(
                AppendixPart(
                    id=p.id,
                    label=label,
                    title=p.title,
                    source=p.source,
                    tables=p.tables,
                    charts=p.charts,
                    cards=p.cards,
                )
            )
        sections.append(
            AppendixSection(
                id=f"appendix-{letter.lower()}", letter=letter, title=title, parts=parts
            )
        )
    return labels, sections


def _contents(part: AppendixPart) -> str:
    """'3 tables and 2 charts' of a part."""
    things = []
    if part.tables:
        things.append(plural(len(part.tables), "table"))
    if part.charts:
        things.append(plural(len(part.charts), "chart"))
    if part.cards:
        things.append(plural(len(part.cards), "card"))
    return " and ".join(things)


def build_layout(report: ReportModel) -> Layout:
    """The body and the appendix of `report` (nothing is dropped: every table and chart
    of the model is printed whole, in the body or in the appendix)."""
    plans: list[_Plan] = []
    gates = report.gates.table
    if gates is not None:
        plans.append(
            _plan("measurements", "detail-gates", "Every gate check", "gates", [gates], [])
        )
    for d in report.datasets:
        plans.append(
            _plan("measurements", f"detail-{d.anchor}", d.name, d.anchor, d.tables, d.charts)
        )
    sections = ([report.seat] if report.seat else []) + report.variant_sections
    for s in sections:
        plans.append(
            _plan("studies", f"detail-{s.id}", s.title, s.id, s.tables, s.lead_charts + s.charts)
        )
    ran = [s for s in report.studies if s.ran]
    for st in ran:
        sid = f"study-{st.id}"
        plans.append(_plan("studies", f"detail-{sid}", st.title, sid, st.tables, st.charts))
    if report.literature is not None:
        lit = report.literature
        plans.append(
            _plan("studies", f"detail-{lit.id}", lit.title, lit.id, lit.tables, lit.charts)
        )
    if report.cards:
        plans.append(_Plan(group="cards", id="cards", title="Every measure", cards=report.cards))
    # The cover's Models table grows by a row per model (page 1 already lists each one with
    # its fingerprint): a long one is cut in the body and printed whole with the run.
    models = report.cover.models
    long_models = _too_long(models)
    plans.append(
        _Plan(
            group="run",
            id="run",
            title="Models, packages, scoring units and time",
            tables=[*([models] if long_models else []), report.cover.packages, *report.appendix],
        )
    )
    labels, appendix = _letters(plans)
    parts = {p.id: p for a in appendix for p in a.parts}

    def label(part_id: str) -> str:
        return labels.get(part_id, "")

    see_also: dict[str, list[Link]] = {}
    for p in parts.values():
        if p.source:
            text = f"Appendix {p.label}: {p.title} in detail ({_contents(p)})"
            see_also.setdefault(p.source, []).append(Link(href=f"#{p.id}", text=text))
    datasets = [
        d.model_copy(
            update={
                "tables": _body_tables(d.tables, label(f"detail-{d.anchor}")),
                "charts": _body_charts(d.charts),
            }
        )
        for d in report.datasets
    ]

    def body_section(s: Section) -> Section:
        where = label(f"detail-{s.id}")
        return s.model_copy(
            update={
                "tables": _body_tables(s.tables, where),
                "lead_charts": _body_charts(s.lead_charts),
                "charts": _body_charts(s.charts),
            }
        )

    def body_study(st: Study) -> Study:
        if not st.ran:
            return st
        where = label(f"detail-study-{st.id}")
        return st.model_copy(
            update={"tables": _body_tables(st.tables, where), "charts": _body_charts(st.charts)}
        )

    return Layout(
        models_table=shorten(models, label("run")) if long_models else models,
        gates_table=None if gates is None else shorten(gates, label("detail-gates")),
        datasets=datasets,
        seat=None if report.seat is None else body_section(report.seat),
        variant_sections=[body_section(s) for s in report.variant_sections],
        studies=[body_study(st) for st in report.studies],
        literature=None if report.literature is None else body_section(report.literature),
        see_also=see_also,
        appendix=appendix,
    )
