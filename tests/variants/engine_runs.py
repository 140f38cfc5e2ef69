"""The `audit run`s of the variant engine tests: on the CPU, a first run into a fresh
cache, and a second run of a spec whose variants are stored, in which the step that would
make a variant again (`_train_one`, `_project_one`, `_store_scoring_time` of
audit.variants.build) is made to fail, so that it passes only when every variant comes
from the store and its measurements equal the first run's."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, run_audit
from audit.spec.loader import load_spec


def cpu_settings(out: Path, cache: Path, shared_data: Path, **extra: object) -> RunSettings:
    return RunSettings(out_dir=out, cache_dir=cache, data_dir=shared_data, device="cpu", **extra)  # type: ignore[arg-type]


def first_audit(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[RunOutcome, Path]:
    """`spec_dir/spec.yaml` run into a fresh cache; the outcome and the cache."""
    cache = tmp_path_factory.mktemp("cache")
    settings = cpu_settings(spec_dir / "out1", cache, shared_data)
    return run_audit(load_spec(spec_dir / "spec.yaml"), settings, SilentDisplay()), cache


def run_again_making_nothing(
    first: RunOutcome,
    spec: Path,
    settings: RunSettings,
    monkeypatch: pytest.MonkeyPatch,
    *,
    step: str,
) -> RunOutcome:
    from audit.variants import build

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a stored variant was made again ({step})")

    monkeypatch.setattr(build, step, refuse)
    second = run_audit(load_spec(spec), settings, SilentDisplay())
    assert all(v.cached for v in second.result.variants)
    values = lambda r: [(m.model, m.value) for m in r.measurements]  # noqa: E731
    assert values(second.result) == values(first.result)
    return second
