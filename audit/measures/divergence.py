"""KLS and JSS (Liu 2024): Gaussian fits of the S_st and S_at score sets, per bias type,
weighted by item count over a dataset."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

import numpy as np

from audit.measures.base import MeasureOptions
from audit.measures.frames import PairScores
from audit.measures.gaussian import fit, fold_unit, js_bits, js_reference_nats, kl_gauss
from audit.measures.normality import normality_caveat
from audit.measures.options import DivergenceOptions
from audit.measures.pairwise import GroupMasks, GroupReplicates, PairMeasure, Point, gather
from audit.measures.values import coerce_options, join_notes
from audit.stats.draws import Draws, identity_draws

# (mu_st, s_st, mu_at, s_at) -> value per row
Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: Two fitted Gaussians: (mu_st, s_st, mu_at, s_at).
Fits = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def kls_kernel(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """100 * max(KL both ways) / (sum of both); NaN for a zero variance or identical fits."""
    forward, backward = kl_gauss(m1, s1, m2, s2), kl_gauss(m2, s2, m1, s1)
    total = forward + backward
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 100.0 * np.maximum(forward, backward) / total
    valid = (s1 > 0) & (s2 > 0) & (total > 0) & np.isfinite(total)
    return np.where(valid, value, np.nan)


def jss_kernel(m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """100 * (1 - JS in bits) / (1 + |s_st - s_at|), exact mixture."""
    return 100.0 * (1.0 - js_bits(m1, s1, m2, s2)) / (1.0 + np.abs(s1 - s2))


def jss_reference_kernel(
    m1: np.ndarray, s1: np.ndarray, m2: np.ndarray, s2: np.ndarray
) -> np.ndarray:
    """The published code: J, C folded by min(x,1)/max(x,1), JSS = 100(1-J)/(1+C)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        j = fold_unit(js_reference_nats(m1, s1, m2, s2))
        c = fold_unit(np.abs(s1 - s2))
        value = 100.0 * (1.0 - j) / (1.0 + c)
    return np.where((s1 > 0) & (s2 > 0), value, np.nan)


def _reason(st: np.ndarray, at: np.ndarray, ddof: int) -> str:
    if st.size <= ddof or st.size < 2:
        return f"{st.size} item(s): a Gaussian fit needs at least 2"
    if np.ptp(st) == 0:
        return "S_st has zero variance"
    if np.ptp(at) == 0:
        return "S_at has zero variance"
    return "the two fitted distributions are identical (both divergences are 0)"


