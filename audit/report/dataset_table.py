"""The cover's table of the datasets read: rows read, rows kept and why the others were
left out, with the `limit` or `sample` that chose the rows kept said in words."""

from __future__ import annotations

from audit.report import cells
from audit.report.model import Cell, Table
from audit.results import AuditResult, DatasetRecord


def datasets_table(result: AuditResult) -> Table:
    """One row per dataset; a footnote on Kept says how a `limit` or `sample` chose the
    rows, one on Left out counts the rows each reason and filter left out."""
    table = cells.TableMaker(
        id="datasets",
        title="Datasets",
        columns=["Dataset", "Shape", "Rows read", "Kept", "Left out", "sha256"],
    )
    for d in result.datasets:
        left_out = sum(d.skipped.values()) + sum(d.filtered.values())
        table.add(
            [
                cells.text(d.name, note=f"source: {d.source}"),
                cells.text(d.shape),
                cells.count(d.rows_read),
                Cell(kind="count", value=float(d.rows_kept), note=selection(d, result.audit.seed)),
                Cell(kind="count", value=float(left_out), note=left_out_reasons(d)),
                cells.code(d.sha256),
            ]
        )
    return table.table()


def selection(record: DatasetRecord, seed: int) -> str:
    """How `limit` or `sample` chose the rows kept: "first 500 of 1,508 rows (limit)",
    "500 of 1,508 rows, random sample, seed 0"; '' when neither was given. The count
    after the others is of the rows the other filters left ("remaining rows")."""
    for key in ("limit", "sample"):
        if key in record.filtered:
            before = record.rows_kept + record.filtered[key]
            rows = "rows" if before == record.rows_read else "remaining rows"
            if key == "limit":
                return f"first {record.rows_kept:,} of {before:,} {rows} (limit)"
            return f"{record.rows_kept:,} of {before:,} {rows}, random sample, seed {seed}"
    return ""


def left_out_reasons(record: DatasetRecord) -> str:
    """Each reason a row was skipped and each filter, with the rows it left out."""
    skipped = [f"{reason}: {n:,}" for reason, n in record.skipped.items()]
    filtered = [f"{_LEFT_OUT_BY.get(key, key)}: {n:,}" for key, n in record.filtered.items()]
    return "; ".join(skipped + filtered)


#: How the Left out note names the rows a selection dropped.
_LEFT_OUT_BY = {"limit": "past the limit", "sample": "not in the sample"}
