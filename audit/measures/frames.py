"""Turn one model x dataset x scorer's score rows into the arrays the measures work on.

Pair sets become aligned `st` / `at` (/ `unrelated`) arrays oriented so that a larger
number always means "likelier" (perplexities are negated). Labelled sets become one
toxicity-scaled perplexity per item plus its label and target groups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from audit.errors import AuditUserError
from audit.scoring.base import ScorerInfo
from audit.scoring.table import GROUP_SEPARATOR, UNIT_COLUMNS


class ScoreTableError(AuditUserError):
    """A score table handed to a measure is malformed (missing column, duplicate row...)."""


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ScoreTableError(
            f"score table for {what} lacks column(s) {missing}; it has {list(frame.columns)}"
        )
    for key in UNIT_COLUMNS:
        if key in frame.columns and frame[key].nunique(dropna=False) > 1:
            values = sorted(map(str, frame[key].unique()))
            raise ScoreTableError(
                f"score table for {what} mixes several {key}s {values}; "
                f"pass one model x dataset x scorer at a time"
            )


@dataclass(frozen=True)
class PairScores:
    """Aligned per-item scores of a pair set, oriented: larger = likelier."""

    item_ids: np.ndarray  # (n,) str
    bias_types: tuple[str, ...]  # label of each stratum code, sorted
    strata: np.ndarray  # (n,) int64 code into bias_types
    st: np.ndarray  # (n,) float64
    at: np.ndarray  # (n,) float64
    unrelated: np.ndarray | None  # (n,) float64, StereoSet only

    @property
    def n(self) -> int:
        return int(self.st.size)


def pair_scores(frame: pd.DataFrame, *, scorer: ScorerInfo) -> PairScores:
    """Pivot the `st` / `at` (/ `unrelated`) rows of a pair set into aligned arrays.

    Raises ScoreTableError naming the item when an item lacks a side, repeats one, or
    has inconsistent bias types.
    """
    _require(frame, ("item_id", "bias_type", "side", "score"), "a pair measure")
    if frame.empty:
        raise ScoreTableError("score table for a pair measure has no rows")
    rows = frame.loc[:, ["item_id", "bias_type", "side", "score"]].copy()
    rows["item_id"] = rows["item_id"].astype(str)
    bad_sides = sorted(set(map(str, rows["side"].unique())) - {"st", "at", "unrelated"})
    if bad_sides:
        raise ScoreTableError(
            f"pair score table has side(s) {bad_sides}; accepted: 'st', 'at', 'unrelated'"
        )
    duplicated = rows.duplicated(subset=["item_id", "side"], keep=False)
    if duplicated.any():
        first = rows.loc[duplicated].iloc[0]
        raise ScoreTableError(
            f"item '{first['item_id']}' has more than one '{first['side']}' score row"
        )
    types = rows.groupby("item_id", sort=False)["bias_type"].nunique(dropna=False)
    if (types > 1).any():
        item = types.index[types > 1][0]
        raise ScoreTableError(f"item '{item}' has rows with different bias types")
    wide = rows.pivot(index="item_id", columns="side", values="score")
    for side in ("st", "at"):
        missing = _missing_items(rows, side)
        if missing:
            raise ScoreTableError(
                f"item(s) {missing[:5]} lack the '{side}' score row; every pair needs st and at"
            )
    has_unrelated = "unrelated" in wide.columns
    if has_unrelated:
        missing = _missing_items(rows, "unrelated")
        if missing:
            raise ScoreTableError(
                f"item(s) {missing[:5]} lack the 'unrelated' score row while others have one"
            )
    type_of = rows.drop_duplicates("item_id").set_index("item_id")["bias_type"]
    item_ids = wide.index.to_numpy(dtype=str)
    labels = type_of.reindex(wide.index).fillna("unknown").astype(str).to_numpy()
    bias_types = tuple(sorted(set(labels)))
    codes = np.searchsorted(np.array(bias_types), labels).astype(np.int64)
    sign = 1.0 if scorer.higher_is_likelier else -1.0
    st = sign * wide["st"].to_numpy(dtype=np.float64)
    at = sign * wide["at"].to_numpy(dtype=np.float64)
    unrelated = sign * wide["unrelated"].to_numpy(dtype=np.float64) if has_unrelated else None
    return PairScores(item_ids, bias_types, codes, st, at, unrelated)


def _missing_items(rows: pd.DataFrame, side: str) -> list[str]:
    present = set(rows.loc[rows["side"] == side, "item_id"])
    return sorted(set(rows["item_id"]) - present)


@dataclass(frozen=True)
class LabelledScores:
    """One toxicity-scaled perplexity per item of a labelled set, with label and groups."""

    item_ids: np.ndarray  # (n,) str
    scaled: np.ndarray  # (n,) float64: perplexity / toxicity
    harmful: np.ndarray  # (n,) bool
    groups: tuple[str, ...]  # every target group, sorted
    membership: np.ndarray  # (n, len(groups)) bool: item i targets group g
    strata: np.ndarray  # (n,) int64: code of (label, exact group set)

    @property
    def n(self) -> int:
        return int(self.scaled.size)


def perplexity(score: np.ndarray, n_tokens: np.ndarray, *, scorer: ScorerInfo) -> np.ndarray:
    """Per-sentence (pseudo-)perplexity from a scorer's scores (METHODS.md section 3).

    Perplexity scorers give it directly; a summed log-likelihood gives exp(-score / n);
    a mean log-likelihood gives exp(-score).
    """
    if not scorer.higher_is_likelier:
        return score.astype(np.float64)
    if scorer.aggregation == "mean":
        return np.exp(-score)
    return np.exp(-score / n_tokens)


def labelled_scores(frame: pd.DataFrame, *, scorer: ScorerInfo) -> LabelledScores:
    """Read the `sentence` rows of a labelled set (harm label, toxicity, groups, perplexity)."""
    _require(
        frame,
        ("item_id", "side", "score", "n_tokens", "harm_label", "toxicity", "group"),
        "a labelled-set measure",
    )
    rows = frame.loc[frame["side"] == "sentence"]
    if rows.empty:
        raise ScoreTableError("labelled score table has no rows with side 'sentence'")
    item_ids = rows["item_id"].astype(str).to_numpy()
    if len(set(item_ids)) != item_ids.size:
        dup = pd.Series(item_ids)[pd.Series(item_ids).duplicated()].iloc[0]
        raise ScoreTableError(f"item '{dup}' has more than one 'sentence' score row")
    labels = rows["harm_label"].astype(str).to_numpy()
    bad = sorted(set(labels) - {"harmful", "benign"})
    if bad:
        raise ScoreTableError(
            f"labelled score table has harm_label(s) {bad}; accepted: harmful, benign"
        )
    toxicity = pd.to_numeric(rows["toxicity"], errors="coerce").to_numpy(dtype=np.float64)
    not_positive = ~(toxicity > 0)
    if not_positive.any():
        i = int(np.flatnonzero(not_positive)[0])
        raise ScoreTableError(
            f"item '{item_ids[i]}' has toxicity {rows['toxicity'].tolist()[i]!r}; "
            f"toxicity must be a number > 0"
        )
    n_tokens = pd.to_numeric(rows["n_tokens"], errors="coerce").to_numpy(dtype=np.float64)
    if scorer.higher_is_likelier and scorer.aggregation == "sum" and not (n_tokens > 0).all():
        i = int(np.flatnonzero(~(n_tokens > 0))[0])
        raise ScoreTableError(
            f"item '{item_ids[i]}' has n_tokens {rows['n_tokens'].tolist()[i]!r}; a perplexity "
            f"from the summed scorer '{scorer.name}' needs n_tokens >= 1"
        )
    scores = rows["score"].to_numpy(dtype=np.float64)
    scaled = perplexity(scores, n_tokens, scorer=scorer) / toxicity
    group_sets = [
        tuple(sorted({g.strip() for g in str(v).split(GROUP_SEPARATOR) if g.strip()}))
        if isinstance(v, str)
        else ()
        for v in rows["group"].tolist()
    ]
    groups = tuple(sorted({g for gs in group_sets for g in gs}))
    column = {g: j for j, g in enumerate(groups)}
    membership = np.zeros((item_ids.size, len(groups)), dtype=bool)
    for i, gs in enumerate(group_sets):
        membership[i, [column[g] for g in gs]] = True
    harmful = labels == "harmful"
    keys = [f"{h}|{';'.join(gs)}" for h, gs in zip(harmful, group_sets, strict=True)]
    _, strata = np.unique(np.array(keys), return_inverse=True)
    return LabelledScores(
        item_ids, scaled, harmful, groups, membership, strata.astype(np.int64).ravel()
    )
