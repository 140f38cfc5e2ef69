"""Cells and tables with footnotes: small constructors the table builders share."""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.report.formatting import ci_digits, plain
from audit.report.model import Cell, Table
from audit.results import Measurement


def text(value: str, *, note: str = "", sub: str = "") -> Cell:
    return Cell(kind="text", text=value, note=note, sub=sub)


def code(value: str, *, title: str = "") -> Cell:
    return Cell(kind="code", text=value, note=title)


def count(value: int | None) -> Cell:
    return Cell(kind="count", value=None if value is None else float(value))


def number(value: float | None, digits: int = 2) -> Cell:
    return Cell(kind="number", value=value, digits=digits)


def pvalue(value: float | None) -> Cell:
    return Cell(kind="pvalue", value=value)


def verdict(label: str, emphasis: str, *, note: str = "") -> Cell:
    return Cell(kind="verdict", text=label, emphasis=emphasis, note=note)  # type: ignore[arg-type]


def digits_for(values: list[float | None]) -> int:
    """Decimals that suit a column: 1 for values on a 0-100 scale, 3 for small ones."""
    finite = [abs(v) for v in values if v is not None]
    return 1 if finite and max(finite) >= 10 else 3


def interval(
    value: float | None,
    low: float | None,
    high: float | None,
    digits: int,
    *,
    note: str = "",
) -> Cell:
    """A value with its confidence interval [low, high], to the decimals the interval
    supports (`formatting.ci_digits`; `digits` when there is no interval)."""
    return Cell(
        kind="estimate",
        value=value,
        low=low,
        high=high,
        digits=ci_digits(low, high, digits),
        note=note,
    )


def mean_sd(value: float | None, spread: float | None, digits: int) -> Cell:
    """A mean ± its spread, to the decimals the spread supports (as an interval of
    half-width `spread`)."""
    shown = digits if spread is None else ci_digits(-spread, spread, digits)
    return Cell(kind="meansd", value=value, low=spread, digits=shown)


def estimate(m: Measurement | None, digits: int) -> Cell:
    """A measurement as value + CI; an undefined one as a dash with its reason."""
    if m is None:
        return Cell(kind="text", text="not measured")
    if m.status != "ok" or m.value is None:
        return Cell(kind="estimate", value=None, note=plain(m.note) or "undefined", emphasis="warn")
    return interval(m.value, m.ci_low, m.ci_high, digits, note=plain(m.note))


@dataclass
class TableMaker:
    """Collects rows; cell notes become numbered table notes (identical notes share one)."""

    id: str
    title: str
    columns: list[str]
    caption: str = ""
    key_columns: int = 1
    rows: list[list[Cell]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra_notes: list[str] = field(default_factory=list)

    def add(self, cells: list[Cell]) -> None:
        numbered: list[Cell] = []
        for cell in cells:
            if cell.note:
                if cell.note not in self.notes:
                    self.notes.append(cell.note)
                cell = cell.model_copy(update={"note_ref": self.notes.index(cell.note) + 1})
            numbered.append(cell)
        self.rows.append(numbered)

    def table(self) -> Table:
        return Table(
            id=self.id,
            title=self.title,
            caption=self.caption,
            columns=self.columns,
            rows=self.rows,
            key_columns=self.key_columns,
            notes=[f"{i}. {n}" for i, n in enumerate(self.notes, 1)] + self.extra_notes,
        )
