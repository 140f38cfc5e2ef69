"""The comparison's recommendation in words: one line, its decision first, then the
reason (`audit.comparison.recommendation` decides), and the sign-off's choices it allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.comparison.recommendation import Recommendation, Underpowered
from audit.report.cards import MeasureCards
from audit.report.cells import digits_for
from audit.report.formatting import fmt_num, fmt_pct, plural
from audit.results import ComparisonRecord

#: What --detect is for, said where a limit decided "cannot tell".
DETECT_HINT = (
    "score more items in both runs, or state the change that matters with "
    "`audit compare --detect MEASURE=CHANGE`"
)


def _name(record: ComparisonRecord, cards: MeasureCards) -> str:
    return f"{cards.name(record.measure)} on {cards.dataset_title(record.dataset)}"


def _moved(record: ComparisonRecord, cards: MeasureCards) -> str:
    """'BBQ bias score s_DIS on BBQ 0.149 → -0.011 (-0.160)': baseline → candidate."""
    digits = digits_for([record.value_a, record.value_b])
    change = f" ({record.difference:+.{digits}f})" if record.difference is not None else ""
    return (
        f"{_name(record, cards)} {fmt_num(record.value_b, digits)} → "
        f"{fmt_num(record.value_a, digits)}{change}"
    )


def _underpowered(found: Underpowered, cards: MeasureCards) -> str:
    record, limit = found.record, found.limit
    digits = digits_for([record.value_a, record.value_b])
    name = _name(record, cards)
    if limit is None:
        return f"{name}: no detection limit is stated for this measure"
    if record.detectable_difference is None:
        return (
            f"{name}: on {record.n_items:,} items in common no detectable difference could "
            f"be computed (the stated limit is {fmt_num(limit, digits)})"
        )
    return (
        f"{name}: on {record.n_items:,} items in common only a change of "
        f"{fmt_num(record.detectable_difference, digits)} or more was detectable "
        f"({fmt_pct(record.detectable_power)} power), not the stated "
        f"{fmt_num(limit, digits)}"
    )


def _unclear(record: ComparisonRecord, cards: MeasureCards) -> str:
    if record.verdict == "changed":
        return (
            f"{_moved(record, cards)} changed, neither detectably closer to nor further from "
            "the ideal"
        )
    if record.verdict == "borderline":
        why = record.borderline_reason or "the decision depends on the resampling"
        return f"{_name(record, cards)} is borderline ({why})"
    return f"{_name(record, cards)} has no paired test ({record.note or 'undefined'})"


def _listed(lines: Sequence[str], *, most: int = 3) -> str:
    shown = list(lines[:most])
    if len(lines) > most:
        shown.append(f"{len(lines) - most} more in the tables")
    return "; ".join(shown)


def recommendation_line(found: Recommendation, cards: MeasureCards) -> str:
    """'Recommendation: cannot tell. ...': the decision and its reason, in one line."""
    if found.decision == "do not adopt":
        worse = [f"{_moved(r, cards)}" for r in found.worse]
        return (
            "Recommendation: do not adopt the candidate. It is further from the ideal on "
            f"{_listed(worse)}."
        )
    if found.decision == "adopt":
        better = [_moved(r, cards) for r in found.better]
        lead = f"It is closer to the ideal on {_listed(better)}, and" if better else "It is"
        n = len(found.powered)
        line = (
            f"Recommendation: adopt the candidate. {lead} not detectably different on "
            f"{plural(n, 'other measure') if better else plural(n, 'measure')}, each of "
            "which could have detected a change of its stated limit."
        )
        return line + _unweighed(found, cards)
    if not found.tested:
        return (
            "Recommendation: cannot tell. No measure could be compared by a paired test, so "
            "the values support no decision."
        )
    if not (found.unclear or found.underpowered):
        return (
            "Recommendation: cannot tell. No measure compared has a stated detection limit; "
            "state the change that matters with `audit compare --detect MEASURE=CHANGE`."
        )
    reasons = [_unclear(r, cards) for r in found.unclear]
    reasons += [_underpowered(u, cards) for u in found.underpowered]
    hint = f"; {DETECT_HINT}" if found.underpowered else ""
    return f"Recommendation: cannot tell. {_listed(reasons)}{hint}."


def _unweighed(found: Recommendation, cards: MeasureCards) -> str:
    if not found.unweighed:
        return ""
    names = sorted({_name(r, cards) for r in found.unweighed})
    return (
        f" Not weighed, having no stated detection limit: {'; '.join(names)} (state one "
        "with --detect MEASURE=CHANGE)."
    )


def decisions(found: Recommendation) -> list[str]:
    """The sign-off's choices: adopting is offered only when the recommendation is to
    adopt; the reviewer may still adopt with conditions against a "do not adopt"."""
    if found.decision == "adopt":
        return ["Adopt the candidate", "Adopt with conditions", "Keep the baseline"]
    if found.decision == "do not adopt":
        return ["Keep the baseline", "Adopt with conditions (state them)"]
    return ["Keep the baseline", "Compare again on more items"]
