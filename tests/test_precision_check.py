"""The precision check: seeded samples, verdict flips, the record, and the stage end to end
(a tiny causal and a tiny masked model in bfloat16 on the CPU, against a float32 run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from audit.data.items import LabelledItem, LoadedDataset, PairItem
from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, run_audit
from audit.ids import PluginId
from audit.precision_check import (
    compare,
    describe,
    reduced_dtype,
    sample_dataset,
    sample_positions,
    verdict,
)
from audit.results import PrecisionCheck
from audit.results_io import read_results
from audit.scoring.base import SentenceScore
from audit.scoring.cache import Entry, text_key
from audit.scoring.units import ScoreUnit
from audit.spec.models import ModelSpec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2

# ------------------------------------------------------------------------ the sample


def test_same_seed_and_dataset_give_the_same_items() -> None:
    first = sample_positions(1000, 200, seed=3, dataset="crows_pairs")
    assert first == sample_positions(1000, 200, seed=3, dataset="crows_pairs")
    assert len(first) == 200 == len(set(first))
    assert first == sorted(first)
    assert all(0 <= i < 1000 for i in first)


def test_seed_and_dataset_change_the_items() -> None:
    base = sample_positions(1000, 200, seed=3, dataset="crows_pairs")
    assert sample_positions(1000, 200, seed=4, dataset="crows_pairs") != base
    assert sample_positions(1000, 200, seed=3, dataset="stereoset") != base


def test_a_smaller_sample_is_part_of_a_larger_one() -> None:
    small = set(sample_positions(500, 20, seed=0, dataset="d"))
    assert small <= set(sample_positions(500, 100, seed=0, dataset="d"))


def test_sample_bounds() -> None:
    assert sample_positions(5, 200, seed=0, dataset="d") == [0, 1, 2, 3, 4]
    assert sample_positions(5, 0, seed=0, dataset="d") == []
    assert sample_positions(0, 10, seed=0, dataset="d") == []


def _pairs(n: int) -> LoadedDataset:
    items = [PairItem(str(i), "gender", f"st {i}", f"at {i}") for i in range(n)]
    return LoadedDataset("pairs", "pairs", items, "pairs.csv", "0" * 64, rows_read=n)


def test_sample_dataset_keeps_the_sampled_items_in_order() -> None:
    data = _pairs(50)
    sample = sample_dataset(data, 7, seed=1)
    positions = sample_positions(50, 7, seed=1, dataset="pairs")
    assert [i.item_id for i in sample.items] == [str(p) for p in positions]
    assert (sample.name, sample.shape, sample.sha256) == (data.name, data.shape, data.sha256)
    assert len(data.items) == 50  # the original is untouched


# ------------------------------------------------------------------------ flips


def test_verdict_is_the_sign_of_st_minus_at() -> None:
    assert verdict({"st": -1.0, "at": -2.0}) == 1
    assert verdict({"st": -2.0, "at": -1.0}) == -1
    assert verdict({"st": -1.0, "at": -1.0}) == 0
    assert verdict({"st": float("nan"), "at": -1.0}) is None
    assert verdict({"sentence": -1.0}) is None


def _sentence_entries(scores: dict[str, float]) -> dict[str, Entry]:
    return {text_key((text,)): (SentenceScore(value, 3),) for text, value in scores.items()}


def test_compare_counts_flips_ties_and_the_largest_difference() -> None:
    data = _pairs(4)
    reference = _sentence_entries(
        {"st 0": -1.0, "at 0": -2.0, "st 1": -3.0, "at 1": -2.0, "st 2": -1.0, "at 2": -1.5}
        | {"st 3": -4.0, "at 3": -5.0}
    )
    reduced = _sentence_entries(
        # item 0 flips, item 1 keeps its verdict, item 2 becomes a tie (a flip),
        # item 3 keeps it with the largest difference (0.75 on its st side)
        {"st 0": -2.1, "at 0": -2.0, "st 1": -3.1, "at 1": -2.0, "st 2": -1.5, "at 2": -1.5}
        | {"st 3": -4.75, "at 3": -5.0}
    )
    unit = ScoreUnit("m", "pairs", PluginId.of("ll"))
    found = compare(unit, data, reduced, reference)
    assert (found.items, found.verdicts, found.flipped) == (4, 4, 2)
    assert found.max_abs_diff == pytest.approx(1.1)
    assert found.max_diff_item == "0"
    assert compare(unit, data, reference, reference).flipped == 0
    assert compare(unit, data, reference, reference).max_abs_diff == 0.0


def test_pair_scorer_entries_hold_both_sides() -> None:
    data = _pairs(2)

    def entries(values: list[tuple[float, float]]) -> dict[str, Entry]:
        return {
            text_key((f"st {i}", f"at {i}")): (SentenceScore(st, 4), SentenceScore(at, 4))
            for i, (st, at) in enumerate(values)
        }

    unit = ScoreUnit("m", "pairs", PluginId.of("cps"))
    found = compare(unit, data, entries([(-1.0, -0.5), (-1, -2)]), entries([(-1, -2), (-1, -2)]))
    assert (found.verdicts, found.flipped) == (2, 1)
    assert found.max_abs_diff == pytest.approx(1.5)


def test_labelled_statements_have_no_verdict() -> None:
    items = [LabelledItem(str(i), f"text {i}", "harmful", 0.5, ("women",)) for i in range(3)]
    data = LoadedDataset("tox", "labelled", items, "t.json", "0" * 64, rows_read=3)
    reference = _sentence_entries({f"text {i}": -float(i) for i in range(3)})
    reduced = _sentence_entries({f"text {i}": -float(i) - 0.01 * i for i in range(3)})
    found = compare(ScoreUnit("m", "tox", PluginId.of("ll")), data, reduced, reference)
    assert (found.items, found.verdicts, found.flipped) == (3, 0, None)
    assert found.max_abs_diff == pytest.approx(0.02)
    assert found.max_diff_item == "2"


def _spec(dtype: str, check: int = 200) -> ModelSpec:
    return ModelSpec.model_validate(
        {"id": "m", "source": {"path": "x"}, "dtype": dtype, "precision_check": check}
    )


def test_only_reduced_dtypes_with_a_sample_are_checked() -> None:
    assert reduced_dtype(_spec("bfloat16")) == "bfloat16"
    assert reduced_dtype(_spec("float16")) == "float16"
    assert reduced_dtype(_spec("float32")) is None
    assert reduced_dtype(_spec("auto")) is None
    assert reduced_dtype(_spec("bfloat16", 0)) is None


def test_the_check_is_given_its_models_and_a_loader(tmp_path: Path) -> None:
    """No reduced-precision model: nothing is prepared, loaded or scored, and no stage
    is shown (the loader is a plain object it is given, not the run calling back)."""
    from types import SimpleNamespace

    from audit.precision_check import run_precision_checks
    from audit.scoring.cache import ScoreCache

    class Refusing:
        def prepare(self, spec: ModelSpec) -> None:
            raise AssertionError("nothing to prepare")

        def load(self, model: object) -> None:
            raise AssertionError("nothing to load")

    shown: list[str] = []

    class Stages(SilentDisplay):
        def stage(self, name: str) -> None:
            shown.append(name)

    models = [
        ("m", SimpleNamespace(spec=_spec("float32"))),
        ("q", SimpleNamespace(spec=_spec("bfloat16", 0))),
    ]
    checks = run_precision_checks(
        models,  # type: ignore[arg-type]
        [ScoreUnit("m", "pairs", PluginId.of("ll")), ScoreUnit("q", "pairs", PluginId.of("ll"))],
        {"pairs": _pairs(4)},
        seed=0,
        cache=ScoreCache(tmp_path),
        loader=Refusing(),  # type: ignore[arg-type]
        display=Stages(),
    )
    assert checks == [] and shown == []


def test_precision_check_option_is_validated() -> None:
    from pydantic import ValidationError

    assert ModelSpec.model_validate({"id": "m", "source": {"path": "x"}}).precision_check == 200
    with pytest.raises(ValidationError, match="precision_check"):
        _spec("bfloat16", -1)
    with pytest.raises(ValidationError, match="precision_check"):
        ModelSpec.model_validate({"id": "m", "source": {"path": "x"}, "precision_check": "many"})


def test_record_and_its_log_line() -> None:
    record = PrecisionCheck(
        model="m",
        dataset="crows_pairs",
        scorer=PluginId.of("cps"),
        dtype="bfloat16",
        precision="cuda/bfloat16",
        reference="cuda/float32",
        seed=0,
        items=200,
        verdicts=200,
        flipped=3,
        max_abs_diff=0.25,
        max_diff_item="17",
    )
    again = PrecisionCheck.model_validate_json(record.model_dump_json())
    assert again == record
    assert describe(record) == (
        "m · crows_pairs · cps: bfloat16 vs float32: 3 of 200 verdicts flipped, "
        "largest score difference 0.25"
    )
    labelled = record.model_copy(update={"flipped": None, "verdicts": 0})
    assert "on 200 items" in describe(labelled)


# ------------------------------------------------------------------------ end to end

SPEC = """\
spec_version: 1
name: precision-test
seed: 5
bootstrap: 0
models:
  - id: tiny-gpt2
    source: {{path: models/gpt2}}
    dtype: {dtype}
    precision_check: 12
  - id: tiny-bert
    source: {{path: models/bert}}
    dtype: {dtype}
    precision_check: 12
