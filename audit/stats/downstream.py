"""A variant against its base on a downstream (extrinsic) task: the paired comparison of
their values, each the mean over fine-tuning seeds, resampling both sources of noise.

An extrinsic value has two: the evaluation items (STS-bias' templates) and the
fine-tuning seed. Replicate b takes, for each model, a resample of its k seeds (with
replacement, drawn from the audit's seed, independently per model: the seeds of two
models are different fine-tunings) and the b-th resample of the items of each (the same
item draws for every model and seed, since the items are shared), and averages them. A
difference of two such replicates varies as the difference of two seed-means would over
other seeds and other items. With one seed per model only the items are resampled, and
the record's note says the seed noise is left out. (A bootstrap over k seeds understates
their variance by (k - 1) / k; with 3 seeds, by a third.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audit.ids import PluginId
from audit.results import ComparisonRecord, ExtrinsicRecord, judge_comparison
from audit.stats.comparison import bootstrap_p
from audit.stats.intervals import percentile_interval

#: Mixed into the audit's seed for the seed resamples (apart from every other draw).
SEED_STREAM = 4242


def seed_and_item_replicates(
    seeds: Sequence[np.ndarray], *, rng: np.random.Generator
) -> np.ndarray:
    """(B,) replicates of a mean over k seeds: row b averages k seeds drawn with
    replacement, each at its b-th item resample. `seeds` holds each seed's (B,) item
    replicates (the same item draws for all)."""
    stacked = np.stack([np.asarray(s, dtype=np.float64) for s in seeds])  # (k, B)
    k, b = stacked.shape
    if k == 1:
        return stacked[0]
    picks = rng.integers(0, k, size=(b, k))
    return stacked[picks, np.arange(b)[:, None]].mean(axis=1)


def downstream_comparison(
    variant: ExtrinsicRecord,
    base: ExtrinsicRecord,
    *,
    variant_seeds: Sequence[np.ndarray],
    base_seeds: Sequence[np.ndarray],
    alpha: float,
    seed: int,
) -> ComparisonRecord:
    """The variant (A) against its base (B) on one extrinsic task, judged on its own (the
    family's correction comes after, `audit.stats.comparison_family`)."""
    ideal = variant.ideal_value if variant.ideal_value is not None else 0.0
    rng = np.random.default_rng([seed, SEED_STREAM])
    reps_b = seed_and_item_replicates(base_seeds, rng=rng)
    reps_a = seed_and_item_replicates(variant_seeds, rng=rng)
    both = np.isfinite(reps_a) & np.isfinite(reps_b)
    common = dict(
        measure=variant.measure,
        dataset=variant.dataset,
        scorer=PluginId.of("finetune", {"pooling": variant.finetune.pooling}),
        group="all",
        model_a=variant.model,
        model_b=base.model,
        n_items=variant.n,
        ideal_value=ideal,
        alpha=alpha,
        n_bootstrap=int(reps_a.size),
        seed=seed,
    )
    k = (len(variant_seeds), len(base_seeds))
    noise = (
        f"resamples the task's items and each model's fine-tuning seeds ({k[0]} and {k[1]})"
        if max(k) > 1
        else "resamples the task's items only: one fine-tuning seed per model, so the "
        "seed noise is left out"
    )
    if variant.value is None or base.value is None or not both.any():
        return ComparisonRecord(
            **common,  # type: ignore[arg-type]
            value_a=variant.value,
            value_b=base.value,
            difference=None,
            distance_difference=None,
            verdict="undefined",
            verdict_uncorrected="undefined",
            note="no value for one of the models",
        )
    differences = (reps_a - reps_b)[both]
    distances = (np.abs(reps_a - ideal) - np.abs(reps_b - ideal))[both]
    difference = percentile_interval(differences, alpha=alpha)
    distance = percentile_interval(distances, alpha=alpha)
    verdict = judge_comparison(
        difference_low=difference.low,
        difference_high=difference.high,
        distance_low=distance.low,
        distance_high=distance.high,
    )
    return ComparisonRecord(
        **common,  # type: ignore[arg-type]
        value_a=variant.value,
        value_b=base.value,
        difference=variant.value - base.value,
        difference_ci_low=difference.low,
        difference_ci_high=difference.high,
        distance_difference=abs(variant.value - ideal) - abs(base.value - ideal),
        distance_ci_low=distance.low,
        distance_ci_high=distance.high,
        p_value=bootstrap_p(distances),
        difference_p=bootstrap_p(differences),
        difference_test="paired bootstrap",
        difference_se=float(np.std(differences, ddof=1)) if differences.size > 1 else None,
        resamples_for_p=int(differences.size),
        verdict=verdict,
        verdict_uncorrected=verdict,
        note=f"downstream: {noise}",
    )
