"""What the report says about the top of a meta-evaluation's ranking: the measure that
follows r best when the engine's paired bootstrap tells it apart from every other measure,
otherwise the group that ties with it ("KLS, JSS and SSS tie at |ρ| 0.95").

Read from the rows of a `MetaEvaluation` as results.json holds them (`rank`,
`ties_first`; `audit.stats.ratio_ranking` computes them). Rows that share a rank are one
series (identical values on every ratio model) and are named together.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.report.cards import MeasureCards
from audit.report.formatting import fmt_num, join_words, upper_first
from audit.results import CorrelationWithRatio, MetaEvaluation

#: Series named on page 1 before 'and N more'.
MAX_NAMED = 3


@dataclass(frozen=True)
class Leaders:
    """Rank 1's series, the series that tie with it, and whether any row lacks the test."""

    first: list[CorrelationWithRatio]
    tied: list[list[CorrelationWithRatio]]
    others: int
    untested: bool

    @property
    def clear(self) -> bool:
        """Rank 1 is told apart from every other ranked series."""
        return not self.tied and not self.untested


def series_by_rank(meta: MetaEvaluation) -> list[list[CorrelationWithRatio]]:
    """The ranked rows as series (rows sharing a rank), rank 1 first."""
    series: dict[int, list[CorrelationWithRatio]] = {}
    for row in meta.rows:
        if row.rank is not None:
            series.setdefault(row.rank, []).append(row)
    return [series[rank] for rank in sorted(series)]


def leaders(meta: MetaEvaluation) -> Leaders | None:
    """The top of the ranking; None when nothing is ranked."""
    ranked = series_by_rank(meta)
    if not ranked:
        return None
    rest = ranked[1:]
    return Leaders(
        first=ranked[0],
        tied=[s for s in rest if s[0].ties_first],
        others=len(rest),
        untested=any(s[0].ties_first is None for s in rest),
    )


def series_words(cards: MeasureCards, rows: list[CorrelationWithRatio]) -> str:
    """'KLS on CrowS-Pairs (AULA)'; one series under several names: 'bias score = SS on
    StereoSet (SSS)'."""
    first = rows[0]
    names = " = ".join(dict.fromkeys(cards.name(r.measure) for r in rows))
    return f"{names} on {cards.dataset_title(first.dataset)} ({cards.scorer_name(first.scorer)})"


def _rho(row: CorrelationWithRatio) -> str:
    rho = f"Spearman {fmt_num(row.spearman, 2)}"
    if row.spearman_ci_low is not None and row.spearman_ci_high is not None:
        rho += f" [{fmt_num(row.spearman_ci_low, 2)}, {fmt_num(row.spearman_ci_high, 2)}]"
    return rho


def _abs_rhos(series: list[list[CorrelationWithRatio]]) -> str:
    values = sorted({fmt_num(abs(s[0].spearman or 0.0), 2) for s in series})
    return values[0] if len(values) == 1 else f"{values[0]} to {values[-1]}"


def _named(cards: MeasureCards, series: list[list[CorrelationWithRatio]]) -> str:
    """The tied series as a set with their ranks: 'JSS on CrowS-Pairs (AULA) (rank 2), ...
    and 6 more (ranks 5, 7, 8, 9, 11 and 13)'."""
    words = [f"{series_words(cards, s)} (rank {s[0].rank})" for s in series[:MAX_NAMED]]
    rest = series[MAX_NAMED:]
    if rest:
        ranks = join_words(rank_runs([s[0].rank for s in rest if s[0].rank is not None]))
        words.append(f"{len(rest)} more (rank{'s' if len(rest) > 1 else ''} {ranks})")
    return join_words(words)


def rank_runs(ranks: list[int]) -> list[str]:
    """Ranks with each run of three or more written 'a to b': [5, 6, 7, 9] -> ['5 to 7',
    '9']."""
    runs: list[list[int]] = []
    for rank in sorted(ranks):
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    out: list[str] = []
    for run in runs:
        out += [f"{run[0]} to {run[-1]}"] if len(run) >= 3 else [str(r) for r in run]
    return out


def _one_series(cards: MeasureCards, series: list[list[CorrelationWithRatio]]) -> str:
    """' Bias score and SS have the same values on every ratio model: one series, ranked
    once.' for each named series with several names ('' when none has)."""
    sentences = [
        f" {upper_first(join_words(names))} have the same values on every ratio model: one "
        "series, ranked once."
        for s in series[:MAX_NAMED]
        if len(names := list(dict.fromkeys(cards.name(r.measure) for r in s))) > 1
    ]
    return "".join(sentences)


def leader_sentence(cards: MeasureCards, meta: MetaEvaluation) -> str:
    """Page 1's sentence on the top of a ranked meta-evaluation (the control worked)."""
    top = leaders(meta)
    if top is None:
        return "No measure has a defined correlation with r."
    first = series_words(cards, top.first)
    if top.others == 0:
        return (
            f"Only {first} has a defined correlation with r ({_rho(top.first[0])})."
            f"{_one_series(cards, [top.first])}"
        )
    if top.untested:
        return (
            f"The strongest correlation with r is {first}'s ({_rho(top.first[0])}); this "
            "results.json (written before version 3.0) holds no test of whether it is told "
            "apart from the next, so no measure is called the best."
        )
    if top.clear:
        return (
            f"The measure that follows it best is {first} ({_rho(top.first[0])}); a paired "
            "bootstrap tells it apart from every other measure."
            f"{_one_series(cards, [top.first])}"
        )
    group = [top.first, *top.tied]
    tied_ranks = {s[0].rank for s in top.tied}
    last = max(r for r in tied_ranks if r is not None)
    apart = [r for r in range(2, last) if r not in tied_ranks]
    between = (
        f"; rank{'s' if len(apart) > 1 else ''} {join_words([str(r) for r in apart])}, "
        f"between them, {'are' if len(apart) > 1 else 'is'} told apart from rank 1"
        if apart
        else ""
    )
    return (
        f"No measure follows it clearly best: rank 1, {first} ({_rho(top.first[0])}), is not "
        f"told apart by a paired bootstrap from {_named(cards, top.tied)}; |ρ| "
        f"{_abs_rhos(group)} among these {len(group)}{between}.{_one_series(cards, group)}"
    )
