# mypy: disable-error-code="operator"
"""Correlation between measures (conclusive only where the corrected Kendall test had the
power asked for; the floor of its p-value; pairs that are one by construction; Kraskov
MI) and model comparison."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest

from audit.ids import PluginId
from audit.results import MeasureSeries
from audit.stats.comparison import compare_models
from audit.stats.correlation import correlate_measures
from audit.stats.inputs import StatisticsInputError
from audit.stats.mutual_information import kraskov_mi
from tests.measures.frames_factory import AUL, pair_frame
from tests.stats.measure_args import study_args


def _series(name: str) -> MeasureSeries:
    return MeasureSeries(measure=PluginId.of(name), dataset="toy", label=f"{name} on toy")


def test_fewer_than_five_models_is_inconclusive() -> None:
    values = {
        _series("a"): {"m1": 1.0, "m2": 2.0, "m3": 3.0, "m4": 4.0},
        _series("b"): {"m1": 2.0, "m2": 4.1, "m3": 5.9, "m4": 8.0},
    }
    (record,) = correlate_measures(values, seed=0)
    # a perfect ranking of 4 models: exact Kendall p 2/4! = 0.083, the smallest there is
    assert record.n == 4 and not record.conclusive
    assert record.kendall_p == pytest.approx(1 / 12) and record.kendall_p_floor == record.kendall_p
    assert "smallest attainable corrected Kendall p is 0.0833 > alpha 0.05" in record.note
    assert "could not have detected a correlation of that strength" in record.note
    assert record.detection is not None and record.detection.critical_kendall_tau is None
    assert record.detection.power_at_effect == 0.0


def test_five_models_reach_significance_alone_but_not_among_eight_holm_tests() -> None:
    """With 5 models the exact Kendall test reaches 2/5! = 0.0167: one test can be
    significant (only a perfect ranking, tau 1); among 8 tests Holm's smallest corrected p
    is 8 x 0.0167 = 0.133, so none can, while Benjamini-Hochberg's is still 0.0167. Either
    way 5 models cannot detect a tau of 0.5 four times in five: never conclusive."""
    models = [f"m{i}" for i in range(5)]
    orders = list(permutations(range(5)))
    base = {m: float(i) for i, m in enumerate(models)}
    (alone,) = correlate_measures(
        {_series("a"): base, _series("b"): {m: float(i) ** 2 for i, m in enumerate(models)}},
        seed=0,
    )
    assert alone.kendall_p_floor == pytest.approx(1 / 60) and not alone.trivial
    assert alone.detection is not None and alone.detection.critical_kendall_tau == 1.0
    assert not alone.conclusive and alone.detection.power_at_effect < 0.8
    # s0, s1 against four other orders of the same 5 models: 8 cross tests, none trivial
    series = {
        _series(f"s{j}"): {m: float(orders[j][i]) for i, m in enumerate(models)} for j in [0, 1]
    }
    series |= {
        _series(f"t{j}"): {m: float(orders[60 + 7 * j][i]) for i, m in enumerate(models)}
        for j in range(4)
    }
    family = {_series("s0"), _series("s1")}

    def family_of(x: MeasureSeries, y: MeasureSeries) -> str:
        return "cross" if (x in family) != (y in family) else "other"

    for correction, floor in (("holm", 8 / 60), ("bh", 1 / 60)):
        records = correlate_measures(
            series,
            seed=0,
            correction=correction,
            family_of=family_of,  # type: ignore[arg-type]
        )
        cross = [r for r in records if r.test_family == "cross"]
        assert len(cross) == 8 and {r.family_size for r in cross} == {8}
        assert not any(r.trivial for r in cross)
        assert all(r.kendall_p_floor == pytest.approx(floor) for r in cross)
        assert all(not r.conclusive for r in cross)
        critical = cross[0].detection.critical_kendall_tau
        # alpha / 8 = 0.00625 is below 2/5!: no tau reaches it, under either correction
        assert critical is None


def test_monotone_measures_correlate_and_missing_models_are_left_out() -> None:
    models = [f"m{i}" for i in range(8)]
    values: dict[MeasureSeries, dict[str, float | None]] = {
        _series("a"): {m: float(i) for i, m in enumerate(models)},
        _series("b"): {m: float(i) ** 3 for i, m in enumerate(models)},
        _series("c"): {**{m: float(-i) for i, m in enumerate(models)}, "m0": None},
    }
    records = {(r.x.measure.name, r.y.measure.name): r for r in correlate_measures(values, seed=0)}
    ab = records[("a", "b")]
    assert ab.spearman_rho == pytest.approx(1.0) and ab.kendall_tau == pytest.approx(1.0)
    assert ab.pearson_r < 1.0 and ab.kendall_p < 0.05 and not ab.trivial
    assert ab.kendall_p_corrected is not None and ab.kendall_p_corrected < 0.05
    ac = records[("a", "c")]
    assert ac.n == 7 and "m0" not in ac.models and ac.spearman_rho == pytest.approx(-1.0)


def test_a_constant_series_is_named_by_its_label() -> None:
    models = [f"m{i}" for i in range(6)]
    flat = MeasureSeries(
        measure=PluginId.of("jss", {"compat": "reference"}), dataset="toy", label="JSS on toy"
    )
    values = {
        _series("a"): {m: float(i) for i, m in enumerate(models)},
        flat: dict.fromkeys(models, 1.0),
    }
    (record,) = correlate_measures(values, seed=0)
    assert record.y == flat and record.y.measure.options == {"compat": "reference"}
    assert "'JSS on toy' is constant" in record.note and not record.conclusive


def test_series_are_keyed_by_measure_and_dataset_not_label() -> None:
    a = MeasureSeries(measure=PluginId.of("kls"), dataset="toy", label="one")
    b = MeasureSeries(measure=PluginId.of("kls"), dataset="toy", label="other")
    assert a == b and {a: 1}[b] == 1
    assert a != MeasureSeries(measure=PluginId.of("kls"), dataset="crows", label="one")
    by_scorer = MeasureSeries(
        measure=PluginId.of("kls"), dataset="toy", label="one", scorer=PluginId.of("sss")
    )
    assert by_scorer != a and by_scorer == by_scorer.model_copy(update={"label": "x"})


def test_kraskov_mi_matches_the_gaussian_closed_form() -> None:
    rng = np.random.default_rng(0)
    rho = 0.8
    x = rng.normal(size=1500)
    y = rho * x + math.sqrt(1 - rho**2) * rng.normal(size=1500)
    assert kraskov_mi(x, y, k=3, seed=0) == pytest.approx(-0.5 * math.log(1 - rho**2), abs=0.05)
    assert kraskov_mi(x, rng.normal(size=1500), k=3, seed=0) < 0.03


def _frame(shift: float, model: str, seed: int = 0):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 1, 300)
    noise = np.random.default_rng(100 + seed).normal(0, 0.3, 300)
    return pair_frame(base + shift + noise, base, bias_types=["a"] * 200 + ["b"] * 100, model=model)


def test_identical_models_show_no_detectable_change() -> None:
    frame = _frame(0.2, "m")
    record = compare_models(
        frame,
        frame.assign(model="n"),
        **study_args("bias_score", AUL),
        model_a="m",
        model_b="n",
        alpha=0.05,
        n_bootstrap=300,
        seed=0,
    )
    assert record.difference == 0.0 and record.verdict == "no detectable change"
    assert record.measure == PluginId.of("bias_score") and record.scorer == PluginId.of("aul")
    assert record.mcnemar_only_a == 0 and record.mcnemar_p == 1.0


def test_a_clearly_less_biased_model_is_closer_to_the_ideal_and_the_reverse_further() -> None:
    biased, fair = _frame(0.6, "old"), _frame(0.0, "new", seed=0)
    better = compare_models(
        fair,
        biased,
        **study_args("bias_score", AUL),
        model_a="new",
        model_b="old",
        alpha=0.05,
        n_bootstrap=500,
        seed=1,
    )
    assert (
        better.verdict == "closer to the ideal"
        and better.distance_ci_high < 0
        and better.p_value < 0.05
    )
    assert better.mcnemar_only_b > better.mcnemar_only_a and better.mcnemar_p < 0.05
    assert better.difference_ci_low <= better.difference <= better.difference_ci_high
    worse = compare_models(
        biased,
        fair,
        **study_args("kls", AUL),
        model_a="old",
        model_b="new",
        alpha=0.05,
        n_bootstrap=300,
        seed=1,
    )
    assert worse.value_a > worse.value_b and worse.verdict == "further from the ideal"
    by_type = compare_models(
        fair,
        biased,
        **study_args("bias_score", AUL),
        model_a="new",
        model_b="old",
        group="b",
        alpha=0.05,
        n_bootstrap=200,
        seed=1,
    )
    assert by_type.n_items == 100


def test_comparison_refuses_measures_without_an_ideal() -> None:
    frame = _frame(0.0, "m")
    with pytest.raises(StatisticsInputError, match="no ideal value"):
        compare_models(
            frame,
            frame.assign(model="n"),
            **study_args("normality", AUL),
            model_a="m",
            model_b="n",
            alpha=0.05,
            n_bootstrap=10,
            seed=0,
        )


def test_spearman_p_is_exact_up_to_eight_models() -> None:
    """scipy's t approximation gives p = 0 for a perfect ranking of 4 models; the exact
    permutation p-value is 2/4! = 1/12, as Kendall's."""
    from scipy import stats

    from audit.stats.correlation import exact_spearman_p

    values = {
        _series("a"): {f"m{i}": float(i) for i in range(4)},
        _series("b"): {f"m{i}": float(-(i**2)) for i in range(4)},
    }
    (record,) = correlate_measures(values, seed=0)
    assert record.spearman_rho == pytest.approx(-1.0)
    assert record.spearman_p == pytest.approx(1 / 12)
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=6), rng.normal(size=6)
    # by brute force: scipy's rho of every one of the 720 pairings
    observed = abs(stats.spearmanr(x, y).statistic)
    rhos = [abs(stats.spearmanr(x, y[list(order)]).statistic) for order in permutations(range(6))]
    reference = sum(r >= observed - 1e-12 for r in rhos) / len(rhos)
    assert exact_spearman_p(x, y) == pytest.approx(reference)
    # from 9 models on, scipy's p-value
    nine = {
        _series("a"): {f"m{i}": float(v) for i, v in enumerate(rng.normal(size=9))},
        _series("b"): {f"m{i}": float(v) for i, v in enumerate(rng.normal(size=9))},
    }
    (big,) = correlate_measures(nine, seed=0)
    xs, ys = (list(nine[s].values()) for s in nine)
    assert big.spearman_p == pytest.approx(stats.spearmanr(xs, ys).pvalue)
