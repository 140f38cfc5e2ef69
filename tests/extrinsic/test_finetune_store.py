"""The fine-tuning cache: keys, curve points, a finished artefact reused without
training, a killed fine-tuning resumed, the stored model rebuilt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from audit.errors import AuditUserError
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.finetune.store import (
    FineTuneStore,
    cached_finetune,
    finetune_key,
    load_finetuned,
    planned_key,
)
from audit.extrinsic.kinds.classification import classification, predict_proba
from audit.extrinsic.kinds.regression import REGRESSION, predict_similarity
from audit.training.status import TrainingInterrupted, TrainingStatus
from tests.extrinsic.test_finetune import learnable_rows, load_tiny, settings, tiny_dirs
from tests.extrinsic.test_finetune_classification import three_classes

__all__ = ["tiny_dirs"]  # the fixture, shared with test_finetune.py

BIAS_PAIRS = [
    ("A man is walking.", "A nurse is walking."),
    ("A woman is walking.", "A nurse is walking."),
]
OPTIONS = {"max_templates": None, "unique_templates": True}


def curve_callback(calls: list[int]) -> Any:
    """A callback like the engine's for STS-bias: the bias pairs' predictions per step."""

    def on_checkpoint(step: int, model: Any) -> dict[str, np.ndarray]:
        calls.append(step)
        both = predict_similarity(model, BIAS_PAIRS)
        return {"male": both[:1], "female": both[1:]}

    return on_checkpoint


def key_of(**changes: Any) -> str:
    facts: dict[str, Any] = {
        "model_fingerprint": "fp",
        "task": "sts_bias",
        "task_options": OPTIONS,
        "settings": settings().resolved("masked", 0),
        "data_sha256": "data",
        **changes,
    }
    return finetune_key(**facts)


def test_key_covers_model_task_options_settings_and_data() -> None:
    base = key_of()
    assert key_of() == base
    changed = [
        key_of(model_fingerprint="other"),
        key_of(task="nli_bias"),
        key_of(task_options={**OPTIONS, "max_templates": 10}),
        key_of(settings=settings(learning_rate=1e-3).resolved("masked", 0)),
        key_of(settings=settings(checkpoint_every=5).resolved("masked", 0)),  # other curve
        key_of(settings=settings(pooling="mean").resolved("masked", 0)),
        key_of(data_sha256="other"),
    ]
    assert len({base, *changed}) == len(changed) + 1
    # which checkpoint is measured changes no weight and no curve point: the same key
    assert key_of(settings=settings(checkpoint="last").resolved("masked", 0)) == base
    assert "checkpoint" not in settings().training_dump()
    with pytest.raises(ValueError, match="resolved"):
        key_of(settings=FineTuneSettings())


def test_the_same_fine_tuning_runs_once(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = learnable_rows()
    calls: list[int] = []
    statuses: list[TrainingStatus] = []
    spec = settings(steps=10, checkpoint_every=4)

    def run() -> Any:
        return cached_finetune(
            load_tiny(tiny_dirs, "bert"),
            REGRESSION,
            rows,
            rows[:6],
            task="sts_bias",
            task_options=OPTIONS,
            settings=spec,
            cache_dir=tmp_path,
            on_checkpoint=curve_callback(calls),
            progress=statuses.append,
        )

    planned = planned_key(
        REGRESSION,
        model_fingerprint="fingerprint-of-tiny-bert",
        model_type="masked",
        task="sts_bias",
        task_options=OPTIONS,
        settings=spec,
        train_rows=rows,
        dev_rows=rows[:6],
    )
    assert not FineTuneStore.of(tmp_path, planned).is_done()
    first = run()
    assert not first.cached and first.model is not None
    assert calls == [4, 8, 10] and len(statuses) == 10
    assert first.key == planned and FineTuneStore.of(tmp_path, planned).is_done()
    store = FineTuneStore(first.root)
    assert first.root == tmp_path / "extrinsic" / first.key
    assert store.is_done() and not store.work_dir.exists()
    assert first.steps == [4, 8, 10]
    points = {step: first.point(step) for step in first.steps}
    assert all(set(p) == {"male", "female"} and p["male"].shape == (1,) for p in points.values())
    # the last point holds the final model's predictions
    final = predict_similarity(first.model, BIAS_PAIRS)
    np.testing.assert_allclose(points[10]["male"], final[:1], atol=1e-6)
    weights = load_file(str(first.weights_file))
    assert any(k.startswith("encoder.") for k in weights)
    assert {k for k in weights if k.startswith("head.")} == {
        "head.dense.weight",
        "head.dense.bias",
        "head.out.weight",
        "head.out.bias",
    }

    second = run()
    assert second.cached and second.model is None
    assert calls == [4, 8, 10] and len(statuses) == 10  # nothing trained, nothing called
    assert second.key == first.key and second.summary == first.summary
    assert second.description["task"] == "sts_bias"
    assert second.description["settings"]["pooling"] == "cls"
    np.testing.assert_array_equal(second.point(8)["female"], points[8]["female"])

    # the rebuilt model predicts what the fine-tuned one did
    loaded = load_tiny(tiny_dirs, "bert")
    rebuilt = load_finetuned(loaded, second)
    np.testing.assert_allclose(predict_similarity(rebuilt, BIAS_PAIRS), final, atol=1e-6)
    loaded.fingerprint = "another model"
    with pytest.raises(AuditUserError, match="fingerprint"):
        load_finetuned(loaded, second)


def test_a_killed_fine_tuning_resumes(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = learnable_rows()
    spec = settings(steps=12, checkpoint_every=4)

    def run(cache: Path, calls: list[int], stop_after: int | None = None) -> Any:
        return cached_finetune(
            load_tiny(tiny_dirs, "llama"),
            REGRESSION,
            rows,
            [],
            task="sts_bias",
            task_options=OPTIONS,
            settings=spec,
            cache_dir=cache,
            on_checkpoint=curve_callback(calls),
            stop_after=stop_after,
        )

    whole_calls: list[int] = []
    whole = run(tmp_path / "whole", whole_calls)
    calls: list[int] = []
    with pytest.raises(TrainingInterrupted):
        run(tmp_path / "killed", calls, stop_after=5)
    store = FineTuneStore.of(tmp_path / "killed", whole.key)
    assert not store.is_done() and store.has_checkpoint()
    assert calls == [4] and store.read_point(4)["male"].shape == (1,)
    resumed = run(tmp_path / "killed", calls)
    assert calls == [4, 8, 12] and whole_calls == [4, 8, 12]
    assert resumed.summary.resumed_from_step == 5 and not resumed.cached
    a, b = load_file(str(whole.weights_file)), load_file(str(resumed.weights_file))
    assert set(a) == set(b)
    for name in a:
        assert torch.allclose(a[name], b[name], atol=1e-6, rtol=0), name
    for step in (4, 8, 12):
        np.testing.assert_allclose(
            resumed.point(step)["male"], whole.point(step)["male"], atol=1e-6
        )
    assert resumed.summary.curve == whole.summary.curve


def test_cached_classifier_keeps_its_labels(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = three_classes()

    def run() -> Any:
        return cached_finetune(
            load_tiny(tiny_dirs, "gpt2"),
            classification(("home", "faith", "health")),
            rows,
            rows,
            task="biasbios",
            task_options={},
            settings=settings(steps=6, checkpoint_every=3),
            cache_dir=tmp_path,
        )

    first = run()
    assert first.summary.labels == ["home", "faith", "health"]
    assert first.key == planned_key(
        classification(("home", "faith", "health")),
        model_fingerprint="fingerprint-of-tiny-gpt2",
        model_type="causal",
        task="biasbios",
        task_options={},
        settings=settings(steps=6, checkpoint_every=3),
        train_rows=rows,
        dev_rows=rows,
    )
    assert first.steps == [3, 6]
    assert not FineTuneStore(first.root).curve_dir.exists()  # no callback, no points
    assert [e.step for e in first.summary.evaluations] == [3, 6]
    second = run()
    assert second.cached
    rebuilt = load_finetuned(load_tiny(tiny_dirs, "gpt2"), second)
    assert rebuilt.labels == ("home", "faith", "health")
    assert first.model is not None
    inputs = [r.text for r in rows]
    np.testing.assert_allclose(
        predict_proba(rebuilt, inputs), predict_proba(first.model, inputs), atol=1e-6
    )


def test_curve_points_replace_atomically(tmp_path: Path) -> None:
    store = FineTuneStore(tmp_path / "k")
    store.write_point(4, {"male": np.array([1.0, 2.0])})
    store.write_point(4, {"male": np.array([3.0]), "female": np.array([4.0])})
    point = store.read_point(4)
    assert set(point) == {"male", "female"} and point["male"].tolist() == [3.0]
    assert sorted(p.name for p in store.curve_dir.iterdir()) == ["step-0000004"]
    with pytest.raises(ValueError, match="curve array name"):
        store.write_point(5, {"../x": np.array([1.0])})
    with pytest.raises(FileNotFoundError):
        store.read_point(8)
