"""Several fine-tuning seeds as one value (`audit.extrinsic.seeds.combine_seeds`): the mean
over the seeds that passed the dev check, its CI from the mean of their item replicates,
the spread, the mean curve, and a failed seed left out and named (every seed failing:
all counted, the dev check failed); the seed list and its keys; the replicates as the
correlation study reads them."""

from __future__ import annotations

import numpy as np
import pytest

from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.options import StsBiasOptions
from audit.extrinsic.planned import PlannedTask
from audit.extrinsic.seeds import SeedRun, combine_seeds
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.sts_data import StsRow
from audit.extrinsic.tasks.base import ItemReplicates, TaskData, TaskValue
from audit.ids import PluginId
from audit.results import (
    ChosenCheckpoint,
    CurvePoint,
    DevCheck,
    ExtrinsicRecord,
    StsBiasResult,
)
from audit.studies import StudySettings, correlations
from tests.extrinsic.test_head_kinds import summary

B = 400


def _result(value: float) -> StsBiasResult:
    return StsBiasResult(
        value=value,
        mean_signed_gap=0.0,
        mean_sim_male=0.0,
        mean_sim_female=0.0,
        n_templates=20,
        n_occupations=3,
        n_pairs=60,
        alpha=0.05,
        n_bootstrap=B,
        seed=0,
        occupations=[],
    )


def run(
    seed: int,
    value: float,
    dev: float,
    *,
    replicates: np.ndarray | None = None,
    curve: tuple[float, float] = (0.0, 0.0),
) -> SeedRun:
    check = DevCheck(
        metric="pearson", value=dev, floor=0.5, floor_reason="r", passed=dev >= 0.5, n=24
    )
    chosen = ChosenCheckpoint(step=6, rule="best_dev", dev=dev, scored=2, reason="best")
    return SeedRun(
        seed=seed,
        summary=summary("regression"),
        key=f"key-{seed}",
        cached=False,
        chosen=chosen,
        value=TaskValue(value, value - 0.1, value + 0.1, 60, "", _result(value)),
        dev_check=check,
        curve=[CurvePoint(step=3, value=curve[0], dev=0.1), CurvePoint(step=6, value=curve[1])],
        replicates=None if replicates is None else ItemReplicates(replicates, 20, "templates"),
    )


def draws(center: float, seed: int) -> np.ndarray:
    return center + np.random.default_rng(seed).normal(0.0, 0.05, B)


def test_the_value_is_the_mean_of_the_seeds_with_its_spread() -> None:
    runs = [run(5, 0.2, 0.8, replicates=draws(0.2, 1)), run(6, 0.4, 0.7, replicates=draws(0.4, 2))]
    mean = combine_seeds(runs, alpha=0.05, n_bootstrap=B)
    assert mean.value == pytest.approx(0.3)
    assert mean.seed_sd == pytest.approx(np.std([0.2, 0.4], ddof=1))
    assert (mean.seed_min, mean.seed_max) == (0.2, 0.4)
    assert [s.seed for s in mean.seeds] == [5, 6] and all(s.kept for s in mean.seeds)
    assert [s.key for s in mean.seeds] == ["key-5", "key-6"]
    assert [(s.value, s.ci_low) for s in mean.seeds] == [(0.2, 0.2 - 0.1), (0.4, 0.4 - 0.1)]
    assert mean.note == "mean of 2 fine-tuning seeds (5, 6)"
    assert mean.dev_check is not None and mean.dev_check.passed
    assert mean.dev_check.value == pytest.approx(0.75)
    assert mean.first is runs[0]


