"""Whether an audit agrees with a paper's headline figure, decided from the numbers of
results.json with the audit's own uncertainty (`audit.report.literature_figures` holds
the papers' numbers):

- **agrees**: this audit's result is the paper's, and told apart (a paired bootstrap that
  separates two measures; a comparison verdict that moved; a test with the power to see a
  correlation as strong as the paper's);
- **partly agrees**: some of it is, told apart, and none of it is told apart the other way;
- **cannot tell**: ties, too few models or too little power leave it open;
- **disagrees**: only when this audit's result is told apart and opposite;
- **not comparable**: the audit did not measure what the paper did.

Fields results.json gains in version 4.0 (`detection`, the correlations' intervals of
Kendall tau, `trivial`) are read when present; a 3.x file is judged without them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from audit.report.cards import MeasureCards
from audit.report.formatting import fmt_num, join_words, plural
from audit.report.literature_figures import (
    DebiasingDirection,
    MeasureOrder,
    PaperMeasure,
    TauTable,
)
from audit.results import (
    ComparisonRecord,
    CorrelationRecord,
    CorrelationWithRatio,
    MeasureSeries,
    MetaEvaluation,
)

LiteratureVerdict = Literal["agrees", "partly agrees", "cannot tell", "disagrees", "not comparable"]

#: How a verdict cell is styled.
EMPHASIS: dict[LiteratureVerdict, Literal["", "good", "bad", "warn"]] = {
    "agrees": "good",
    "partly agrees": "good",
    "cannot tell": "warn",
    "disagrees": "bad",
    "not comparable": "",
}


@dataclass(frozen=True)
class Finding:
    """This audit's counterpart of a paper's figure, in words, and the verdict with why."""

    audit: str
    verdict: LiteratureVerdict
    why: str


def _tally(outcomes: Sequence[str]) -> LiteratureVerdict:
    """One verdict from parts that each 'agree', 'disagree' or stay 'open'."""
    if not outcomes:
        return "not comparable"
    if "disagree" in outcomes:
        return "disagrees"
    if all(o == "agree" for o in outcomes):
        return "agrees"
    return "partly agrees" if "agree" in outcomes else "cannot tell"


# ------------------------------------------------ the meta-evaluation's order of measures


def _is(row: CorrelationWithRatio | ComparisonRecord, measure: PaperMeasure) -> bool:
    return (row.measure.name, row.scorer.name, row.dataset) == (
        measure.measure,
        measure.scorer,
        measure.dataset,
    )


def _ranked_row(meta: MetaEvaluation, measure: PaperMeasure) -> CorrelationWithRatio | None:
    return next(
        (r for r in meta.rows if _is(r, measure) and r.rank is not None and r.spearman is not None),
        None,
    )


def _told_apart(a: CorrelationWithRatio, b: CorrelationWithRatio) -> bool:
    """Whether the paired bootstrap separates `a` and `b`: the record tests each series
    against rank 1 only, so two rows are told apart when one is rank 1 and the other does
    not tie with it."""
    return (a.rank == 1 and b.ties_first is False) or (b.rank == 1 and a.ties_first is False)


def _series_words(cards: MeasureCards, row: CorrelationWithRatio) -> str:
    return f"{cards.title(row.measure)} on {cards.dataset_title(row.dataset)} ({row.scorer.label})"


def order_finding(figure: MeasureOrder, meta: MetaEvaluation, cards: MeasureCards) -> Finding:
    """The paper's order of measures against this meta-evaluation's ranking of the same
    measures (|Spearman ρ| with r), pair by pair."""
    if not meta.control.worked:
        return Finding(
            audit="no ranking: the bias control did not work",
            verdict="not comparable",
            why="measures are not ranked on ratio models that are not known to differ in bias",
        )
    rows = {m.name: row for m in figure.order if (row := _ranked_row(meta, m)) is not None}
    shared = [m.name for m in figure.order if m.name in rows]
    names = join_words([m.name for m in figure.order])
    if len(shared) < 2:
        return Finding(
            audit=f"{plural(len(shared), 'measure')} of the paper's ({names}) ranked here",
            verdict="not comparable",
            why="an order needs two of the paper's measures ranked by this audit",
        )

    def strength(name: str) -> float:
        return abs(rows[name].spearman or 0.0)

    audit_order = sorted(shared, key=strength, reverse=True)
    some = rows[shared[0]]
    where = f"{cards.title(some.measure)} on {cards.dataset_title(some.dataset)}"
    order_text = " > ".join(f"{n} {fmt_num(strength(n), 2)}" for n in audit_order)
    leader = next((r for r in meta.rows if r.rank == 1), None)
    lead = [n for n in shared if rows[n].rank == 1]
    ties = [n for n in shared if rows[n].ties_first]
    apart = [n for n in shared if rows[n].ties_first is False]
    standing = [f"{join_words(lead)} rank 1" if lead else ""]
    if not lead and leader is not None:
        standing = [f"rank 1: {_series_words(cards, leader)}"]
    if ties:
        standing.append(f"{join_words(ties)} {'ties' if len(ties) == 1 else 'tie'} with it")
    if apart:
        standing.append(f"{join_words(apart)} told apart from it")
    audit = f"{where}, |Spearman ρ| with r: {order_text} ({'; '.join(filter(None, standing))})"

    outcomes: list[str] = []
    along: list[str] = []
    against: list[str] = []
    level: list[str] = []
    for a, b in combinations(shared, 2):  # the paper puts a above b
        if strength(a) == strength(b):  # one series (identical values): no order
            level.append(f"{a} level with {b}")
            outcomes.append("open")
            continue
        same = strength(a) > strength(b)
        (along if same else against).append(f"{a} above {b}" if same else f"{b} above {a}")
        if _told_apart(rows[a], rows[b]):
            outcomes.append("agree" if same else "disagree")
        else:
            outcomes.append("open")
    verdict = _tally(outcomes)
    n_apart = sum(o != "open" for o in outcomes)
    why = "; ".join(
        filter(
            None,
            [
                f"{join_words(along)} as in the paper" if along else "",
                f"{join_words(against)} against it" if against else "",
                join_words(level),
            ],
        )
    )
    why += (
        f"; {n_apart} of {plural(len(outcomes), 'pair')} told apart by the paired bootstrap "
        "(it tests each measure against rank 1 only)"
    )
    return Finding(audit=audit, verdict=verdict, why=why)


# ------------------------------------------- intrinsic against extrinsic correlations


def _matches(series: MeasureSeries, measure: str, scorer: str | None, dataset: str | None) -> bool:
    if series.measure.name != measure:
        return False
    if scorer is not None and (series.scorer is None or series.scorer.name != scorer):
        return False
    return dataset is None or series.dataset == dataset


def counterpart(figure: TauTable, records: Sequence[CorrelationRecord]) -> CorrelationRecord | None:
    """This audit's correlation of the same two measures as the paper's strongest pair."""
    cell = figure.strongest()
    m = cell.intrinsic
    return next(
        (
            c
            for c in records
            if _matches(c.x, m.measure, m.scorer, m.dataset)
            and _matches(c.y, cell.extrinsic.measure, None, None)
        ),
        None,
    )


def _tau_ci(record: CorrelationRecord) -> tuple[float, float] | None:
    low = getattr(record, "kendall_tau_ci_low", None)
    high = getattr(record, "kendall_tau_ci_high", None)
    return None if low is None or high is None else (float(low), float(high))


def _p(record: CorrelationRecord) -> float | None:
    return record.kendall_p if record.kendall_p_corrected is None else record.kendall_p_corrected


def detection_of(records: Sequence[Any]) -> Any | None:
    """The first detection limit (results.json 4.0) among `records`, None before 4.0."""
    return next((d for r in records if (d := getattr(r, "detection", None)) is not None), None)


def power_at(detection: Any, tau: float) -> tuple[float, float] | None:
    """(tau, power) of the detection limit's simulated strength closest below |tau|."""
    points = [
        (float(p.tau), float(p.power)) for p in getattr(detection, "power", []) if p.tau <= tau
    ]
    return max(points) if points else None


