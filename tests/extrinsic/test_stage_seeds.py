"""`finetune: {seeds: k}` through the extrinsic stage on tiny models (STS-bias on a small
STS-B copy): one seed gives the record it always gave (its own cache entry, no seed
list, the value's replicates the draws of its CI); two seeds give two cache entries (the
first the one-seed fine-tuning, read back), their mean with its spread and a CI from the
mean of their replicates; a seed that fails the dev check is left out and named; the
replicates are drawn from the audit's seed alone, the same for every model."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audit.display import SilentDisplay
from audit.extrinsic.finetune.store import FineTuneStore
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.extrinsic.planned import PlannedTask, plan_extrinsic
from audit.extrinsic.settings import ExtrinsicSpec
from audit.extrinsic.stage import ExtrinsicOutcome, run_extrinsic
from audit.extrinsic.sts_bias import StsBiasPair, sts_bias_replicates
from audit.results import ExtrinsicRecord
from tests.extrinsic.test_engine_extrinsic import OCCUPATIONS, sts_folder
from tests.extrinsic.test_finetune import load_tiny, tiny_dirs

__all__ = ["tiny_dirs"]

SEED = 5
B = 200
FINETUNE = {"steps": 6, "batch_size": 8, "max_length": 32, "checkpoint_every": 3}
MODELS = {"tiny-gpt2": "causal", "tiny-bert": "masked"}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("seeds_data")
    sts_folder(shared_data, root / "sts_b")
    shutil.copytree(shared_data / "wordlists", root / "wordlists")
    (root / "occupations.tsv").write_text(OCCUPATIONS)
    return root


def spec(seeds: int, models: list[str] | None = None) -> ExtrinsicSpec:
    return ExtrinsicSpec.model_validate(
        {
            "task": "sts_bias",
            "options": {"max_templates": 12, "occupations_file": "occupations.tsv"},
            "finetune": {**FINETUNE, "seeds": seeds},
            "models": models,
        }
    )


def planned(data_dir: Path, seeds: int, models: list[str] | None = None) -> PlannedTask:
    (item,) = plan_extrinsic(
        [spec(seeds, models)], model_types=MODELS, variants_of={}, data_dir=data_dir, seed=SEED
    )
    return item


def run(item: PlannedTask, dirs: dict[str, Path], cache: Path) -> ExtrinsicOutcome:
    return run_extrinsic(
        [item],
        load_model=lambda model_id: load_tiny(dirs, model_id.removeprefix("tiny-")),
        cache_dir=cache,
        seed=SEED,
        n_bootstrap=B,
        alpha=0.05,
        display=SilentDisplay(),
        model_order=list(MODELS),
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("seeds_cache")


@pytest.fixture(scope="module")
def one_seed(data_dir: Path, tiny_dirs: dict[str, Path], cache: Path) -> ExtrinsicOutcome:
    return run(planned(data_dir, 1), tiny_dirs, cache)


@pytest.fixture(scope="module")
def two_seeds(
    one_seed: ExtrinsicOutcome, data_dir: Path, tiny_dirs: dict[str, Path], cache: Path
) -> ExtrinsicOutcome:
    return run(planned(data_dir, 2, ["tiny-bert"]), tiny_dirs, cache)


def key_of(record: ExtrinsicRecord) -> tuple[tuple[str, str], str, str]:
    return (record.measure.key, record.dataset, record.model)


def pairs_of(data_dir: Path) -> list[StsBiasPair]:
    pairs: list[StsBiasPair] = planned(data_dir, 1).data.evaluation[0]
    return pairs


def stored_replicates(cache: Path, key: str, step: int, pairs: list[StsBiasPair]) -> np.ndarray:
    """The replicates of one fine-tuning's stored predictions at `step`, drawn anew."""
    point = FineTuneStore.of(cache, key).read().point(step)
    return sts_bias_replicates(pairs, point["male"], point["female"], seed=SEED, n_bootstrap=B)


def test_one_seed_gives_the_record_it_always_gave(
    one_seed: ExtrinsicOutcome, data_dir: Path
) -> None:
    item = planned(data_dir, 1)
    assert item.seeds(SEED) == (SEED,)
    for record in one_seed.records:
        assert record.seeds == [] and record.seed_sd is None and record.seed_min is None
        assert record.chosen_checkpoint is not None and not record.cached
        fingerprint = f"fingerprint-of-{record.model}"
        assert record.key == item.cache_key(fingerprint, MODELS[record.model], SEED)
        assert record.finetune.settings["seed"] == SEED and "seeds" not in record.finetune.settings
        assert "mean of" not in record.note
    assert [r.model for r in one_seed.records] == ["tiny-gpt2", "tiny-bert"]


