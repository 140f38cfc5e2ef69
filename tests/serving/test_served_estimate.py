"""`audit plan`'s time estimate for a served model, against a real llama-cpp-python
server (slow) started here on 127.0.0.1 with the pip-packaged SmolLM2 GGUF: the unit is
timed through the endpoint by the run's own code (a quarter of a small unit at most),
the measurement is kept in the cache, and a `backend: llama_cpp` model, whose server
the run starts, is timed only with `--calibrate`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import audit.pipeline.served_estimate
from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.models.resolve import resolve_model
from audit.pipeline.calibrator import Calibrator
from audit.pipeline.time_estimate import StageEstimate, estimate_times
from audit.scoring.cache import ScoreCache
from audit.spec.loader import load_spec
from tests.serving.smollm2 import SMOLLM2, smollm2_server

pytestmark = pytest.mark.slow

PAIRS = 12  # three timed slices of one pair each, after one untimed pair


@pytest.fixture(scope="module")
def server(real_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with smollm2_server(real_cache, tmp_path_factory.mktemp("llama-server")) as url:
        yield url


def _spec(folder: Path, source: str) -> Path:
    spec = folder / "served.yaml"
    spec.write_text(
        f"""spec_version: 1
name: served-estimate
models:
  - id: smollm2
    source: {source}
datasets:
  - {{name: crows_pairs, limit: {PAIRS}}}
scorers: {{causal: [ll]}}
measures: [bias_score]
report: {{formats: []}}
"""
    )
    return spec


def _estimates(spec: Path, cache: Path, data: Path, *, calibrate: bool) -> list[StageEstimate]:
    settings = RunSettings(out_dir=spec.parent / "out", cache_dir=cache, data_dir=data)
    plan = plan_audit(load_spec(spec), settings, SilentDisplay())
    calibrator = Calibrator(plan, SilentDisplay(), mode="weights" if calibrate else "shape")
    return estimate_times(plan, ScoreCache(cache), calibrator)


def test_a_served_unit_is_timed_through_its_endpoint_and_kept(
    server: str,
    tmp_path: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = f'{{endpoint: "{server}", model: smollm2, bos_text: "<|im_start|>", in_flight: 2}}'
    spec = _spec(tmp_path, source)
    timed: list[int] = []
    real = audit.pipeline.served_estimate.time_served

    def spy(scorer, jobs, served, work):  # type: ignore[no-untyped-def]
        seconds, units = real(scorer, jobs, served, work)
        timed.append(units)
        return seconds, units

    monkeypatch.setattr(audit.pipeline.served_estimate, "time_served", spy)
    (estimate,) = _estimates(spec, tmp_path / "cache", shared_data, calibrate=False)
    assert estimate.what == f"smollm2 x crows_pairs x ll: {2 * PAIRS} sentences"
    assert estimate.seconds is not None and estimate.seconds > 0
    assert f"through {server}" in estimate.basis
    assert "the server's speed at the time" in estimate.basis
    assert timed == [6], "three slices of one pair: a quarter of the unit"

    monkeypatch.setattr(audit.pipeline.served_estimate, "time_served", None)  # not called
    (again,) = _estimates(spec, tmp_path / "cache", shared_data, calibrate=False)
    assert again.seconds == estimate.seconds, "read from the cache"


def test_a_server_the_run_starts_is_timed_only_with_calibrate(
    tmp_path: Path, shared_data: Path, real_cache: Path
) -> None:
    resolved = resolve_model(SMOLLM2, cache_dir=real_cache)
    assert resolved.gguf_file is not None
    gguf = resolved.directory / resolved.gguf_file
    spec = _spec(tmp_path, f'{{gguf: "{gguf}"}}\n    backend: llama_cpp')
    (estimate,) = _estimates(spec, tmp_path / "cache", shared_data, calibrate=False)
    assert estimate.seconds is None
    assert "not timed (`audit plan --calibrate` starts its server and times it)" in (estimate.basis)
