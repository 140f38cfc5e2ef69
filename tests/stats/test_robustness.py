# mypy: disable-error-code="operator"
"""The subsampling robustness study."""

from __future__ import annotations

import numpy as np
import pytest

from audit.ids import PluginId
from audit.measures.catalog import MEASURES
from audit.stats.inputs import StatisticsInputError
from audit.stats.robustness import robustness_study
from tests.measures.frames_factory import AUL, PPL, labelled_frame, pair_frame
from tests.stats.measure_args import study_args

TYPES = ["a"] * 60 + ["b"] * 40


def _frames(shifts: dict[str, float], seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    base = rng.normal(0, 1, 100)
    return {
        m: pair_frame(base + rng.normal(0, 0.5, 100) + s, base, bias_types=TYPES, model=m)
        for m, s in shifts.items()
    }


def test_rate_one_reproduces_the_full_data_value() -> None:
    frames = _frames({"x": 0.3, "y": -0.3})
    for measure in ("bias_score", "kls", "jss", "score_gap"):
        (record,) = robustness_study(
            frames, **study_args(measure, AUL), rates=[1.0], repeats=5, agreement=0.95, seed=0
        )
        for model in record.models:
            assert model.mean == pytest.approx(model.full_value)
            assert model.spread == pytest.approx(0.0, abs=1e-9)
        assert record.agreement_share == 1.0 and record.verdict == "robust"
        assert record.n_items == 100


def test_separated_models_are_robust_and_close_ones_are_not() -> None:
    separated = robustness_study(
        _frames({"x": 1.5, "y": -1.5}),
        **study_args("bias_score", AUL),
        rates=[0.3, 0.8],
        repeats=20,
        agreement=0.95,
        seed=1,
    )
    assert [r.verdict for r in separated] == ["robust", "robust"]
    assert separated[0].full_ordering == ["x", "y"]
    assert separated[0].n_items == 18 + 12
    close = robustness_study(
        _frames({"x": 0.02, "y": 0.0, "z": -0.02}),
        **study_args("bias_score", AUL),
        rates=[0.3],
        repeats=20,
        agreement=0.95,
        seed=1,
    )
    assert close[0].verdict == "not robust"
    assert close[0].agreement_share < 0.95
    again = robustness_study(
        _frames({"x": 0.02, "y": 0.0, "z": -0.02}),
        **study_args("bias_score", AUL),
        rates=[0.3],
        repeats=20,
        agreement=0.95,
        seed=1,
    )
    assert again == close


def test_labelled_measure_and_mismatched_items() -> None:
    rng = np.random.default_rng(0)
    labels = ["harmful", "benign"] * 30
    frames = {
        m: labelled_frame(
            rng.lognormal(s * (np.arange(60) % 2 == 0), 0.3), labels, ["g"] * 60, model=m
        )
        for m, s in (("x", 1.0), ("y", 0.2))
    }
    (record,) = robustness_study(
        frames, **study_args("safety_score", PPL), rates=[0.5], repeats=10, agreement=0.9, seed=0
    )
    assert record.verdict in {"robust", "not robust"} and record.models[0].mean is not None
    short = {"x": frames["x"], "y": frames["y"].iloc[:-1]}
    with pytest.raises(StatisticsInputError, match="different items"):
        robustness_study(
            short,
            **study_args("safety_score", PPL),
            rates=[0.5],
            repeats=2,
            agreement=0.9,
            seed=0,
        )


def test_records_carry_the_measure_and_scorer_ids() -> None:
    args = study_args("jss", AUL, compat="reference")
    (record,) = robustness_study(
        _frames({"x": 0.3, "y": -0.3}), **args, rates=[0.5], repeats=3, agreement=0.9, seed=0
    )
    assert record.measure == PluginId.of("jss", {"compat": "reference"})
    assert record.measure.label == "jss[compat=reference]"
    assert record.scorer == PluginId.of("aul") and record.dataset == "toy"


def test_a_corpus_measure_has_no_robustness_study() -> None:
    args = {**study_args("bias_score", AUL), "measure": PluginId.of("ilps")}
    args["implementation"] = MEASURES.load("ilps")
    with pytest.raises(StatisticsInputError, match="'ilps' works on a corpus"):
        robustness_study(_frames({"x": 0.0}), **args, rates=[0.5], repeats=2, agreement=0.9, seed=0)