def test_replicates_are_the_values_draws_shared_across_models(
    one_seed: ExtrinsicOutcome, data_dir: Path, cache: Path
) -> None:
    pairs = pairs_of(data_dir)
    assert set(one_seed.replicates) == {key_of(r) for r in one_seed.records}
    for record in one_seed.records:
        replicates = one_seed.replicates[key_of(record)]
        assert replicates.shape == (B,) and record.value is not None
        # drawn from the audit's seed and the task's templates, whatever the model
        assert record.chosen_checkpoint is not None
        step = record.chosen_checkpoint.step
        expected = stored_replicates(cache, record.key, step, pairs)
        np.testing.assert_array_equal(replicates, expected)
        assert abs(replicates.mean() - record.value) < 0.25 * replicates.std()
        low, high = np.quantile(replicates, [0.025, 0.975])
        assert (record.ci_low, record.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_two_seeds_are_two_cache_entries_and_their_mean(
    one_seed: ExtrinsicOutcome, two_seeds: ExtrinsicOutcome, data_dir: Path, cache: Path
) -> None:
    single = next(r for r in one_seed.records if r.model == "tiny-bert")
    (record,) = two_seeds.records
    first, second = record.seeds
    assert (first.seed, second.seed) == (SEED, SEED + 1)
    # the first seed is the one-seed fine-tuning, read back from its cache entry
    assert first.cached and first.key == single.key and not second.cached
    assert (first.value, first.ci_low, first.ci_high) == (
        single.value,
        single.ci_low,
        single.ci_high,
    )
    assert first.chosen_checkpoint == single.chosen_checkpoint and first.curve == single.curve
    assert first.dev_check == single.dev_check
    assert second.key != first.key and FineTuneStore.of(cache, second.key).is_done()
    assert len({p.parent for p in cache.glob("extrinsic/*/finetune.json")}) == 3
    # both seeds pass or fail alike under the real floor? the mean is over the kept ones
    kept = [s for s in record.seeds if s.kept]
    values = [s.value for s in kept if s.value is not None]
    assert record.value == pytest.approx(float(np.mean(values)))
    if len(values) == 2:
        assert record.seed_sd == pytest.approx(float(np.std(values, ddof=1)))
    assert (record.seed_min, record.seed_max) == (min(values), max(values))
    assert record.chosen_checkpoint is None and not record.cached
    assert record.key == kept[0].key and record.finetune.settings["seed"] == kept[0].seed
    assert [p.step for p in record.curve] == [3, 6]
    pairs = pairs_of(data_dir)
    expected = np.mean(
        [stored_replicates(cache, s.key, s.chosen_checkpoint.step, pairs) for s in kept], axis=0
    )
    replicates = two_seeds.replicates[key_of(record)]
    np.testing.assert_allclose(replicates, expected)
    low, high = np.quantile(expected, [0.025, 0.975])
    assert (record.ci_low, record.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert f"fine-tuning seeds ({', '.join(str(s.seed) for s in kept)})" in record.note


def test_a_seed_failing_the_dev_check_is_left_out_and_named(
    two_seeds: ExtrinsicOutcome,
    data_dir: Path,
    tiny_dirs: dict[str, Path],
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    devs = {s.seed: s.dev_check.value for s in two_seeds.records[0].seeds if s.dev_check}
    assert len(devs) == 2 and None not in devs.values() and len(set(devs.values())) == 2
    better = max(devs, key=lambda s: devs[s] or 0.0)
    worse = min(devs, key=lambda s: devs[s] or 0.0)
    floor = (devs[better] + devs[worse]) / 2  # type: ignore[operator]

    def dev_floor(data: Any) -> tuple[float, str]:
        return floor, "between the two seeds"

    monkeypatch.setattr(HEAD_KINDS["regression"].rules, "dev_floor", dev_floor)
    again = run(planned(data_dir, 2, ["tiny-bert"]), tiny_dirs, cache)
    (record,) = again.records
    assert record.cached, "nothing fine-tuned again: the floor only chooses"
    by_seed = {s.seed: s for s in record.seeds}
    assert by_seed[better].kept and not by_seed[worse].kept
    assert record.value == by_seed[better].value
    assert record.seed_sd is None and record.seed_min == record.seed_max == record.value
    assert f"seed {worse} left out: dev pearson" in record.note
    assert record.dev_check is not None and record.dev_check.passed
    assert record.dev_check.value == devs[better]
    assert record.key == by_seed[better].key
    pairs = pairs_of(data_dir)
    step = by_seed[better].chosen_checkpoint.step
    np.testing.assert_allclose(
        again.replicates[key_of(record)], stored_replicates(cache, record.key, step, pairs)
    )
    assert record.left_out_seeds == [by_seed[worse]]

    rules = HEAD_KINDS["regression"].rules
    monkeypatch.setattr(rules, "dev_floor", lambda data: (2.0, "unreachable"))
    (failed,) = run(planned(data_dir, 2, ["tiny-bert"]), tiny_dirs, cache).records
    assert failed.dev_check is not None and not failed.dev_check.passed
    assert all(s.kept for s in failed.seeds), "every seed failed: all are counted"
    assert failed.value == pytest.approx(np.mean([s.value for s in failed.seeds]))
    assert failed.note.endswith("every seed failed the dev check")
