"""Robustness to dataset size (Liu 2024): recompute a measure on stratified random
subsets and check that the models' ordering and sides of the ideal value hold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import numpy as np
import pandas as pd

from audit.results import ModelDrawSummary, RobustnessRecord
from audit.stats.draws import identity_draws, subsample_draws
from audit.stats.inputs import (
    StudiedMeasure,
    prepare_aligned,
    record_keys,
    require_resamplable,
)


def _finite_or_none(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _ordering_kept(full: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Per draw: every pair of models ordered as in the full data (full-data ties ignored).

    `full` (models,), `draws` (models, R); a NaN draw value breaks agreement.
    """
    kept = np.all(np.isfinite(draws), axis=0)
    for i in range(full.size):
        for j in range(i + 1, full.size):
            want = np.sign(full[i] - full[j])
            if want != 0:
                kept &= np.sign(draws[i] - draws[j]) == want
    return kept


def _sides_kept(full: np.ndarray, draws: np.ndarray, ideal: float | None) -> np.ndarray:
    """Per model and draw: on the full data's side of the ideal value (exactly ideal: any)."""
    if ideal is None:
        return np.ones_like(draws, dtype=bool)
    want = np.sign(full - ideal)[:, None]
    return (want == 0) | (np.sign(draws - ideal) == want)


def robustness_study(
    frames: Mapping[str, pd.DataFrame],
    *,
    rates: Sequence[float],
    repeats: int,
    agreement: float,
    seed: int,
    **studied: Unpack[StudiedMeasure],
) -> list[RobustnessRecord]:
    """One RobustnessRecord per rate for `measure` (group `all`) over several models.

    `frames` maps model name -> that model's score frame for one dataset x `scorer` (the
    same items). `implementation` is the measure's object (see `Resamplable`), `options`
    its validated options and `ideal_value` its card's ideal value (None: no side check).
    For each rate, `repeats` subsets stratified by bias type (labelled sets: label x
    target groups) are drawn from `seed` and shared by all models. A draw agrees when
    every pair of models keeps its full-data order and every model stays on its full-data
    side of the ideal value; the verdict is robust when the share of agreeing draws is at
    least `agreement`.
    """
    measure, options, ideal_value = studied["measure"], studied["options"], studied["ideal_value"]
    obj = require_resamplable(measure, studied["implementation"])
    data = prepare_aligned(frames, implementation=obj, scorer_info=studied["scorer_info"])
    names = list(data)
    strata = next(iter(data.values())).strata
    full = np.array(
        [obj.values(d, identity_draws(strata), options)[0] for d in data.values()],
        dtype=np.float64,
    )
    ordering = [
        names[i] for i in np.argsort(-np.where(np.isfinite(full), full, -np.inf), kind="stable")
    ]
    keys = record_keys(
        frames, measure=measure, scorer=studied["scorer"], seed=seed, ideal_value=ideal_value
    )
    study: dict[str, Any] = dict(
        **keys, repeats=repeats, full_ordering=ordering, required_share=agreement
    )
    records = []
    for rate in rates:
        draws = subsample_draws(strata, rate=rate, repeats=repeats, seed=seed)
        table = np.array([obj.values(d, draws, options) for d in data.values()], dtype=np.float64)
        common = {**study, "rate": float(rate), "n_items": int(draws.idx.shape[1])}
        records.append(_record(common, names, full, table, ideal=ideal_value, agreement=agreement))
    return records


def _record(
    common: dict[str, Any],
    names: list[str],
    full: np.ndarray,
    table: np.ndarray,
    *,
    ideal: float | None,
    agreement: float,
) -> RobustnessRecord:
    """The record of one rate: `table` (models, repeats) holds the draws' values."""
    repeats = table.shape[1]
    sides = _sides_kept(full, table, ideal)
    summaries = []
    for i, name in enumerate(names):
        row = table[i][np.isfinite(table[i])]
        summaries.append(
            ModelDrawSummary(
                model=name,
                full_value=_finite_or_none(full[i]),
                mean=float(row.mean()) if row.size else None,
                spread=float(row.std(ddof=1)) if row.size > 1 else None,
                min=float(row.min()) if row.size else None,
                max=float(row.max()) if row.size else None,
                n_undefined=int(repeats - row.size),
                side_kept_share=float(sides[i].mean()) if ideal is not None else None,
            )
        )
    common = {**common, "models": summaries}
    if not np.all(np.isfinite(full)):
        missing = [n for n, v in zip(names, full, strict=True) if not np.isfinite(v)]
        return RobustnessRecord(
            **common,
            ordering_share=None,
            side_share=None,
            agreement_share=None,
            verdict="undefined",
            note=f"no full-data value for model(s) {missing}",
        )
    order_ok = _ordering_kept(full, table)
    side_ok = np.all(sides, axis=0) & np.all(np.isfinite(table), axis=0)
    share = float((order_ok & side_ok).mean())
    note = "one model: only the side of the ideal value is checked" if len(names) == 1 else ""
    return RobustnessRecord(
        **common,
        ordering_share=float(order_ok.mean()),
        side_share=float(side_ok.mean()),
        agreement_share=share,
        verdict="robust" if share >= agreement else "not robust",
        note=note,
    )
