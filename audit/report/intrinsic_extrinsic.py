"""The intrinsic x extrinsic correlations of a report (Kaneko et al. 2022, Table 2): the
table (one row per intrinsic measure x scorer, one column per extrinsic task) and the
page-1 sentence, both from the `correlations` of results.json whose one measure is
extrinsic and the other intrinsic (by their cards' roles).

Page 1 quotes corrected p-values, the strongest pair with its two-level bootstrap
interval, and what the study could have detected (`CorrelationRecord.detection`): unless
the test had the power the spec asks for at its effect size, the sentence says the study
could not have detected a correlation of that strength, never that the measures do not
predict the downstream bias. Pairs that are one by construction are not counted.
"""

from __future__ import annotations

from collections import Counter

from audit.report import cells
from audit.report import correlation_words as words
from audit.report.formatting import (
    fmt_bound,
    fmt_num,
    fmt_p,
    fmt_pct,
    join_words,
    plural,
    upper_first,
)
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
        f"{words.correction_sentence(found)} "
        + _limit_caption(found)
        + f"Pearson and Spearman are in each cell's note and in Correlation between measures. "
        f"{KANEKO_2022}, Table 2, found weak correlations for most pairs.",
        columns=["Intrinsic measure", *(words.series_name(index.cards, c) for c in columns)],
    )
    if excluded := words.excluded_sentence(found):
        maker.extra_notes.append(excluded)
    # The detection limit most cells share is the caption's; a cell repeats it only when
    # its own differs (fewer models with both values).
    common = Counter(c.note for c in found if not c.conclusive).most_common(1)
    shared_note = common[0][0] if common else None
    for row in rows:
        line = [_series_cell(index, row, mixed[row])]
        for column in columns:
            c = at.get((row, column))
            if c is None:
                line.append(cells.text("—"))
                continue
            # the caption's detection limit names the number of models the cells share
            models = "" if c.note == shared_note else f"{plural(c.n, 'model')}; "
            note = (
                f"{models}Pearson {fmt_num(c.pearson_r, 2)} "
                f"(p {fmt_p(c.pearson_p)}, corr. {fmt_p(c.pearson_p_corrected)}), Spearman "
                f"{fmt_num(c.spearman_rho, 2)} (p {fmt_p(c.spearman_p)}, corr. "
                f"{fmt_p(c.spearman_p_corrected)})"
            )
            if c.kendall_tau_ci_low is not None:
                note = f"{words.tau_with_interval(c)}; {note}"
            if c.trivial:
                note = f"not a finding: {c.trivial}; {note}"
            elif c.kendall_tau is None:
                note = f"too few models for a test: {c.note or 'no test'}; {note}"
            elif not c.conclusive and c.note == shared_note:
                note = f"underpowered, as the caption says; {note}"
            elif not c.conclusive:
                note = f"underpowered: {c.note or 'no test'}; {note}"
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
            "body_limit": words.body_limit(found, alpha),
        }
    )


def _limit_caption(found: list[CorrelationRecord]) -> str:
    """The table's detection limit and what its intervals cover, for its caption."""
    detection = words.best_detection(words.counted(found))
    parts = []
    if detection is not None:
        parts.append(upper_first(words.detection_words(detection)) + ".")
        if not detection.powered:
            parts.append(upper_first(words.undetectable_words(detection)) + ".")
    if interval := words.interval_words(found):
        parts.append(interval)
    return " ".join(parts) + (" " if parts else "")


def correlation_sentence(index: MeasurementIndex, found: list[CorrelationRecord]) -> str:
    """What the intrinsic-extrinsic correlations showed, from their corrected numbers, and
    what the study could have detected: a study without the power asked for never says
    that the measures do not predict the downstream bias."""
    alpha = index.result.alpha
    excluded = unique(e.model for c in found for e in c.excluded)
    left_out = (
        f" Left out because their fine-tuning did not learn the task: {join_words(excluded)}."
        if excluded
        else ""
    )
    n = max(c.n for c in found)
    if any(c.correction is None for c in found):
        return _before_2_3(found, n)
    tested = words.counted(found)
    if not tested:
        return (
            f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}: "
            "the study has too few models to conclude anything about whether the intrinsic "
            f"measures track the downstream bias ({words.too_few_sentence(found, alpha)})."
            + left_out
        )
    detection = words.best_detection(tested)
    if detection is None:
        return _before_4_0(index, found, n, alpha) + left_out
    if detection.critical_kendall_tau is None:
        return (
            f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}: "
            "the study has too few models to conclude anything about whether the intrinsic "
            f"measures track the downstream bias ({words.too_few_sentence(found, alpha)}); "
            f"{words.undetectable_words(detection)}." + left_out
        )
    taus = [c.kendall_tau for c in tested if c.kendall_tau is not None]
    if not taus:
        return (
            f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}:"
            " no pair has a Kendall test." + left_out
        )
    strongest = max(tested, key=lambda c: abs(c.kendall_tau or 0.0))
    significant = [c for c in tested if words.significant(c, alpha)]
    method = words.correction_name(strongest) or "no correction"
    mixed = [c for c in found if c.mixes_families]
    mixed_text = (
        f" {plural(len(mixed), 'pair')} mix model families (masked and causal): such a "
        "correlation may only separate the families."
        if mixed
        else ""
    )
    text = (
        f"across up to {plural(n, 'model')}, Kendall τ between the intrinsic measures' and "
        f"the extrinsic ones' distances to their ideal values ranged from {min(taus):.2f} to "
        f"{max(taus):.2f}; the strongest was "
        f"{words.series_name(index.cards, strongest.x)} with "
        f"{words.series_name(index.cards, strongest.y)} "
        f"({words.tau_with_interval(strongest)}, p {fmt_p(strongest.kendall_p_corrected)} "
        f"corrected by {method} over {plural(strongest.family_size or 0, 'test')}); "
        f"{len(significant)} of {len(tested)} pairs had a corrected p <= {alpha:g}."
    )
    limit = words.detection_words(detection)
    if significant:
        text += (
            f" An intrinsic measure can rank these models as their downstream bias does; {limit}."
        )
    elif detection.powered:
        text += (
            f" With {fmt_pct(detection.power_at_effect)} power at τ "
            f"{fmt_bound(detection.effect_size)} ({limit}), a correlation that strong would "
            "most likely have been found: any there is, is weaker."
        )
    else:
        text += (
            f" That is no evidence that the intrinsic measures do not predict the downstream "
            f"bias: {limit}, so {words.undetectable_words(detection)}."
        )
    if trivial := words.trivial_sentence(found):
        text += f" {upper_first(trivial)}."
    return text + mixed_text + left_out


def _before_4_0(
    index: MeasurementIndex, found: list[CorrelationRecord], n: int, alpha: float
) -> str:
    """A file written before results_version 4.0: corrected p-values, but no power."""
    tested = [c for c in found if c.kendall_tau is not None]
    taus = [c.kendall_tau for c in tested if c.kendall_tau is not None]
    significant = [
        c for c in tested if c.kendall_p_corrected is not None and c.kendall_p_corrected <= alpha
    ]
    spread = f": Kendall τ from {min(taus):.2f} to {max(taus):.2f}" if taus else ""
    return (
        f"{plural(len(found), 'intrinsic-extrinsic pair')} over up to {plural(n, 'model')}"
        f"{spread}; {len(significant)} of {len(tested)} had a corrected p <= {alpha:g}. The "
        "power of these tests was not computed (results written before 4.0), so a pair "
        "without a significant correlation says nothing about whether the measures predict "
        "the downstream bias; rerun the audit to see what it could have detected."
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