datasets:
  - {{name: crows_pairs, limit: 30}}
  - {{name: toxigen, limit: 20}}
scorers: {{masked: [cps], causal: [ll]}}
measures: [bias_score]
report: {{formats: []}}
"""


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("precision")
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    for dtype in ("bfloat16", "float32"):
        (root / f"{dtype}.yaml").write_text(SPEC.format(dtype=dtype))
    return root


def _run(
    spec_dir: Path, dtype: str, cache: Path, out: Path, data: Path, device: str = "cpu"
) -> RunOutcome:
    from audit.spec.loader import load_spec

    settings = RunSettings(out_dir=out, cache_dir=cache, data_dir=data, device=device)
    return run_audit(load_spec(spec_dir / f"{dtype}.yaml"), settings, SilentDisplay())


@pytest.fixture(scope="module")
def runs(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, RunOutcome, Path]:
    cache = tmp_path_factory.mktemp("cache")
    reduced = _run(spec_dir, "bfloat16", cache, spec_dir / "out-bf16", shared_data)
    # float32 in a cache of its own: its scores are computed apart from the check's
    full = _run(
        spec_dir, "float32", tmp_path_factory.mktemp("cache32"), spec_dir / "out-f32", shared_data
    )
    return reduced, full, cache


def _expected(reduced: pd.DataFrame, full: pd.DataFrame, unit: PrecisionCheck) -> tuple:
    """Flips and the largest difference on the sample, from the two runs' score tables."""

    def rows(table: pd.DataFrame) -> pd.DataFrame:
        mine = table[
            (table.model == unit.model)
            & (table.dataset == unit.dataset)
            & (table.scorer == unit.scorer.name)
        ]
        return mine.set_index(["item_id", "side"])["score"]

    low, high = rows(reduced), rows(full)
    ids = list(dict.fromkeys(low.index.get_level_values(0)))
    sample = [ids[p] for p in sample_positions(len(ids), 12, seed=5, dataset=unit.dataset)]
    diff = max(abs(low.loc[i] - high.loc[i]).max() for i in sample)
    if unit.dataset != "crows_pairs":
        return None, diff
    flips = sum(
        np.sign(low.loc[(i, "st")] - low.loc[(i, "at")])
        != np.sign(high.loc[(i, "st")] - high.loc[(i, "at")])
        for i in sample
    )
    return flips, diff


