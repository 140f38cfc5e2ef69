"""A debiased variant against its base on a downstream task: replicates that resample the
task's items and each model's fine-tuning seeds, the paired comparison built from them,
and the study that pairs each debiased variant with its base (never a ratio model)."""

from __future__ import annotations

import numpy as np
import pytest

from audit.results import DevCheck, ExtrinsicRecord
from audit.stats.downstream import downstream_comparison, seed_and_item_replicates
from audit.studies import StudySettings
from audit.studies.downstream import downstream_comparisons
from tests.extrinsic.test_head_kinds import summary
from tests.test_studies import STS

B = 2000


def _record(model: str, value: float, *, passed: bool = True) -> ExtrinsicRecord:
    return ExtrinsicRecord(
        task="sts_bias",
        measure=STS,
        model=model,
        dataset="sts_b",
        value=value,
        n=30,
        ideal_value=0.0,
        dev_check=DevCheck(
            metric="pearson",
            value=0.8 if passed else 0.1,
            floor=0.5,
            floor_reason="t",
            passed=passed,
            n=30,
        ),
        finetune=summary("regression"),
        cached=False,
        key=f"k-{model}",
        detail={},
    )


def _seeds(values: list[float], noise: float, item_noise: np.ndarray) -> list[np.ndarray]:
    """Each seed's replicates: its value plus the items' shared noise (scaled)."""
    return [v + noise * item_noise for v in values]


def test_one_seed_resamples_the_items_only_and_several_add_the_seed_noise() -> None:
    items = np.random.default_rng(0).normal(size=B)
    one = seed_and_item_replicates([2.0 + items], rng=np.random.default_rng(1))
    assert np.array_equal(one, 2.0 + items)
    seeds = _seeds([1.0, 2.0, 3.0], 1.0, items)
    mixed = seed_and_item_replicates(seeds, rng=np.random.default_rng(1))
    assert mixed.mean() == pytest.approx(2.0 + items.mean(), abs=0.05)
    # the spread of a mean of 3 resampled seeds adds (k-1)/k * var(seeds)/k to the items'
    expected = items.var() + (2 / 3) * np.var([1.0, 2.0, 3.0]) / 3
    assert mixed.var() == pytest.approx(expected, rel=0.15)


def test_a_difference_within_the_seed_spread_is_not_detected() -> None:
    items = np.random.default_rng(3).normal(scale=0.001, size=B)
    base = _record("base", 0.010)
    variant = _record("variant", 0.008)
    # the seeds of each model range over 0.004: the 0.002 apart is seed noise
    record = downstream_comparison(
        variant,
        base,
        variant_seeds=_seeds([0.006, 0.008, 0.010], 1.0, items),
        base_seeds=_seeds([0.008, 0.010, 0.012], 1.0, items),
        alpha=0.05,
        seed=13,
    )
    assert record.difference == pytest.approx(-0.002)
    assert record.difference_ci_low < 0 < record.difference_ci_high
    assert record.verdict_uncorrected == "no detectable change"
    assert "each model's fine-tuning seeds (3 and 3)" in record.note
    # the same means with one seed each: only the items' noise, and the change shows
    alone = downstream_comparison(
        variant,
        base,
        variant_seeds=[0.008 + items],
        base_seeds=[0.010 + items],
        alpha=0.05,
        seed=13,
    )
    assert alone.difference_ci_high < 0 and alone.verdict_uncorrected == "closer to the ideal"
    assert "seed noise is left out" in alone.note


def test_each_debiased_variant_is_compared_with_its_base_and_no_ratio_model() -> None:
    items = np.random.default_rng(5).normal(scale=0.001, size=B)
    records = [
        _record("base", 0.010),
        _record("cda", 0.004),
        _record("bc-r0.5", 0.009),
        _record("dropout", 0.009, passed=False),
    ]
    replicates = {
        (STS.key, "sts_b", r.model): _seeds([r.value or 0.0] * 2, 1.0, items) for r in records
    }
    settings = StudySettings(
        model_order=["base", "cda", "bc-r0.5", "dropout"],
        seed=13,
        alpha=0.05,
        bootstrap=B,
        variant_bases={"cda": "base", "bc-r0.5": "base", "dropout": "base"},
        ratio_models=frozenset({"bc-r0.5"}),
    )
    pending = downstream_comparisons(settings, records, replicates)
    assert [(p.record.model_a, p.record.model_b) for p in pending] == [
        ("cda", "base"),
        ("dropout", "base"),
    ]
    cda, dropout = (p.record for p in pending)
    assert cda.verdict_uncorrected == "closer to the ideal"
    assert cda.scorer.name == "finetune" and cda.n_items == 30
    assert dropout.verdict == "undefined" and "dropout did not learn the task" in dropout.note
    assert dropout.p_value is None