def test_the_ci_of_the_mean_comes_from_the_mean_of_the_replicates() -> None:
    a, b = draws(0.2, 1), draws(0.4, 2)
    mean = combine_seeds(
        [run(5, 0.2, 0.8, replicates=a), run(6, 0.4, 0.7, replicates=b)],
        alpha=0.05,
        n_bootstrap=B,
    )
    assert mean.replicates is not None
    np.testing.assert_allclose(mean.replicates, (a + b) / 2)
    low, high = np.quantile((a + b) / 2, [0.025, 0.975])
    assert (mean.ci_low, mean.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_a_seed_that_failed_the_dev_check_is_left_out_and_named() -> None:
    kept = draws(0.2, 1)
    runs = [
        run(5, 0.2, 0.8, replicates=kept, curve=(0.1, 0.3)),
        run(6, 0.9, 0.31, replicates=draws(0.9, 2), curve=(0.5, 0.5)),
        run(7, 0.4, 0.6, replicates=draws(0.4, 3), curve=(0.3, 0.5)),
    ]
    mean = combine_seeds(runs, alpha=0.05, n_bootstrap=B)
    assert mean.value == pytest.approx(0.3), "seed 6 is not in the mean"
    assert [s.kept for s in mean.seeds] == [True, False, True]
    assert (mean.seed_min, mean.seed_max) == (0.2, 0.4)
    assert "seed 6 left out: dev pearson 0.31 below the floor 0.50" in mean.note
    assert mean.note.startswith("mean of 2 fine-tuning seeds (5, 7)")
    assert mean.dev_check is not None and mean.dev_check.passed
    assert mean.dev_check.value == pytest.approx(0.7)
    assert mean.replicates is not None
    np.testing.assert_allclose(mean.replicates, (kept + draws(0.4, 3)) / 2)
    assert [(p.step, p.value) for p in mean.curve] == [
        (3, pytest.approx(0.2)),
        (6, pytest.approx(0.4)),
    ]
    assert mean.curve[0].dev == pytest.approx(0.1) and mean.curve[1].dev is None


def test_every_seed_failing_counts_them_all_and_fails_the_dev_check() -> None:
    runs = [run(5, 0.2, 0.1), run(6, 0.6, 0.3)]
    mean = combine_seeds(runs, alpha=0.05, n_bootstrap=B)
    assert mean.value == pytest.approx(0.4) and all(s.kept for s in mean.seeds)
    assert mean.dev_check is not None and not mean.dev_check.passed
    assert mean.dev_check.value == pytest.approx(0.2)
    assert mean.note.endswith("mean of 2 fine-tuning seeds (5, 6): every seed failed the dev check")


def test_a_task_without_replicates_gives_the_mean_no_interval() -> None:
    mean = combine_seeds([run(5, 0.2, 0.8), run(6, 0.4, 0.7)], alpha=0.05, n_bootstrap=B)
    assert mean.value == pytest.approx(0.3) and mean.replicates is None
    assert mean.ci_low is None and mean.ci_high is None
    assert mean.note.startswith("no interval: the task gives no replicates")
    unasked = combine_seeds([run(5, 0.2, 0.8), run(6, 0.4, 0.7)], alpha=0.05, n_bootstrap=0)
    assert unasked.note == "mean of 2 fine-tuning seeds (5, 6)", "bootstrap: 0 asks for none"


def test_the_studies_resample_the_items_of_the_extrinsic_series() -> None:
    """The stage's replicates, keyed as `ExtrinsicOutcome` keys them, are what the
    correlations' two-level bootstrap reads: both task series' items are resampled."""

    models = ["a", "b", "c", "d", "e"]
    records: list[ExtrinsicRecord] = []
    replicates = {}
    for task, shift in (("sts_bias", 0.0), ("nli_bias", 0.05)):
        for i, model in enumerate(models):
            value = 0.1 * (i + 1) + shift * (i % 2)
            record = ExtrinsicRecord(
                task=task,
                measure=PluginId.of(task, {}),
                model=model,
                dataset=task,
                value=value,
                n=10,
                ideal_value=0.0,
                finetune=summary("regression"),
                cached=True,
                key=f"{task}-{model}",
                detail={"value": value},
            )
            records.append(record)
            key = (record.measure.key, record.dataset, record.model)
            replicates[key] = draws(value, 10 * i + len(task))
    settings = StudySettings(model_order=models, seed=0, alpha=0.05, bootstrap=B)
    (record,) = correlations(settings, [], records, extrinsic_replicates=replicates)
    assert record.items_resampled == [record.x.label, record.y.label]
    assert record.kendall_tau_ci_low is not None and record.kendall_tau_ci_high is not None
    (without,) = correlations(settings, [], records)
    assert without.items_resampled == []


def test_the_seed_list_starts_at_finetune_seed_else_the_specs() -> None:

    assert FineTuneSettings().seed_list(5) == (5,)
    assert FineTuneSettings(seeds=3).seed_list(5) == (5, 6, 7)
    assert FineTuneSettings(seed=10, seeds=3).seed_list(5) == (10, 11, 12)
    assert "seeds" not in FineTuneSettings(seeds=3).training_dump(), "not in any key"
    rows = [StsRow(float(i), f"a{i}", "b", "g", "f", "2012", "1", i) for i in range(3)]
    data = TaskData(dataset="sts_b", train=rows, dev=rows[:1], evaluation=None)

    def planned(**finetune: int) -> PlannedTask:
        spec = ExtrinsicSpec.model_validate({"task": "sts_bias", "finetune": finetune})
        entry = EXTRINSIC_TASKS.entry("sts_bias")
        return PlannedTask(spec, entry, None, StsBiasOptions(), data, ("m",))  # type: ignore[arg-type]

    several, one = planned(seed=10, seeds=3), planned(seed=10)
    keys = several.cache_keys("f" * 64, "masked", 5)
    assert [s for s, _ in keys] == [10, 11, 12] and len({k for _, k in keys}) == 3
    assert keys[0][1] == one.cache_key("f" * 64, "masked", *one.seeds(5))
    assert keys[1][1] == planned(seed=11).cache_key("f" * 64, "masked", 11)
