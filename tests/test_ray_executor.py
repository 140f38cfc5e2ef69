"""The Ray executor on a local Ray (2 CPUs, started once for this module) with tiny
models: the same results.json as in-process; a worker killed mid-task is retried and
changes nothing; a run interrupted at the driver resumes with only the missing scores; a
model that cannot load fails with the in-process error and exit code; local models reach
workers that lack them; without Ray the flag names the extra to install."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.cluster import executor_for
from audit.cluster.messages import MissingExtraError, ShippedModel, WorkerModelError
from audit.cluster.shipping import pack
from audit.cluster.worker import local_spec
from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, run_audit
from audit.errors import AuditUserError
from audit.executor import Executor, InProcessExecutor, ModelRequest
from audit.models.fingerprint import fingerprint
from audit.models.resolve import resolve_model
from audit.models.sources import ModelSpec, PathSource
from audit.scoring import runner
from audit.spec.loader import load_spec
from audit.spec.models import ExecutionSpec
from tests.conftest import REPO
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2
from tests.ray_worker_hooks import SLOW_MARKER
from tests.variants.test_engine_variants import corpus_lines

SPEC = """\
spec_version: 1
name: ray-test
seed: 5
bootstrap: 50
models:
  - {id: tiny-gpt2, source: {path: models/gpt2}}
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 16}
scorers: {masked: [cps], causal: [ll]}
measures: [bias_score]
variants:
  - id: gpt2-dropout
    base: tiny-gpt2
    method: dropout
    corpus: {path: corpus.txt}
    training: {steps: 2, batch_size: 4, max_length: 16}
lm_quality: {enabled: false}
report: {formats: []}
"""

BROKEN = """\
spec_version: 1
name: ray-broken
models:
  - {id: broken, source: {path: models/broken}}
datasets:
  - {name: crows_pairs, limit: 4}
