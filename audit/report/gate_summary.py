"""Page 1 about the release gates: the overall verdict, why each check got its verdict,
and one block per gate of the spec with its rule and the checks that did not pass, the
farthest from the band first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from audit.gates import judge_interval
from audit.report import cells
from audit.report.formatting import (
    fmt_band,
    fmt_bound,
    fmt_estimate,
    fmt_num,
    group_name,
    plain,
    plural,
)
from audit.report.index import MeasurementIndex
from audit.report.model import SummaryBlock, Table
from audit.report.tables import measure_digits
from audit.report.worst_values import worst_words
from audit.results import DatasetRecord, GateVerdict

#: More failing or inconclusive checks of one gate than this are cut short on page 1.
MAX_LISTED = 16

Emphasis = Literal["", "good", "bad", "warn"]
Overall = Literal["PASS", "FAIL", "INCONCLUSIVE", "NONE"]
EMPHASIS: dict[str, Emphasis] = {"PASS": "good", "FAIL": "bad", "INCONCLUSIVE": "warn", "NONE": ""}


def overall_verdict(verdicts: Sequence[GateVerdict]) -> Overall:
    """FAIL if any check fails, INCONCLUSIVE if any cannot be decided, PASS, or NONE."""
    if not verdicts:
        return "NONE"
    kinds = {v.verdict for v in verdicts}
    return "FAIL" if "FAIL" in kinds else "INCONCLUSIVE" if "INCONCLUSIVE" in kinds else "PASS"


def verdict_reason(v: GateVerdict) -> str:
    """Why a check got its verdict, in words: recomputed from its interval and band when it
    has both (results.json of older versions holds terser reasons), else as stored."""
    if v.ci_low is not None and v.ci_high is not None:
        verdict, reason = judge_interval(v.ci_low, v.ci_high, v.low, v.high)
        if verdict == v.verdict:
            return reason
    return plain(v.reason)


def _group_noun(record: DatasetRecord | None) -> tuple[str, str]:
    """What a dataset's groups are: ('target group', 'target groups') or bias types."""
    if record is not None and record.shape == "labelled":
        return "target group", "target groups"
    return "bias type", "bias types"


def _outside_words(v: GateVerdict) -> str:
    """Where a failing interval lies: 'below 0.5', 'outside 45–55'."""
    if v.low is not None and v.high is not None:
        return f"outside {fmt_band(v.low, v.high)}"
    if v.low is not None:
        return f"below {fmt_bound(v.low)}"
    return f"above {fmt_bound(v.high)}" if v.high is not None else "outside the band"


def _crossing_words(v: GateVerdict) -> str:
    if v.low is not None and v.high is not None:
        return f"an edge of {fmt_band(v.low, v.high)}"
    bound = v.low if v.low is not None else v.high
    return f"{fmt_bound(bound)}" if bound is not None else "a bound"


def _distance_out(v: GateVerdict) -> float:
    """How far a value lies outside the band (negative inside); missing values last."""
    if v.value is None:
        return float("-inf")
    below = v.low - v.value if v.low is not None else float("-inf")
    above = v.value - v.high if v.high is not None else float("-inf")
    return max(below, above)


def _where(v: GateVerdict, varies: tuple[bool, bool, bool], index: MeasurementIndex) -> str:
    """What tells a check apart from the others of its gate: model, scorer, group."""
    parts = []
    if varies[0] and v.model:
        parts.append(v.model)
    if varies[1] and v.scorer is not None:
        parts.append(index.cards.scorer_name(v.scorer))
    if varies[2]:
        parts.append(group_name(v.group))
    return " · ".join(parts)


def _check_text(v: GateVerdict, label: str, digits: int, n: int | None) -> str:
    value = fmt_estimate(v.value, v.ci_low, v.ci_high, digits, n)
    if v.value is None:
        value = f"no value ({plain(v.reason)})"
    return f"{label} {value}".strip()


