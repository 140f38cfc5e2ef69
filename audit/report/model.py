"""The report model: everything a report shows, as plain typed data built from results.json.

Templates only lay this out: cells carry raw values and a kind, and the template applies
the format filters; no arithmetic happens in a template.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from audit.results import GateVerdict

CellKind = Literal[
    "text", "code", "number", "estimate", "meansd", "pvalue", "count", "pct", "verdict"
]


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Cell(Part):
    """One table cell. `estimate` shows value and CI [low, high]; `meansd` a mean ± its
    spread (in `low`); `verdict` is styled by `emphasis`."""

    kind: CellKind = "text"
    text: str = ""
    value: float | None = None
    low: float | None = None
    high: float | None = None
    digits: int = 2
    note: str = Field(default="", description="Shown on hover; its footnote is `note_ref`.")
    note_ref: int | None = Field(
        default=None, description="Number of the table note for this cell."
    )
    emphasis: Literal["", "good", "bad", "warn"] = ""
    sub: str = Field(
        default="",
        description="A small label under the text, e.g. a variant's method and base.",
    )


class Link(Part):
    """A link inside the report: `href` is '#' and an element id."""

    href: str
    text: str


class Table(Part):
    """A table; the first `key_columns` columns identify a row (model, scorer, ...)."""

    id: str
    title: str
    caption: str = ""
    columns: list[str]
    rows: list[list[Cell]]
    key_columns: int = 1
    notes: list[str] = Field(default_factory=list)
    listed: bool = Field(
        default=True, description="Listed in the contents (later parts of a split table: no)."
    )
    long_rows: bool = Field(
        default=False,
        description="Rows of several lines: the table may break across PDF pages even when "
        "it has few rows.",
    )
    column_subs: list[str] = Field(
        default_factory=list,
        description="A small label under each column heading ('' for none), e.g. a variant's "
        "method and base; empty when no heading has one.",
    )
    cell_labels: list[str] = Field(
        default_factory=list,
        description="The name each column's cells get on a phone, where a wide table is "
        "stacked as one card per row ('' or none: the heading), e.g. 'p (bert-base)' for "
        "the p column after a model's column.",
    )
    detail: bool = Field(
        default=False,
        description="Detail: shown in the appendix only, linked from its section "
        "(audit/report/layout.py).",
    )
    key_rows: list[int] = Field(
        default_factory=list,
        description="Rows the body shows first when it shortens a long table (e.g. the "
        "correlations significant after correction), in `rank` order; when there are more "
        "than the body's limit, the body says how many it left out.",
    )
    key_rows_words: str = Field(
        default="key rows",
        description="What the key rows are, for the line under a shortened table "
        "('significant after correction').",
    )
    rank: list[int] = Field(
        default_factory=list,
        description="The order in which a shortened body table fills up its rows after "
        "`key_rows` (e.g. by |Kendall τ|); empty: the table's own order.",
    )
    body_limit: int | None = Field(
        default=None,
        description="Most rows of this table in the body (None: the layout's default); the "
        "whole table then goes to the appendix.",
    )
    body_columns: list[int] = Field(
        default_factory=list,
        description="The columns the body shows (empty: all); with fewer than all, the "
        "whole table also goes to the appendix.",
    )
    more: Link | None = Field(
        default=None,
        description="Set on a shortened body table: the link to the whole table.",
    )


class Chart(Part):
    """A Vega-Lite chart spec (altair's dict), drawn to SVG at render time."""

    id: str
    title: str
    caption: str
    spec: dict[str, Any]
    alt: str
    listed: bool = Field(
        default=True, description="Listed in the contents (later parts of a split chart: no)."
    )
    detail: bool = Field(
        default=False,
        description="Detail: shown in the appendix only, linked from its section.",
    )


class Caveat(Part):
    """A caveat and exactly what in the results triggered it."""

    id: str
    title: str
    text: str
    trigger: str
    citation: str = ""
    severity: Literal["info", "warning"] = "warning"


class CardView(Part):
    """A measure card as printed in the report."""

    name: str
    title: str
    version: str = Field(default="1", description="The plug-in's own version (its card's).")
    what: str
    inputs: str
    direction: str
    ideal: str
    citation: str
    limitations: list[str]


class KeyValue(Part):
    label: str
    value: str
    kind: Literal["text", "code"] = "text"
    title: str = ""


class Cover(Part):
    """Who, what, when, and the exact inputs (hashes and versions): owner, date, spec,
    seed, confidence level and tool version are rows of `facts`."""

    title: str
    audit_name: str
    description: str
    spec_sha256: str
    facts: list[KeyValue]
    models: Table
    datasets: Table
    packages: Table


class GateSection(Part):
    verdicts: list[GateVerdict]
    summary_table: Table | None
    table: Table | None
    n_pass: int
    n_fail: int
    n_inconclusive: int
    overall: Literal["PASS", "FAIL", "INCONCLUSIVE", "NONE"]
    exit_code: int


class DatasetSection(Part):
    """Everything measured on one dataset, models side by side."""

    name: str
    anchor: str
    description: str
    tables: list[Table]
    charts: list[Chart]


class Study(Part):
    """A study that may not have run (robustness, correlation, comparison)."""

    id: str
    title: str
    ran: bool
    not_run_reason: str = ""
    intro: str = ""
    tables: list[Table] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list)


