"""Gaussian fits and divergences, vectorised over a leading resample axis.

KL is closed form. The Jensen-Shannon divergence of two Gaussians has no closed form:
`js_bits` integrates the exact mixture numerically (each expectation on a uniform grid
of the distribution's own standard scores, where the trapezoid rule converges fast for
these smooth integrands); `js_reference_nats` is the published code's moment-matched
approximation.
"""

from __future__ import annotations

import numpy as np

_Z = np.linspace(-12.0, 12.0, 1201)
_W = np.exp(-0.5 * _Z**2)
_W /= _W.sum()


def fit(x: np.ndarray, *, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation along the last axis (ddof 0 = maximum likelihood);
    NaN where there are not more than `ddof` values."""
    n = x.shape[-1]
    if n == 0 or n <= ddof:
        nan = np.full(x.shape[:-1], np.nan)
        return nan, nan.copy()
    return x.mean(axis=-1), x.std(axis=-1, ddof=ddof)


def kl_gauss(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """KL(N(m1, s1^2) || N(m2, s2^2)) in nats."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5


def _half_js_on_grid(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """E_P[h] with h = (p log(2p/(p+q)) + q log(2q/(p+q))) / (p+q), P = N(m1, s1^2).

    With t = log q - log p, h = log 2 - softplus(t) + t * sigmoid(t): smooth, in [0, log 2].
    """
    x = (s1 * _Z + (m1 - m2)) / s2  # standard score under Q of each grid point of P
    t = np.log(s1 / s2) - 0.5 * x * x + 0.5 * _Z * _Z
    e = np.exp(-np.abs(t))
    softplus = np.maximum(t, 0.0) + np.log1p(e)
    sigmoid = np.where(t >= 0, 1.0, e) / (1.0 + e)
    h = np.log(2.0) - softplus + t * sigmoid
    return h @ _W


def _js_nats(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """JS in nats = (E_P[h] + E_Q[h]) / 2 (the integral of (p + q) h over 2), each
    expectation on its own distribution's grid so that a narrow one is resolved."""
    m1, s1, m2, s2 = (np.asarray(a, dtype=np.float64)[..., None] for a in (m1, s1, m2, s2))
    return 0.5 * (_half_js_on_grid(m1, s1, m2, s2) + _half_js_on_grid(m2, s2, m1, s1))


def js_bits(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """JS(N(m1, s1^2) || N(m2, s2^2)) in bits with the exact mixture, clipped to [0, 1];
    NaN where a standard deviation is not positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        nats = _js_nats(m1, s1, m2, s2)
    bits = np.clip(nats / np.log(2.0), 0.0, 1.0)
    valid = (np.asarray(s1) > 0) & (np.asarray(s2) > 0)
    return np.where(valid, bits, np.nan)


def js_reference_nats(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """The published code's 'JS': mixture replaced by N((m1+m2)/2, (s1^2+s2^2)/2), nats."""
    mm = (m1 + m2) / 2
    sm = np.sqrt((s1**2 + s2**2) / 2)
    return (kl_gauss(m1, s1, mm, sm) + kl_gauss(m2, s2, mm, sm)) / 2


def fold_unit(x: np.ndarray) -> np.ndarray:
    """min(x, 1) / max(x, 1), as the published code folds J and |s_st - s_at|."""
    return np.minimum(x, 1.0) / np.maximum(x, 1.0)
