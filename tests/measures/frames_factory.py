"""Build small score tables (the columns of audit/scoring/table.py) for measure tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from audit.scoring.base import ScorerInfo
from audit.scoring.table import SCORE_COLUMNS

AUL = ScorerInfo("aul", frozenset({"masked"}), "sentence", True, "mean", "1", "mean log-prob")
LL = ScorerInfo("ll", frozenset({"causal"}), "sentence", True, "sum", "1", "summed log-prob")
PPL = ScorerInfo("ppl", frozenset({"causal"}), "sentence", False, "mean", "1", "perplexity")


Numbers = Sequence[float] | np.ndarray


def pair_frame(
    st: Numbers,
    at: Numbers,
    *,
    bias_types: Sequence[str] | None = None,
    unrelated: Numbers | None = None,
    model: str = "m",
    scorer: str = "aul",
) -> pd.DataFrame:
    """Rows `st`, `at` (and `unrelated`) per item, item ids '0', '1', ..."""
    types = list(bias_types) if bias_types is not None else ["gender"] * len(st)
    rows = []
    for i, (a, b) in enumerate(zip(st, at, strict=True)):
        sides = [("st", a), ("at", b)]
        if unrelated is not None:
            sides.append(("unrelated", unrelated[i]))
        for side, score in sides:
            rows.append(
                {
                    "model": model,
                    "dataset": "toy",
                    "scorer": scorer,
                    "scorer_options": "{}",
                    "scorer_label": scorer,
                    "item_id": str(i),
                    "bias_type": types[i],
                    "side": side,
                    "score": float(score),
                    "n_tokens": 5,
                    "harm_label": None,
                    "toxicity": None,
                    "group": None,
                }
            )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def labelled_frame(
    scores: Numbers,
    labels: Sequence[str],
    groups: Sequence[str],
    *,
    toxicity: Sequence[float] | None = None,
    n_tokens: Sequence[int] | None = None,
    model: str = "m",
    scorer: str = "ppl",
) -> pd.DataFrame:
    """One `sentence` row per item with harm label, toxicity and ';'-joined groups."""
    n = len(scores)
    tox = list(toxicity) if toxicity is not None else [1.0] * n
    tokens = list(n_tokens) if n_tokens is not None else [4] * n
    rows = [
        {
            "model": model,
            "dataset": "toy",
            "scorer": scorer,
            "scorer_options": "{}",
            "scorer_label": scorer,
            "item_id": str(i),
            "bias_type": None,
            "side": "sentence",
            "score": float(scores[i]),
            "n_tokens": tokens[i],
            "harm_label": labels[i],
            "toxicity": tox[i],
            "group": groups[i],
        }
        for i in range(n)
    ]
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