class SummaryBlock(Part):
    """A paragraph of page 1: a bold lead-in, its text and an optional list under it."""

    heading: str = ""
    text: str = ""
    items: list[str] = Field(default_factory=list)
    emphasis: Literal["", "good", "bad", "warn"] = ""


class Section(Part):
    """A section of its own, after the datasets: the variants, or one meta-evaluation.
    `blocks` are statements said plainly before the tables (e.g. whether a bias control
    worked)."""

    id: str
    title: str
    intro: str = ""
    blocks: list[SummaryBlock] = Field(default_factory=list)
    lead_charts: list[Chart] = Field(
        default_factory=list, description="Charts shown before the tables (the control check)."
    )
    tables: list[Table] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list, description="Charts after the tables.")


class PageOne(Part):
    """Page 1 alone, for a reviewer who signs it: who, when and on which exact spec, each
    model with a short fingerprint, every gate check with its interval, one sentence per
    study, and the caveats as many as the Caveats section lists (audit/report/page_one.py)."""

    facts: list[KeyValue]
    models: list[KeyValue] = Field(
        description="Label: the model id; value: its short fingerprint; title: the full one."
    )
    models_caption: str = ""
    gates_caption: str = ""
    gates: list[SummaryBlock] = Field(
        default_factory=list,
        description="One per gate: its rule and verdict; items: its checks, each with its "
        "verdict and interval (failing first; the rest counted when there are many).",
    )
    gate_table: Table | None = Field(
        default=None,
        description="The gate checks page 1 lists, one row each: value, interval, what the "
        "gate requires, verdict and why (audit/report/gate_summary.py).",
    )
    findings: list[SummaryBlock] = Field(
        default_factory=list, description="One sentence per dataset's headline and per study."
    )
    caveat_count: int = Field(description="Exactly the number the Caveats section lists.")
    caveat_text: str = ""


class Summary(Part):
    """Page 1 in plain words: the verdict and what it means, what was audited, each gate
    with the checks that did not pass, the headline numbers in counts, how to read an
    interval, and the caveats."""

    verdict: Literal["PASS", "FAIL", "INCONCLUSIVE", "NONE"]
    emphasis: Literal["", "good", "bad", "warn"] = ""
    verdict_text: str
    scope: str
    gates: list[SummaryBlock] = Field(default_factory=list)
    findings: list[SummaryBlock] = Field(default_factory=list)
    reading: str = ""
    caveats: str = ""
    variants: list[SummaryBlock] = Field(
        default_factory=list,
        description="One sentence per variant study (debiased variants, meta-evaluations) "
        "and per extrinsic task (and the intrinsic-extrinsic correlation).",
    )
    precision: list[SummaryBlock] = Field(
        default_factory=list,
        description="Reduced precision (bfloat16 / float16) and its float32 check; empty "
        "when every model ran in float32.",
    )
    page_one: PageOne | None = Field(
        default=None, description="The signable first page; None only in hand-made models."
    )


class SignOff(Part):
    """The block a reviewer fills in and signs."""

    fields: list[str]
    decisions: list[str]


class ReportModel(Part):
    """A complete audit report."""

    kind: Literal["audit", "comparison"] = "audit"
    cover: Cover
    summary: Summary
    unread: SummaryBlock | None = Field(
        default=None,
        description="The parts of a newer minor results.json this version could not show "
        "(audit/report/unread.py); None when it read the whole file.",
    )
    gates: GateSection
    datasets: list[DatasetSection]
    variant_sections: list[Section] = Field(
        default_factory=list,
        description="Variants (training, corpora, against their base), then one section per "
        "meta-evaluation, then Extrinsic bias; empty for an audit with none of them.",
    )
    seat: Section | None = Field(
        default=None,
        description="SEAT per test and model, after the datasets (audit/report/seat_section.py); "
        "None when the run had no SEAT.",
    )
    studies: list[Study]
    literature: Section | None = Field(
        default=None,
        description="Compared with the literature, after the studies "
        "(audit/report/literature.py); None when no study of results.json has a source "
        "paper's figure to compare with.",
    )
    caveats: list[Caveat]
    cards: list[CardView]
    signoff: SignOff
    appendix: list[Table]


class AppendixPart(Part):
    """One part of an appendix (e.g. B.2): the detail of one body section, or the cards."""

    id: str
    label: str = Field(description="Letter and number, e.g. 'B.2'.")
    title: str
    source: str = Field(default="", description="The id of the body section it details.")
    tables: list[Table] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list)
    cards: list[CardView] = Field(default_factory=list)


class AppendixSection(Part):
    """An appendix (a letter): its parts follow the order of the body."""

    id: str
    letter: str
    title: str
    parts: list[AppendixPart]


class Layout(Part):
    """Where each part of a report is printed: the body (short: its long tables cut to the
    rows that matter, each with a link to the whole table) and the appendix (everything in
    full, collapsed in the HTML). Built from a ReportModel by audit/report/layout.py."""

    models_table: Table = Field(
        description="The cover's Models table as the body prints it (cut to its first rows "
        "when long; then whole in the appendix)."
    )
    gates_table: Table | None
    datasets: list[DatasetSection]
    seat: Section | None
    variant_sections: list[Section]
    studies: list[Study]
    literature: Section | None = None
    see_also: dict[str, list[Link]] = Field(
        default_factory=dict,
        description="Per body section id: the links to its detail in the appendix.",
    )
    appendix: list[AppendixSection]
