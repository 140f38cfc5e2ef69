"""The intrinsic x extrinsic correlations of a report (Kaneko et al. 2022, Table 2): the
table (one row per intrinsic measure x scorer, one column per extrinsic task) and the
page-1 sentence, both from the `correlations` of results.json whose one measure is
extrinsic and the other intrinsic (by their cards' roles).

Page 1 quotes corrected p-values, and names a strongest pair only when some pair's
corrected Kendall test can reach significance with its number of models at all; otherwise
it says the study has too few models to conclude anything.
"""

from __future__ import annotations

from audit.report import cells
from audit.report import correlation_words as words
from audit.report.formatting import fmt_num, fmt_p, join_words, plural
from audit.report.index import MeasurementIndex, unique
from audit.report.model import Table
from audit.results import CorrelationRecord, MeasureSeries

KANEKO_2022 = "Kaneko, Bollegala & Okazaki 2022 (COLING 2022)"


def extrinsic_correlations(index: MeasurementIndex) -> list[CorrelationRecord]:
    """The correlations of an extrinsic with an intrinsic measure, extrinsic as `y`."""
    found: list[CorrelationRecord] = []
    for c in index.result.correlations:
        x_ext = index.cards.has_role(c.x.measure, "extrinsic")
        y_ext = index.cards.has_role(c.y.measure, "extrinsic")
        if x_ext == y_ext:
            continue
        if x_ext:
            c = c.model_copy(update={"x": c.y, "y": c.x})
        found.append(c)
    return found


def _series_cell(index: MeasurementIndex, series: MeasureSeries, mixed: str) -> cells.Cell:
    sub = words.direction(index.cards, series)
    return cells.text(
        words.series_name(index.cards, series), sub="; ".join(filter(None, [sub, mixed]))
    )


def correlation_table(index: MeasurementIndex) -> Table | None:
    """Intrinsic measures x scorers (rows) against extrinsic ones (columns): Kendall tau
    with its raw and corrected p-values."""
    found = extrinsic_correlations(index)
    if not found:
        return None
    rows = unique(c.x for c in found)
    columns = unique(c.y for c in found)
    at = {(c.x, c.y): c for c in found}
    notes = [(c.x, words.mixed_note(c)) for c in found]
    mixed = {row: "; ".join(unique(n for x, n in notes if x == row and n)) for row in rows}
    maker = cells.TableMaker(
        id="intrinsic-extrinsic",
        title="Intrinsic against extrinsic measures across models",
        caption="Kendall τ (raw p; corrected p) across the models with both values; every "
        "measure enters as "
        "each model's distance to its ideal value (the direction under each name). "
        f"{words.correction_sentence(found)} Pearson and Spearman are in each cell's note "
        f"and in Correlation between measures. {KANEKO_2022}, Table 2, found weak "
        "correlations for most pairs.",
        columns=["Intrinsic measure", *(words.series_name(index.cards, c) for c in columns)],
    )
    if excluded := words.excluded_sentence(found):
        maker.extra_notes.append(excluded)
    for row in rows:
        line = [_series_cell(index, row, mixed[row])]
        for column in columns:
            c = at.get((row, column))
            if c is None:
                line.append(cells.text("—"))
                continue
            note = (
                f"{plural(c.n, 'model')}; Pearson {fmt_num(c.pearson_r, 2)} "
                f"(p {fmt_p(c.pearson_p)}, corr. {fmt_p(c.pearson_p_corrected)}), Spearman "
                f"{fmt_num(c.spearman_rho, 2)} (p {fmt_p(c.spearman_p)}, corr. "
                f"{fmt_p(c.spearman_p_corrected)})"
            )
            if not c.conclusive:
                note = f"too few models to conclude: {c.note or 'no test'}; {note}"
            tau = "—" if c.kendall_tau is None else fmt_num(c.kendall_tau, 2)
            line.append(
                cells.Cell(
                    kind="text",
                    text=tau,
                    sub=f"(p {fmt_p(c.kendall_p)}; corr. {fmt_p(c.kendall_p_corrected)})",
                    note=note,
                    emphasis="" if c.conclusive else "warn",
                )
            )
        maker.add(line)
    subs = ["", *(words.direction(index.cards, c) for c in columns)]
    # The body keeps every row with a pair significant after correction, then the rows
    # with the strongest |τ|; the whole table is in the appendix.
    alpha = index.result.alpha
    mine = [[c for c in found if c.x == row] for row in rows]
    key_rows = [i for i, cs in enumerate(mine) if any(words.significant(c, alpha) for c in cs)]
    rank = sorted(range(len(rows)), key=lambda i: -max(map(words.strength, mine[i]), default=0))
    return maker.table().model_copy(
        update={
            "column_subs": subs,
            "key_rows": key_rows,
            "key_rows_words": "with a pair significant after correction",
            "rank": rank,
            "body_limit": words.BODY_CORRELATIONS,
        }
    )


