"""Shared fixtures: where the real data and models live (../shared beside the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUDIT_SHARED_DIR", REPO.parent / "shared")).resolve()
SHARED_DATA = SHARED / "data"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `gpu` need CUDA: without it they are skipped (torch is imported only
    when some collected test carries the marker)."""
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA (gpu marker); no CUDA device here")
    for item in gpu_items:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets (../shared/data); tests that need them skip loudly without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real datasets not found at {SHARED_DATA} (set AUDIT_SHARED_DIR)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared not found at {SHARED} (set AUDIT_SHARED_DIR)")
    return SHARED


@pytest.fixture(scope="session")
def real_cache() -> Path:
    """Cache for the slow tier's real models (pip wheels, unpacked GGUF files), kept
    between runs: $AUDIT_TEST_CACHE, default ~/.cache/bias-audit-tests."""
    default = Path.home() / ".cache" / "bias-audit-tests"
    return Path(os.environ.get("AUDIT_TEST_CACHE", default))


@pytest.fixture(scope="session")
def minilm_dir(shared_dir: Path, real_cache: Path) -> Path:
    """The small trained masked LM, built once by ../shared/models/minilm_mlm/build.py."""
    import subprocess
    import sys

    out = real_cache / "minilm-mlm"
    if not (out / "config.json").exists():
        build = shared_dir / "models" / "minilm_mlm" / "build.py"
        subprocess.run([sys.executable, str(build), str(out)], check=True)
    return out