def correlation_finding(
    figure: TauTable,
    records: Sequence[CorrelationRecord],
    alpha: float,
    name: Callable[[MeasureSeries], str],
) -> Finding:
    """The paper's range and strongest pair of Kendall τ against this audit's, for the
    correlations of an intrinsic (`x`) with an extrinsic (`y`) measure; `name` names a
    series for people."""
    tested = [c for c in records if c.kendall_tau is not None and not getattr(c, "trivial", "")]
    if not tested:
        return Finding(
            audit="no intrinsic-extrinsic correlation computed",
            verdict="not comparable",
            why="fewer than two models have both an intrinsic and an extrinsic value",
        )
    taus = [c.kendall_tau or 0.0 for c in tested]
    strongest = max(tested, key=lambda c: abs(c.kendall_tau or 0.0))
    significant = [c for c in tested if (p := _p(c)) is not None and p <= alpha]
    n_models = max(c.n for c in tested)
    audit = (
        f"τ {fmt_num(min(taus), 2)} to {fmt_num(max(taus), 2)} over "
        f"{plural(len(tested), 'pair')} ({plural(n_models, 'model')}), "
        f"{len(significant)} significant after correction; strongest: "
        f"{name(strongest.x)} with {name(strongest.y)}, {fmt_num(strongest.kendall_tau, 2)}"
    )
    cell = figure.strongest()
    twin = counterpart(figure, tested)
    if twin is not None:
        audit += (
            f"; the paper's strongest pair ({cell.intrinsic.name} with "
            f"{cell.extrinsic.name}) here: {fmt_num(twin.kendall_tau, 2)}"
        )
    paper = abs(cell.before)
    beyond = [
        c for c in tested if (ci := _tau_ci(c)) is not None and (ci[0] > paper or ci[1] < -paper)
    ]
    if beyond:
        c = beyond[0]
        return Finding(
            audit=audit,
            verdict="disagrees",
            why=f"{name(c.x)} with {name(c.y)}: the interval of τ lies beyond the paper's "
            f"strongest |τ| {fmt_num(paper, 2)}",
        )
    detection = detection_of(tested)
    if detection is None:
        return Finding(
            audit=audit,
            verdict="cannot tell",
            why="no detection limit in this results.json (written before 4.0): a correlation "
            f"as strong as the paper's {fmt_num(paper, 2)} may have been missed",
        )
    point = power_at(detection, paper)
    target = float(detection.target_power)
    if point is None or point[1] < target:
        power = "not simulated" if point is None else f"{fmt_num(point[1], 2)}"
        at = "" if point is None else f" at τ {fmt_num(point[0], 1)}"
        return Finding(
            audit=audit,
            verdict="cannot tell",
            why=f"the test's power{at} is {power}, below {fmt_num(target, 2)}: a correlation "
            f"as strong as the paper's {fmt_num(paper, 2)} could have been missed",
        )
    if all(abs(t) <= paper for t in taus):
        return Finding(
            audit=audit,
            verdict="agrees",
            why=f"weak here too (|τ| at most {fmt_num(paper, 2)}), with power "
            f"{fmt_num(point[1], 2)} to detect τ {fmt_num(point[0], 1)}",
        )
    return Finding(
        audit=audit,
        verdict="cannot tell",
        why=f"|τ| {fmt_num(abs(strongest.kendall_tau or 0.0), 2)} exceeds the paper's "
        f"strongest {fmt_num(paper, 2)}, but is not told apart from it",
    )