def _gate_block(
    index: MeasurementIndex, gate_index: int, verdicts: list[GateVerdict]
) -> SummaryBlock:
    first = verdicts[0]
    record = index.dataset_record(first.dataset)
    one, many = _group_noun(record)
    dataset = index.cards.dataset_title(first.dataset)
    measure = index.cards.name(first.measure)
    if first.group == "*" or len({v.group for v in verdicts}) > 1:
        scope = f"for each {one}"
    else:
        scope = "on the whole dataset" if first.group == "all" else f"for {group_name(first.group)}"
    models = {v.model for v in verdicts}
    who = "" if len(models) > 1 or len(index.result.models) == 1 else f" of {first.model}"
    if len(models) > 1:
        who = " of every model"
    rule = (
        f"{measure[0].upper() + measure[1:]}{who} on {dataset} {scope} must be {_required(first)}"
    )
    overall = overall_verdict(verdicts)
    digits = measure_digits(index, first.dataset, first.measure)
    sizes = record.groups if record is not None else {}
    if len(verdicts) == 1:
        v = first
        text = f"{rule}: {_check_text(v, '', digits, _n(index, v, sizes))}; {verdict_reason(v)}."
        return SummaryBlock(
            heading=f"Gate {gate_index + 1}: {v.verdict}.", text=text, emphasis=EMPHASIS[v.verdict]
        )
    keys = [(v.model or "", v.scorer.label if v.scorer else "", v.group) for v in verdicts]
    # Name a check's scorer only where a model was judged with more than one.
    scorers_of: dict[str, set[str]] = {}
    for model, scorer, _ in keys:
        scorers_of.setdefault(model, set()).add(scorer)
    varies = (
        len({k[0] for k in keys}) > 1,
        any(len(s) > 1 for s in scorers_of.values()),
        len({k[2] for k in keys}) > 1,
    )
    noun_many = many if varies == (False, False, True) else "checks"
    total = len(verdicts)
    items: list[str] = []
    for kind in ("FAIL", "INCONCLUSIVE"):
        mine = sorted((v for v in verdicts if v.verdict == kind), key=_distance_out, reverse=True)
        if not mine:
            continue
        listed = [
            _check_text(v, _where(v, varies, index), digits, _n(index, v, sizes))
            for v in mine[:MAX_LISTED]
        ]
        if len(mine) > MAX_LISTED:
            listed.append(f"and {len(mine) - MAX_LISTED} more (see Gates and verdicts)")
        if kind == "FAIL":
            why = f"the whole interval lies {_outside_words(first)}"
            head = f"{len(mine)} of {total} {noun_many} fail{'s' if len(mine) == 1 else ''} ({why})"
        else:
            crossing = all(v.ci_low is not None and v.value is not None for v in mine)
            why = f"the interval crosses {_crossing_words(first)}" + (
                "" if crossing else ", or there is no interval"
            )
            head = f"{len(mine)} of {total} {noun_many} {'is' if len(mine) == 1 else 'are'} " + (
                f"inconclusive ({why})"
            )
        items.append(f"{head}: " + "; ".join(listed) + ".")
    n_pass = sum(v.verdict == "PASS" for v in verdicts)
    passing = "none passes" if n_pass == 0 else f"{n_pass} of {total} pass"
    if n_pass == total:
        passing = f"all {total} {noun_many} pass, each with its whole interval inside"
    return SummaryBlock(
        heading=f"Gate {gate_index + 1}: {overall}.",
        text=f"{rule}; {passing}.",
        items=items,
        emphasis=EMPHASIS[overall],
    )


def _required(v: GateVerdict) -> str:
    if v.low is not None and v.high is not None:
        return f"between {fmt_bound(v.low)} and {fmt_bound(v.high)}"
    return fmt_band(v.low, v.high)


def _n(index: MeasurementIndex, v: GateVerdict, sizes: dict[str, int]) -> int | None:
    m = next(
        (
            m
            for m in index.of_dataset(v.dataset)
            if m.measure == v.measure
            and m.model == v.model
            and m.group == v.group
            and (v.scorer is None or m.scorer == v.scorer)
        ),
        None,
    )
    return m.n if m is not None else sizes.get(v.group)


def gate_blocks(index: MeasurementIndex, verdicts: Sequence[GateVerdict]) -> list[SummaryBlock]:
    """One block per gate of the spec: its rule, verdict and the checks that did not pass."""
    blocks = []
    for gate_index in dict.fromkeys(v.gate_index for v in verdicts):
        mine = [v for v in verdicts if v.gate_index == gate_index]
        blocks.append(_gate_block(index, gate_index, mine))
    return blocks


#: Gate checks listed one by one on page 1 (the worst first); past this, the rest are counted.
PAGE_ONE_CHECKS = 6

#: The order checks are listed in (and kept in when page 1 must count the rest).
_ORDER = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}


def _check_varies(verdicts: Sequence[GateVerdict]) -> tuple[bool, bool, bool]:
    """Whether the checks of one gate differ by model, by scorer (of one model), by group."""
    scorers_of: dict[str, set[str]] = {}
    for v in verdicts:
        scorers_of.setdefault(v.model or "", set()).add(v.scorer.label if v.scorer else "")
    return (
        len({v.model for v in verdicts}) > 1,
        any(len(s) > 1 for s in scorers_of.values()),
        len({v.group for v in verdicts}) > 1,
    )


def _short_rule(index: MeasurementIndex, v: GateVerdict, checks: int) -> str:
    """'Bias score on CrowS-Pairs, each bias type, every model: between 45 and 55'."""
    record = index.dataset_record(v.dataset)
    one, _ = _group_noun(record)
    measure = index.cards.name(v.measure)
    where = (
        f"each {one}"
        if v.group == "*" or (checks > 1 and v.group != "all")
        else ("whole dataset" if v.group == "all" else group_name(v.group))
    )
    return (
        f"{measure[0].upper() + measure[1:]} on {index.cards.dataset_title(v.dataset)}, "
        f"{where}: {_required(v)}"
    )