def correlation_sentence(index: MeasurementIndex, found: list[CorrelationRecord]) -> str:
    """What the intrinsic-extrinsic correlations showed, from their corrected numbers."""
    alpha = index.result.alpha
    excluded = unique(e.model for c in found for e in c.excluded)
    left_out = (
        f" Left out because their fine-tuning did not learn the task: {join_words(excluded)}."
        if excluded
        else ""
    )
    n = max(c.n for c in found)
    tested = [c for c in found if c.kendall_tau is not None]
    if any(c.correction is None for c in found):
        return _before_2_3(found, n)
    conclusive = [c for c in tested if c.conclusive]
    if not conclusive:
        return (
            f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}: "
            "the study has too few models to conclude anything about whether the intrinsic "
            f"measures track the downstream bias ({words.too_few_sentence(found, alpha)})."
            + left_out
        )
    taus = [c.kendall_tau for c in tested if c.kendall_tau is not None]
    strongest = max(conclusive, key=lambda c: abs(c.kendall_tau or 0.0))
    significant = [
        c
        for c in conclusive
        if c.kendall_p_corrected is not None and c.kendall_p_corrected <= alpha
    ]
    method = words.correction_name(strongest) or "no correction"
    mixed = [c for c in found if c.mixes_families]
    mixed_text = (
        f" {plural(len(mixed), 'pair')} mix model families (masked and causal): such a "
        "correlation may only separate the families."
        if mixed
        else ""
    )
    return (
        f"across up to {plural(n, 'model')}, Kendall τ between the intrinsic measures' and "
        f"the extrinsic ones' distances to their ideal values ranged from {min(taus):.2f} to "
        f"{max(taus):.2f}; the strongest was "
        f"{words.series_name(index.cards, strongest.x)} with "
        f"{words.series_name(index.cards, strongest.y)} "
        f"(τ {fmt_num(strongest.kendall_tau, 2)}, p {fmt_p(strongest.kendall_p_corrected)} "
        f"corrected by {method} over {plural(strongest.family_size or 0, 'test')}); "
        f"{len(significant)} of {len(tested)} pairs had a corrected p <= {alpha:g}. An "
        "intrinsic measure can rank these models differently from their downstream bias."
        + mixed_text
        + left_out
    )


def _before_2_3(found: list[CorrelationRecord], n: int) -> str:
    """A file written before results_version 3.0: its numbers are shown, not concluded from."""
    taus = [c.kendall_tau for c in found if c.kendall_tau is not None]
    spread = f": Kendall τ from {min(taus):.2f} to {max(taus):.2f}" if taus else ""
    return (
        f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}"
        f"{spread}. These correlations were computed before results_version 3.0 (raw values, "
        "models that failed the dev check included, p-values not corrected for multiple "
        "comparisons), so no conclusion is drawn from them here; rerun the audit to test "
        "them as this version does."
    )