def test_reduced_precision_run_records_a_check_per_unit(
    runs: tuple[RunOutcome, RunOutcome, Path],
) -> None:
    reduced, full, _ = runs
    _check_against_float32_run(reduced, full, "cpu")


def _check_against_float32_run(reduced: RunOutcome, full: RunOutcome, device: str) -> None:
    checks = reduced.result.precision_checks
    assert {(c.model, c.dataset, c.scorer.name) for c in checks} == {
        ("tiny-gpt2", "crows_pairs", "ll"),
        ("tiny-gpt2", "toxigen", "ll"),
        ("tiny-bert", "crows_pairs", "cps"),
    }
    for check in checks:
        assert (check.items, check.seed, check.dtype) == (12, 5, "bfloat16")
        assert (check.precision, check.reference) == (f"{device}/bfloat16", f"{device}/float32")
        flips, diff = _expected(reduced.scores, full.scores, check)
        assert check.flipped == flips
        assert check.verdicts == (12 if check.dataset == "crows_pairs" else 0)
        # float32 scores agree up to rounding whatever the batch (the check's holds 12)
        assert check.max_abs_diff == pytest.approx(diff, abs=1e-5)
    causal = next(c for c in checks if c.model == "tiny-gpt2" and c.dataset == "crows_pairs")
    assert causal.max_abs_diff is not None and causal.max_abs_diff > 0  # bf16 changes scores
    assert "precision_check" in reduced.result.timings
    assert not full.result.precision_checks
    assert "precision_check" not in full.result.timings
    on_disk = read_results(reduced.out_dir / "results.json")
    assert on_disk.precision_checks == checks


def test_rerun_reads_the_check_from_the_cache(
    runs: tuple[RunOutcome, RunOutcome, Path],
    spec_dir: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reduced, _, cache = runs

    def no_loading(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm rerun must not load model weights")

    monkeypatch.setattr("audit.models.load.load_model", no_loading)
    again = _run(spec_dir, "bfloat16", cache, spec_dir / "out-again", shared_data)
    assert again.result.precision_checks == reduced.result.precision_checks


@pytest.mark.gpu
def test_flip_count_on_cuda(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> None:
    """The same check on CUDA (where bfloat16 is the reason to ask for it): every record
    matches the float32 run's scores on the sampled items."""
    reduced = _run(
        spec_dir,
        "bfloat16",
        tmp_path_factory.mktemp("cuda-cache"),
        spec_dir / "out-cuda-bf16",
        shared_data,
        "cuda",
    )
    full = _run(
        spec_dir,
        "float32",
        tmp_path_factory.mktemp("cuda-cache32"),
        spec_dir / "out-cuda-f32",
        shared_data,
        "cuda",
    )
    _check_against_float32_run(reduced, full, "cuda")
