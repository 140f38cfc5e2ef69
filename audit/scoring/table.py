"""The score table: one row per (model, dataset, scorer, item_id, side), float64 scores."""

from __future__ import annotations

from typing import Literal

Side = Literal["st", "at", "unrelated", "sentence"]

#: Columns of `scores.parquet`, in order. `label`, `toxicity` and `group` are filled for
#: labelled sets only (`group` joins an item's target groups with ';').
SCORE_COLUMNS: tuple[str, ...] = (
    "model",
    "dataset",
    "scorer",
    "item_id",
    "bias_type",
    "side",
    "score",
    "n_tokens",
    "label",
    "toxicity",
    "group",
)
GROUP_SEPARATOR = ";"