def _shown(verdicts: Sequence[GateVerdict], limit: int) -> list[GateVerdict]:
    """The checks page 1 lists, worst first: all of them when at most one more than
    `limit` (a single row is never hidden behind 'and 1 more')."""
    ranked = sorted(
        verdicts, key=lambda v: (_ORDER.get(v.verdict, 1), -_distance_out(v), v.gate_index)
    )
    return ranked if len(ranked) <= limit + 1 else ranked[:limit]


def page_one_gates(
    index: MeasurementIndex, verdicts: Sequence[GateVerdict], limit: int = PAGE_ONE_CHECKS
) -> list[SummaryBlock]:
    """Page 1: one block per gate, its rule, verdict and tally; its checks are rows of the
    gate table (`page_one_gate_table`), where the checks page 1 leaves out (past `limit`)
    are counted by verdict under their gate, never dropped silently."""
    shown = {id(v) for v in _shown(verdicts, limit)}
    blocks = []
    for gate_index in dict.fromkeys(v.gate_index for v in verdicts):
        mine = [v for v in verdicts if v.gate_index == gate_index]
        first = mine[0]
        varies = _check_varies(mine)
        counts = {k: sum(v.verdict == k for v in mine) for k in ("PASS", "FAIL", "INCONCLUSIVE")}
        tally = (
            f"{counts['PASS']} pass, {counts['FAIL']} fail, {counts['INCONCLUSIVE']} inconclusive"
            if len(mine) > 1
            else ""
        )
        items = []
        left = [v.verdict for v in mine if id(v) not in shown]
        if left:
            by_verdict = ", ".join(
                f"{left.count(k)} {k}" for k in ("FAIL", "INCONCLUSIVE", "PASS") if k in left
            )
            items.append(
                f"{len(left)} more not in the table: {by_verdict} (see Gates and verdicts)"
            )
        overall = overall_verdict(mine)
        text = _short_rule(index, first, len(mine))
        if first.model and not varies[0] and len(index.result.models) > 1:
            text += f" ({first.model})"
        blocks.append(
            SummaryBlock(
                heading=f"Gate {gate_index + 1}: {overall}.",
                text=text + (f"; {plural(len(mine), 'check')}: {tally}." if tally else "."),
                items=items,
                emphasis=EMPHASIS[overall],
            )
        )
    return blocks


def _verdict_note(v: GateVerdict, n: int | None) -> str:
    """Why a check got its verdict, against its gate's own threshold."""
    if v.value is None:
        return plain(v.reason)
    if v.ci_low is None or v.ci_high is None:
        items = f" ({plural(n, 'item')})" if n is not None else ""
        return f"no interval{items}: it cannot be judged against {_required(v)}"
    return verdict_reason(v)


def page_one_gate_table(
    index: MeasurementIndex, verdicts: Sequence[GateVerdict], limit: int = PAGE_ONE_CHECKS
) -> Table | None:
    """Page 1's gate checks as one compact table, worst first: gate, check (model, scorer,
    group as they differ), value with its interval (a worst possible value called so),
    what the gate requires, and the verdict with its reason against that threshold."""
    if not verdicts:
        return None
    varies_of = {
        g: _check_varies([v for v in verdicts if v.gate_index == g])
        for g in {v.gate_index for v in verdicts}
    }
    rows = []
    for v in _shown(verdicts, limit):
        record = index.dataset_record(v.dataset)
        sizes = (record.groups if record is not None else {}) or {}
        n = _n(index, v, sizes)
        digits = measure_digits(index, v.dataset, v.measure)
        if v.value is None:
            value = "no value"
        elif v.ci_low is None or v.ci_high is None:
            value = f"{fmt_num(v.value, digits)}, no interval"
        else:
            value = fmt_estimate(v.value, v.ci_low, v.ci_high, digits)
        value += worst_words(v.measure, v.value)
        fallback = group_name(v.group) if v.group != "all" else (v.model or "whole dataset")
        rows.append(
            [
                cells.text(str(v.gate_index + 1)),
                cells.text(_where(v, varies_of[v.gate_index], index) or fallback),
                cells.text(value),
                cells.text(_required(v)),
                cells.verdict(v.verdict, EMPHASIS[v.verdict]),
                cells.text(_verdict_note(v, n)),
            ]
        )
    return Table(
        id="page-one-gates",
        title="Gate checks, worst first",
        columns=["Gate", "Check", "Value [interval]", "Required", "Verdict", "Why"],
        rows=rows,
        key_columns=2,
        listed=False,
    )
