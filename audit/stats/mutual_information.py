"""Kraskov-Stögbauer-Grassberger (2004) k-nearest-neighbour mutual information, algorithm 1."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma


def kraskov_mi(x: np.ndarray, y: np.ndarray, *, k: int = 3, seed: int) -> float:
    """I(X; Y) in nats: psi(k) + psi(N) - mean(psi(n_x + 1) + psi(n_y + 1)), clipped at 0.

    Both variables are scaled to unit standard deviation and jittered by 1e-10 (seeded)
    to break ties, as scikit-learn does. Needs more than k points.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    if n != y.size:
        raise ValueError(f"x and y differ in length ({n} vs {y.size})")
    if n <= k:
        raise ValueError(f"need more than k={k} points (got {n})")
    rng = np.random.default_rng(seed)
    scaled = []
    for v in (x, y):
        sd = v.std()
        v = v / sd if sd > 0 else v.copy()
        scaled.append(v + 1e-10 * max(1.0, float(np.abs(v).mean())) * rng.standard_normal(n))
    xs, ys = scaled
    dx = np.abs(xs[:, None] - xs[None, :])
    dy = np.abs(ys[:, None] - ys[None, :])
    joint = np.maximum(dx, dy)
    np.fill_diagonal(joint, np.inf)
    eps = np.sort(joint, axis=1)[:, k - 1]
    np.fill_diagonal(dx, np.inf)
    np.fill_diagonal(dy, np.inf)
    n_x = (dx < eps[:, None]).sum(axis=1)
    n_y = (dy < eps[:, None]).sum(axis=1)
    mi = digamma(k) + digamma(n) - np.mean(digamma(n_x + 1) + digamma(n_y + 1))
    return float(max(0.0, mi))