class _DivergenceMeasure(PairMeasure):
    """Per-bias-type Gaussian fits, a kernel per measure, an item-count weighted `all`."""

    @abstractmethod
    def kernel(self, options: DivergenceOptions) -> Kernel:
        """The value of two fitted Gaussians, vectorised over rows."""

    @staticmethod
    def ddof(options: MeasureOptions) -> int:
        return 1 if options.compat == "reference" else 0

    def per_type(
        self, data: PairScores, draws: Draws, options: MeasureOptions
    ) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Codes of the types present, their values (types x B) and item counts."""
        opts = coerce_options(options, DivergenceOptions)
        kernel, ddof = self.kernel(opts), self.ddof(opts)
        st, at = gather(data.st, draws), gather(data.at, draws)
        codes = [int(c) for c in np.unique(draws.strata)]
        rows, counts = [], []
        for code in codes:
            cols = draws.strata == code
            m1, s1 = fit(st[:, cols], ddof=ddof)
            m2, s2 = fit(at[:, cols], ddof=ddof)
            rows.append(kernel(m1, s1, m2, s2) if cols.sum() > ddof else np.full(len(st), np.nan))
            counts.append(int(cols.sum()))
        return codes, np.array(rows).reshape(len(codes), -1), np.array(counts, dtype=np.float64)

    def values(self, data: PairScores, draws: Draws, options: MeasureOptions) -> np.ndarray:
        _, per_type, counts = self.per_type(data, draws, options)
        return self._weighted(per_type, counts, renormalise=options.compat != "reference")

    def group_replicates(
        self, data: PairScores, resamples: Draws, groups: GroupMasks, options: MeasureOptions
    ) -> GroupReplicates:
        """Fits each bias type once: its replicates serve the type and the weighted `all`."""
        codes, per_type, counts = self.per_type(data, resamples, options)
        out = {data.bias_types[c]: per_type[i] for i, c in enumerate(codes)}
        out["all"] = self._weighted(per_type, counts, renormalise=options.compat != "reference")
        return {g: out[g] for g in groups}

    @staticmethod
    def _weighted(per_type: np.ndarray, counts: np.ndarray, *, renormalise: bool) -> np.ndarray:
        """Item-count weighted average over types; without `renormalise` any NaN type
        makes the row NaN (the published code), with it NaN types are left out."""
        defined = np.isfinite(per_type)
        weights = np.where(defined, counts[:, None], 0.0)
        total = weights.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (np.where(defined, per_type, 0.0) * weights).sum(axis=0) / total
        if not renormalise:
            value = np.where(defined.all(axis=0), value, np.nan)
        return np.where(total > 0, value, np.nan)

    def point(
        self, data: PairScores, positions: np.ndarray, options: MeasureOptions, alpha: float
    ) -> Point:
        opts = coerce_options(options, DivergenceOptions)
        mask = np.isin(np.arange(data.n), positions)
        draws = identity_draws(data.strata).columns(mask)
        codes, per_type, counts = self.per_type(data, draws, opts)
        caveat, shapiro_results = normality_caveat(data, positions, level=opts.normality_level)
        details: dict[str, object] = {"normality": shapiro_results}
        ddof = self.ddof(opts)
        if len(codes) == 1:
            st, at = data.st[positions], data.at[positions]
            m1, s1 = fit(st, ddof=ddof)
            m2, s2 = fit(at, ddof=ddof)
            details.update(
                mu_st=m1,
                sd_st=s1,
                mu_at=m2,
                sd_at=s2,
                kl_st_at=kl_gauss(m1, s1, m2, s2),
                kl_at_st=kl_gauss(m2, s2, m1, s1),
            )
            details.update(self.fit_details((m1, s1, m2, s2), opts))
            value = float(per_type[0, 0])
            if not np.isfinite(value):
                return Point(None, reason=_reason(st, at, ddof), details=details)
            return Point(value, note=caveat, details=details)
        labels = [data.bias_types[c] for c in codes]
        details["per_type"] = {
            label: {"value": float(v), "n": int(n), "weight": float(n / counts.sum())}
            for label, v, n in zip(labels, per_type[:, 0], counts, strict=True)
        }
        missing = [lab for lab, v in zip(labels, per_type[:, 0], strict=True) if not np.isfinite(v)]
        renormalise = opts.compat != "reference"
        value = float(self._weighted(per_type, counts, renormalise=renormalise)[0])
        if not np.isfinite(value):
            return Point(None, reason=f"no value for bias type(s) {missing}", details=details)
        note = caveat
        if missing:
            details["excluded_types"] = missing
            note = join_notes(f"bias type(s) {missing} have no value and are left out", note)
        return Point(value, note=note, details=details)

    def fit_details(self, fits: Fits, options: DivergenceOptions) -> dict[str, object]:
        """Measure-specific details of one fitted pair of Gaussians."""
        return {}


class Kls(_DivergenceMeasure):
    """KLS = 100 * max(KL_st,at, KL_at,st) / (KL_st,at + KL_at,st), weighted over types."""

    def kernel(self, options: DivergenceOptions) -> Kernel:
        return kls_kernel


class Jss(_DivergenceMeasure):
    """JSS = 100 * (1 - JS) / (1 + |s_st - s_at|), weighted over types."""

    def kernel(self, options: DivergenceOptions) -> Kernel:
        return jss_reference_kernel if options.compat == "reference" else jss_kernel

    def fit_details(self, fits: Fits, options: DivergenceOptions) -> dict[str, object]:
        m1, s1, m2, s2 = fits
        if options.compat == "reference":
            return {
                "js_reference_nats": js_reference_nats(m1, s1, m2, s2),
                "delta_sd": abs(s1 - s2),
            }
        return {"js_bits": js_bits(m1, s1, m2, s2), "delta_sd": abs(s1 - s2)}


KLS = Kls()
JSS = Jss()
