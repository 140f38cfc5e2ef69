"""Seeded, stratified index draws: bootstrap resamples and subsamples, as numpy arrays.

A `Draws` holds an index array of shape (B, m): row b is one resample (or subsample) of
item positions, and column j always draws from the stratum `strata[j]`, so the item
count of every stratum is the same in every row. Measures evaluate all rows at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Draws:
    """Index draws: `idx[b, j]` is an item position; column j lies in stratum `strata[j]`."""

    idx: np.ndarray  # (B, m) int64 item positions
    strata: np.ndarray  # (m,) int64 stratum code of each column

    @property
    def n_draws(self) -> int:
        return int(self.idx.shape[0])

    def columns(self, mask: np.ndarray) -> Draws:
        """The draws restricted to the columns where `mask` (shape (m,)) is true."""
        return Draws(idx=self.idx[:, mask], strata=self.strata[mask])


def identity_draws(strata: np.ndarray) -> Draws:
    """One 'draw' that is the data itself (row 0 = every item once, in order)."""
    codes = np.asarray(strata, dtype=np.int64)
    return Draws(idx=np.arange(codes.size, dtype=np.int64)[None, :], strata=codes)


def _members(codes: np.ndarray) -> list[np.ndarray]:
    return [np.flatnonzero(codes == code) for code in np.unique(codes)]


def bootstrap_draws(strata: np.ndarray, *, n_resamples: int, seed: int) -> Draws:
    """`n_resamples` stratified bootstrap resamples (with replacement, within each stratum).

    Column j of every row is an item drawn uniformly from the stratum of item j, so the
    per-stratum counts equal the data's. Same strata, n_resamples and seed give the same
    array.
    """
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1 (got {n_resamples})")
    codes = np.asarray(strata, dtype=np.int64)
    rng = np.random.default_rng(seed)
    idx = np.empty((n_resamples, codes.size), dtype=np.int64)
    for members in _members(codes):
        picks = rng.integers(0, members.size, size=(n_resamples, members.size))
        idx[:, members] = members[picks]
    return Draws(idx=idx, strata=codes)


def subsample_size(stratum_size: int, rate: float) -> int:
    """Items kept from a stratum of `stratum_size` at `rate` (at least one, at most all)."""
    return min(stratum_size, max(1, round(rate * stratum_size)))


def subsample_draws(strata: np.ndarray, *, rate: float, repeats: int, seed: int) -> Draws:
    """`repeats` stratified random subsets without replacement, each keeping `rate` of
    every stratum (rounded, at least one item). Rate 1.0 keeps every item.

    The generator is seeded from (seed, rate), so a rate's draws do not depend on which
    other rates are studied.
    """
    if not 0 < rate <= 1:
        raise ValueError(f"rate must be in (0, 1] (got {rate})")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1 (got {repeats})")
    codes = np.asarray(strata, dtype=np.int64)
    rng = np.random.default_rng([seed, round(rate * 1_000_000)])
    blocks: list[np.ndarray] = []
    block_strata: list[np.ndarray] = []
    for members in _members(codes):
        keep = subsample_size(members.size, rate)
        order = np.argsort(rng.random((repeats, members.size)), axis=1)[:, :keep]
        blocks.append(members[np.sort(order, axis=1)])
        block_strata.append(np.full(keep, codes[members[0]], dtype=np.int64))
    return Draws(idx=np.concatenate(blocks, axis=1), strata=np.concatenate(block_strata))