measures: [bias_score]
report: {formats: []}
"""


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One local Ray for the module; its workers keep their own cache (no shared cache)."""
    ray = pytest.importorskip("ray")
    worker_cache = tmp_path_factory.mktemp("worker-cache")
    env = {
        "AUDIT_CACHE_DIR": str(worker_cache),
        SLOW_MARKER: str(worker_cache / "slow"),
        "PYTHONPATH": str(REPO),  # the hook below lives in tests/
    }
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": env,
            "worker_process_setup_hook": "tests.ray_worker_hooks.slow_scoring_while_marked",
        },
    )
    yield worker_cache
    ray.shutdown()


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ray-spec")
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    broken = root / "models" / "broken"
    shutil.copytree(root / "models" / "bert", broken)
    config = json.loads((broken / "config.json").read_text())
    config["hidden_size"] *= 2  # the weights no longer fit: loading them fails
    (broken / "config.json").write_text(json.dumps(config))
    (root / "spec.yaml").write_text(SPEC)
    (root / "broken.yaml").write_text(BROKEN)
    (root / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    return root


def _run(
    spec_dir: Path, cache: Path, out: Path, data: Path, executor: Executor, **display: Any
) -> RunOutcome:
    settings = RunSettings(out_dir=out, cache_dir=cache, data_dir=data, device="cpu")
    shown = display.get("display") or SilentDisplay()
    return run_audit(load_spec(spec_dir / "spec.yaml"), settings, shown, executor=executor)


def _ray() -> Executor:
    return executor_for(ExecutionSpec(executor="ray"))


def _comparable(path: Path) -> dict[str, Any]:
    """results.json without what describes the execution rather than the audit."""
    data: dict[str, Any] = json.loads(path.read_text())
    for key in ("created_at", "timings"):
        data.pop(key)
    data["audit"].pop("spec_path")
    for unit in data["units"]:
        for key in ("computed", "cached", "corrupt", "seconds"):
            unit.pop(key)
    for variant in data.get("variants", []):
        variant["summary"].pop("seconds")
    return data


@pytest.fixture(scope="module")
def in_process(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> RunOutcome:
    cache = tmp_path_factory.mktemp("cache-in-process")
    return _run(spec_dir, cache, spec_dir / "out-local", shared_data, InProcessExecutor())


@pytest.fixture(scope="module")
def on_ray(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory, shared_data: Path, ray_session: Path
) -> tuple[RunOutcome, Path]:
    cache = tmp_path_factory.mktemp("cache-ray")
    return _run(spec_dir, cache, spec_dir / "out-ray", shared_data, _ray()), cache


def _same_audit(outcome: RunOutcome, reference: RunOutcome) -> bool:
    """The same results as `reference`, whose variants were trained while these were
    taken from the cache."""
    mine, theirs = (_comparable(o.out_dir / "results.json") for o in (outcome, reference))
    for variant in (*mine["variants"], *theirs["variants"]):
        variant.pop("cached")
    return mine == theirs


def _with_variants_of(cache: Path, tmp_path: Path) -> Path:
    """A fresh score cache holding the variants the Ray run trained (so only scoring runs)."""
    fresh = tmp_path / "cache"
    shutil.copytree(cache / "variants", fresh / "variants")
    return fresh


def test_ray_gives_the_in_process_results(
    in_process: RunOutcome, on_ray: tuple[RunOutcome, Path]
) -> None:
    ray_outcome, cache = on_ray
    assert _comparable(ray_outcome.out_dir / "results.json") == _comparable(
        in_process.out_dir / "results.json"
    )
    assert [v.cached for v in ray_outcome.result.variants] == [False]
    assert all(m.n_parameters for m in ray_outcome.result.models)
    assert (cache / "variants").is_dir()


def test_ray_writes_nothing_but_the_runs_caches(
    on_ray: tuple[RunOutcome, Path], ray_session: Path
) -> None:
    """Scores and trained models reach the run's cache through Ray, not the workers'."""
    _, cache = on_ray
    assert not (ray_session / "scores").exists()
    assert not any((ray_session / "variants").glob("*/model"))
    assert any((cache / "scores").rglob("scores.sqlite"))


def _ray_workers(task: str) -> list[int]:
    """Local processes that are running the Ray task `task` (Ray titles them ray::<task>)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if command.startswith(f"ray::{task}".encode()):
            found.append(int(entry.name))
    return found


class KillOnceLoaded(SilentDisplay):
    """Kills the scoring workers when the first model is loaded (then scoring, slowly)."""

    def __init__(self) -> None:
        super().__init__()
        self.killed: list[int] = []

    def info(self, message: str) -> None:
        if "loaded on" in message and not self.killed:
            self.killed = _ray_workers("score_group")
            for pid in self.killed:
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds workers in /proc")
def test_a_killed_worker_is_retried_and_changes_nothing(
    in_process: RunOutcome,
    on_ray: tuple[RunOutcome, Path],
    spec_dir: Path,
    tmp_path: Path,
    shared_data: Path,
    ray_session: Path,
) -> None:
    display = KillOnceLoaded()
    cache = _with_variants_of(on_ray[1], tmp_path)
    slow = ray_session / "slow"
    slow.touch()  # each chunk takes a second: the kill lands mid-task
    try:
        outcome = _run(spec_dir, cache, tmp_path / "out", shared_data, _ray(), display=display)
    finally:
        slow.unlink()
    assert display.killed, "no scoring worker was running when the first model loaded"
    assert _same_audit(outcome, in_process)


def _entries(cache: Path) -> int:
    total = 0
    for path in (cache / "scores").rglob("scores.sqlite"):
        with sqlite3.connect(path) as db:
            total += db.execute("SELECT count(*) FROM entries").fetchone()[0]
    return total


def test_a_run_stopped_at_the_driver_resumes_with_only_the_missing_scores(
    in_process: RunOutcome,
    on_ray: tuple[RunOutcome, Path],
    spec_dir: Path,
    tmp_path: Path,
    shared_data: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_put = runner.ScoreNamespace.put_many

    def stop_at_the_second_chunk(self: runner.ScoreNamespace, entries: Any) -> None:
        if _entries(cache):
            raise KeyboardInterrupt
        real_put(self, entries)

    cache = _with_variants_of(on_ray[1], tmp_path)
    monkeypatch.setattr(runner.ScoreNamespace, "put_many", stop_at_the_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        _run(spec_dir, cache, tmp_path / "out", shared_data, _ray())
    monkeypatch.setattr(runner.ScoreNamespace, "put_many", real_put)
    kept = _entries(cache)
    total = sum(u.computed for u in in_process.result.units)
    assert 0 < kept < total
    resumed = _run(spec_dir, cache, tmp_path / "out", shared_data, _ray())
    units = resumed.result.units
    assert sum(u.cached for u in units) == kept
    assert sum(u.computed for u in units) == total - kept
    assert _same_audit(resumed, in_process)


def _cli_run(spec: Path, tmp_path: Path, *flags: str) -> Any:
    args = ["run", str(spec), "--cache-dir", str(tmp_path / "c"), "--out", str(tmp_path / "o")]
    return CliRunner().invoke(app, [*args, "--device", "cpu", *flags])


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def test_a_model_that_cannot_load_fails_as_in_process(
    spec_dir: Path, tmp_path: Path, shared_data: Path, ray_session: Path
) -> None:
    data = ("--data-dir", str(shared_data))
    here = _cli_run(spec_dir / "broken.yaml", tmp_path / "here", *data)
    there = _cli_run(spec_dir / "broken.yaml", tmp_path / "ray", *data, "--executor", "ray")
    assert here.exit_code == there.exit_code == 2
    (message,) = _errors(here.output)
    assert "model 'broken'" in message
    assert _errors(there.output) == [message]


def _tiny_request(folder: Path, cache: Path) -> ModelRequest:
    spec = ModelSpec(id="tiny", source=PathSource(path=str(folder)))
    resolved = resolve_model(spec, cache_dir=cache)
    return ModelRequest(
        spec=spec,
        fingerprint=fingerprint(resolved),
        precision="cpu/float32",
        device="cpu",
        local_root=resolved.directory,
        local_files=tuple(p for r in sorted(resolved.files) for p in resolved.files[r]),
    )


def test_a_worker_without_the_local_model_gets_its_files(
    spec_dir: Path, tmp_path: Path, ray_session: Path
) -> None:
    import ray

    folder = tmp_path / "gone"
    shutil.copytree(spec_dir / "models" / "gpt2", folder)
    request = _tiny_request(folder, tmp_path / "run-cache")
    shipped = ShippedModel([ray.put(pack(request))], 0)
    shutil.rmtree(folder)  # as on a node without the run's files
    spec = local_spec(request, shipped, tmp_path / "worker-cache")
    assert isinstance(spec.source, PathSource) and spec.source.path != str(folder)
    moved = resolve_model(spec, cache_dir=tmp_path / "worker-cache")
    assert fingerprint(moved) == request.fingerprint


def test_a_worker_that_finds_other_files_says_so(spec_dir: Path, tmp_path: Path) -> None:
    request = _tiny_request(spec_dir / "models" / "gpt2", tmp_path)
    other = ModelRequest(**{**request.__dict__, "fingerprint": "0" * 64})
    with pytest.raises(WorkerModelError, match="did not send the model"):
        local_spec(other, None, tmp_path)
    hub = ModelRequest(**{**other.__dict__, "local_root": None, "local_files": ()})
    with pytest.raises(WorkerModelError, match="planned with fingerprint 000000000000"):
        local_spec(hub, None, tmp_path)


def test_without_ray_the_flag_names_the_extra(
    spec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'bias-audit\[ray\]'"):
        executor_for(ExecutionSpec(executor="ray"))
    result = _cli_run(spec_dir / "spec.yaml", tmp_path, "--executor", "ray")
    assert result.exit_code == 2
    assert "bias-audit[ray]" in result.output
    assert issubclass(MissingExtraError, AuditUserError)


def test_address_without_the_ray_executor_is_refused(spec_dir: Path, tmp_path: Path) -> None:
    result = _cli_run(spec_dir / "spec.yaml", tmp_path, "--address", "auto")
    assert result.exit_code == 2
    assert "--executor ray" in result.output


def test_a_cluster_that_cannot_be_joined_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from audit.cluster.ray_executor import RayConnectionError, RayExecutor, RaySettings

    def refuse(**kwargs: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance.")

    executor = RayExecutor.__new__(RayExecutor)
    executor.settings = RaySettings(address="auto")
    executor._ray = SimpleNamespace(is_initialized=lambda: False, init=refuse)  # type: ignore[assignment]
    with pytest.raises(RayConnectionError, match="cannot join the Ray cluster at auto"):
        executor._connect()