# ------------------------------------------------------------- the direction of debiasing


#: What counts for or against a paper that found debiasing lowered bias.
_DIRECTION = {"closer to the ideal": "agree", "further from the ideal": "disagree"}


def measures_words(measures: Sequence[PaperMeasure], cards: MeasureCards) -> str:
    """'SSS on StereoSet, CPS and AULA on CrowS-Pairs'."""
    datasets = list(dict.fromkeys(m.dataset for m in measures))
    return ", ".join(
        f"{join_words([m.name for m in measures if m.dataset == d])} on {cards.dataset_title(d)}"
        for d in datasets
    )


def direction_finding(
    figure: DebiasingDirection,
    records: Sequence[ComparisonRecord],
    variants: str,
    cards: MeasureCards,
) -> Finding:
    """The paper's direction of debiasing against the verdicts of `records`: the
    comparisons of the paper's methods' variants with their base on the paper's measures
    (`variants` names them)."""
    mine = [r for r in records if r.group == "all" and any(_is(r, m) for m in figure.measures)]
    if not mine:
        return Finding(
            audit=f"{variants}: no paired comparison with the base on "
            f"{join_words([m.name for m in figure.measures])}",
            verdict="not comparable",
            why="nothing to set beside the paper's direction",
        )
    counts = Counter(str(r.verdict) for r in mine)
    words = [
        f"{counts.get('closer to the ideal', 0)} closer to the ideal",
        f"{counts.get('further from the ideal', 0)} further",
    ]
    words += [f"{n} {v}" for v, n in counts.items() if v not in _DIRECTION]
    measures = measures_words(figure.measures, cards)
    audit = f"{variants} against the base, {measures}: of {plural(len(mine), 'comparison')}, " + (
        ", ".join(words)
    )
    outcomes = [_DIRECTION.get(str(r.verdict), "open") for r in mine]
    verdict = _tally(outcomes)
    why = {
        "agrees": "every comparison moved closer to the ideal, as the paper's did",
        "partly agrees": "some comparisons moved closer to the ideal, none further",
        "disagrees": "some comparisons moved further from the ideal: against the paper",
        "cannot tell": "no comparison moved detectably closer to or further from the ideal",
    }[verdict]
    return Finding(audit=audit, verdict=verdict, why=why)
