"""The built-in tasks' replicates of their value over resamples of the evaluation items
(STS-bias: templates; NLI-bias: premises; BiasBios: bios within each title x gender
cell): drawn from the seed and the data alone, so two models' replicate b is over the
same items (a value additive over items is additive over replicates), centred on the
value, and for STS-bias and NLI-bias the very draws of the value's CI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from audit.extrinsic.biasbios import tpr_gap, tpr_gap_replicates
from audit.extrinsic.nli_bias import LABELS, nli_bias_scores
from audit.extrinsic.nli_gap import nli_bias_replicates
from audit.extrinsic.options import NliBiasOptions, StsBiasOptions
from audit.extrinsic.sts_bias import sts_bias_replicates, sts_bias_score
from audit.extrinsic.tasks.base import ItemReplicates, Resampling, TaskData, task_replicates
from audit.extrinsic.tasks.nli_bias import TASK as NLI_TASK
from audit.extrinsic.tasks.sts_bias import TASK as STS_TASK
from tests.extrinsic.test_nli_bias import pair
from tests.extrinsic.test_sts_bias import pairs_for

B = 500
RNG = np.random.default_rng(7)


def interval(values: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


# --- STS-bias -----------------------------------------------------------------------------


def sts_predictions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 5, n), rng.uniform(0, 5, n)


def test_sts_bias_replicates_are_the_draws_of_its_interval() -> None:
    pairs = pairs_for(20, ["nurse", "plumber", "chef"])
    male, female = sts_predictions(len(pairs), 1)
    result = sts_bias_score(pairs, male, female, seed=3, n_bootstrap=B)
    replicates = sts_bias_replicates(pairs, male, female, seed=3, n_bootstrap=B)
    assert replicates.shape == (B,)
    assert (result.ci_low, result.ci_high) == pytest.approx(interval(replicates))
    assert abs(replicates.mean() - result.value) < 0.2 * replicates.std()


def test_sts_bias_replicates_share_their_draws_across_models() -> None:
    pairs = pairs_for(20, ["nurse", "plumber"])
    zeros = np.zeros(len(pairs))
    a, b = RNG.uniform(0, 2, len(pairs)), RNG.uniform(0, 2, len(pairs))
    # |gap| of the third model is the sum of the other two's, pair by pair: with the same
    # templates drawn, each replicate is the sum too (the template means are linear)
    rep_a, rep_b, rep_sum = (
        sts_bias_replicates(pairs, m, zeros, seed=11, n_bootstrap=B) for m in (a, b, a + b)
    )
    np.testing.assert_allclose(rep_sum, rep_a + rep_b)
    other_seed = sts_bias_replicates(pairs, a + b, zeros, seed=12, n_bootstrap=B)
    assert not np.allclose(other_seed, rep_a + rep_b), "the seed decides the draws"


def sts_data(n_templates: int) -> TaskData:
    pairs = pairs_for(n_templates, ["nurse", "plumber"])
    return TaskData("sts_b", [], [], (pairs, {}), options=StsBiasOptions())


def test_the_sts_bias_task_gives_its_replicates() -> None:
    data = sts_data(12)
    male, female = sts_predictions(24, 2)
    predictions = {"male": male, "female": female}
    found = task_replicates(STS_TASK, predictions, data, Resampling(seed=4, n_bootstrap=B))
    assert found is not None and (found.n_items, found.counted) == (12, "templates")
    expected = sts_bias_replicates(data.evaluation[0], male, female, seed=4, n_bootstrap=B)
    np.testing.assert_array_equal(found.values, expected)
    assert task_replicates(STS_TASK, predictions, data, Resampling(seed=4, n_bootstrap=0)) is None


class _NoReplicates:
    """A plug-in task without the optional `replicates` method."""

    def measure(self, predictions: Any, data: TaskData, resampling: Resampling) -> Any:
        raise NotImplementedError


class _WrongShape(_NoReplicates):
    def replicates(
        self, predictions: Mapping[str, np.ndarray], data: TaskData, resampling: Resampling
    ) -> ItemReplicates:
        return ItemReplicates(np.zeros(3), 5, "items")


def test_a_task_without_the_method_has_no_replicates() -> None:
    data = sts_data(12)
    resampling = Resampling(seed=0, n_bootstrap=10)
    assert task_replicates(_NoReplicates(), {}, data, resampling) is None  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"shape \(3,\); expected \(10,\)"):
        task_replicates(_WrongShape(), {}, data, resampling)  # type: ignore[arg-type]


# --- NLI-bias -----------------------------------------------------------------------------


def nli_pairs(n_premises: int) -> list[Any]:
    return [pair(f"P{i}", w) for i in range(n_premises) for w in ("man", "woman")]


def neutral_where(mask: np.ndarray) -> np.ndarray:
    """Probabilities whose argmax is neutral exactly where `mask` is true."""
    return np.where(mask[:, None], [0.2, 0.7, 0.1], [0.7, 0.2, 0.1])


def test_nli_bias_replicates_are_the_draws_of_its_interval() -> None:
    pairs = nli_pairs(30)
    probs = np.random.default_rng(0).dirichlet([1, 2, 1], len(pairs))
    result = nli_bias_scores(probs, LABELS, pairs, seed=1, n_bootstrap=B)
    found = nli_bias_replicates(probs, LABELS, pairs, seed=1, n_bootstrap=B)
    assert found is not None
    replicates, units = found
    assert units == 30 and replicates.shape == (B,)
    assert (result.ci_low, result.ci_high) == pytest.approx(interval(replicates))
    assert result.value is not None
    assert abs(replicates.mean() - result.value) < 0.2 * replicates.std()


def test_nli_bias_replicates_share_their_draws_across_models() -> None:
    pairs = nli_pairs(30)
    first = np.arange(len(pairs)) % 3 == 0
    second = np.arange(len(pairs)) % 3 == 1  # neutral on other pairs than the first
    rep = {
        name: nli_bias_replicates(neutral_where(mask), LABELS, pairs, seed=5, n_bootstrap=B)
        for name, mask in (("a", first), ("b", second), ("both", first | second))
    }
    assert all(found is not None for found in rep.values())
    a, b, both = (rep[k][0] for k in ("a", "b", "both"))  # type: ignore[index]
    np.testing.assert_allclose(both, a + b, atol=1e-12)


def test_nli_bias_without_both_genders_has_no_replicates() -> None:
    pairs = [pair(f"P{i}", "man") for i in range(12)]
    probs = neutral_where(np.ones(12, dtype=bool))
    assert nli_bias_replicates(probs, LABELS, pairs, seed=0, n_bootstrap=B) is None
    data = TaskData("nli_bias", [], [], pairs, options=NliBiasOptions(), labels=LABELS)
    found = NLI_TASK.replicates({"probs": probs}, data, Resampling(seed=0, n_bootstrap=B))
    assert found is None


def test_the_nli_bias_task_counts_premises() -> None:
    pairs = nli_pairs(12)
    probs = np.random.default_rng(3).dirichlet([1, 2, 1], len(pairs))
    data = TaskData("nli_bias", [], [], pairs, options=NliBiasOptions(), labels=LABELS)
    found = NLI_TASK.replicates({"probs": probs}, data, Resampling(seed=0, n_bootstrap=B))
    assert found is not None and (found.n_items, found.counted) == (12, "premises")


# --- BiasBios -----------------------------------------------------------------------------


def bios(per_cell: int) -> tuple[list[str], list[str]]:
    titles = [t for t in ("nurse", "pilot", "chef") for _ in range(2 * per_cell)]
    genders = ["female", "male"] * (3 * per_cell)
    return titles, genders


def predicted(titles: list[str], right: np.ndarray) -> list[str]:
    return [t if ok else "other" for t, ok in zip(titles, right, strict=True)]


def test_tpr_gap_replicates_share_their_draws_across_models() -> None:
    titles, genders = bios(40)
    n = len(titles)
    first = np.arange(n) % 4 == 0
    second = np.arange(n) % 4 == 1  # right on other bios than the first
    rep = {
        name: tpr_gap_replicates(
            titles, predicted(titles, mask), genders, seed=2, n_bootstrap=B, aggregate="mean"
        )
        for name, mask in (("a", first), ("b", second), ("both", first | second))
    }
    # the signed mean gap is linear in the bios' hits: the same bios drawn, it adds up
    a, b, both = (rep[k][0] for k in ("a", "b", "both"))  # type: ignore[index]
    np.testing.assert_allclose(both, a + b, atol=1e-12)
    assert rep["a"] is not None and rep["a"][1] == n


def test_tpr_gap_replicates_centre_on_the_value_with_the_binomial_spread() -> None:
    titles, genders = bios(60)
    right = np.random.default_rng(4).random(len(titles)) < np.where(
        np.array(genders) == "female", 0.8, 0.5
    )
    y_pred = predicted(titles, right)
    result = tpr_gap(titles, y_pred, genders, seed=1, n_bootstrap=2000)
    found = tpr_gap_replicates(titles, y_pred, genders, seed=1, n_bootstrap=2000)
    assert found is not None and result.value is not None
    replicates = found[0]
    assert abs(replicates.mean() - result.value) < 0.2 * replicates.std()
    # each cell's resampled hits are Binomial(n, k/n) either way: the same interval width
    assert result.ci_low is not None and result.ci_high is not None
    low, high = interval(replicates)
    assert high - low == pytest.approx(result.ci_high - result.ci_low, rel=0.15)


def test_tpr_gap_without_a_defined_occupation_has_no_replicates() -> None:
    titles, genders = ["nurse"] * 4, ["female"] * 4
    found = tpr_gap_replicates(titles, titles, genders, seed=0, n_bootstrap=B)
    assert found is None
