"""Page 1 and the appendix on reduced precision: which models ran in bfloat16 / float16,
and what the float32 check on a seeded sample found (results.json `precision_checks`).

A model's dtype is read from its precision label ("<device type>/<dtype>[+<quantisation>]",
e.g. `cuda/bfloat16`); nothing else is looked up.
"""

from __future__ import annotations

from audit.report import cells
from audit.report.formatting import fmt_count, fmt_pct, join_words, plural
from audit.report.index import MeasurementIndex
from audit.report.model import SummaryBlock, Table
from audit.results import AuditResult, PrecisionCheck

#: Dtypes that are the exact default, not a reduced precision.
FULL_PRECISION = frozenset({"float32", "float64"})


def precision_dtype(precision: str) -> str:
    """The dtype of a precision label: 'bfloat16' of 'cuda/bfloat16' or 'cuda/bfloat16+nf4',
    'float32' of a bare 'float32'."""
    _head, sep, rest = precision.partition("/")
    dtype = rest if sep else precision
    return dtype.partition("+")[0]


def reduced_models(result: AuditResult) -> dict[str, str]:
    """Model id -> its reduced dtype, for the models loaded here that did not run in
    float32 (a served model's precision is the server's: `audit.report.served`)."""
    return {
        m.id: dtype
        for m in result.models
        if m.endpoint is None and (dtype := precision_dtype(m.precision)) not in FULL_PRECISION
    }


def fmt_diff(value: float | None) -> str:
    """A score difference with three significant digits ('0.0122', '1.67')."""
    return "n/a" if value is None else f"{value:.3g}"


def _check_line(index: MeasurementIndex, check: PrecisionCheck) -> str:
    where = (
        f"{check.model} · {index.cards.dataset_title(check.dataset)} · "
        f"{index.cards.scorer_name(check.scorer)}"
    )
    diff = fmt_diff(check.max_abs_diff)
    if check.flipped is None:
        return (
            f"{where}: {plural(check.items, 'statement')} checked, largest score difference "
            f"{diff} (statements have no verdict of their own)"
        )
    share = fmt_pct(check.flipped / check.verdicts, 1) if check.verdicts else "n/a"
    return (
        f"{where}: {check.flipped} of {plural(check.verdicts, 'pair verdict')} flipped "
        f"({share}), largest score difference {diff}"
    )


def precision_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: the run used reduced precision, and what the float32 check found (empty
    when every model ran in float32)."""
    result = index.result
    reduced = reduced_models(result)
    if not reduced:
        return []
    by_dtype: dict[str, list[str]] = {}
    for model, dtype in reduced.items():
        by_dtype.setdefault(dtype, []).append(model)
    ran = "; ".join(f"{join_words(models)} in {dtype}" for dtype, models in by_dtype.items())
    checks = [c for c in result.precision_checks if c.model in reduced]
    unchecked = [m for m in reduced if not any(c.model == m for c in checks)]
    text = (
        f"This run used reduced precision: {ran}, not float32. It is faster, but it can "
        "change scores, verdicts and the numbers below."
    )
    flipped = sum(c.flipped or 0 for c in checks)
    verdicts = sum(c.verdicts for c in checks if c.flipped is not None)
    if checks:
        sizes = sorted({c.items for c in checks})
        text += (
            f" Precision check: a seeded sample of each dataset (up to "
            f"{plural(sizes[-1], 'item')}) was scored again in float32"
        )
        text += (
            f"; {flipped} of {plural(verdicts, 'pair verdict')} flipped in all."
            if verdicts
            else "."
        )
    items = [_check_line(index, c) for c in checks]
    items += [
        f"{model}: no float32 check was run (precision_check: 0), so what "
        f"{reduced[model]} changed is not known"
        for model in unchecked
    ]
    if flipped or unchecked:
        fix = (
            "backend: torch (the default)"
            if all(d.startswith("llama.cpp") for d in reduced.values())
            else "dtype: float32 (the default)"
        )
        text += f" Rerun with {fix} for exact scores."
    block = SummaryBlock(heading="Reduced precision.", text=text, items=items)
    if flipped or unchecked:
        block = block.model_copy(update={"emphasis": "warn"})
    return [block]


def precision_table(index: MeasurementIndex) -> Table | None:
    """Appendix: every precision check with its seed, precisions and where the largest
    difference is."""
    checks = index.result.precision_checks
    if not checks:
        return None
    maker = cells.TableMaker(
        id="precision-check",
        title="Precision check",
        caption="Each model run in a reduced precision, on a seeded sample of every dataset "
        "scored again in float32. A verdict is the sign of f(S_st) - f(S_at); a flip is any "
        "change of it, a new tie included.",
        columns=[
            "Model",
            "Dataset",
            "Scorer",
            "Precision",
            "Against",
            "Seed",
            "Items",
            "Flipped",
            "Largest difference",
        ],
        key_columns=3,
    )
    for c in checks:
        flipped = (
            cells.text("no verdicts")
            if c.flipped is None
            else cells.text(f"{fmt_count(c.flipped)} of {fmt_count(c.verdicts)}")
        )
        maker.add(
            [
                cells.text(c.model),
                cells.text(index.cards.dataset_title(c.dataset)),
                cells.text(index.cards.scorer_name(c.scorer)),
                cells.code(c.precision),
                cells.code(c.reference),
                cells.code(str(c.seed)),
                cells.count(c.items),
                flipped,
                cells.text(
                    fmt_diff(c.max_abs_diff),
                    note="" if c.max_diff_item is None else f"item {c.max_diff_item}",
                ),
            ]
        )
    return maker.table()
