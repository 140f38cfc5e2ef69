"""Fixtures: tiny saved models (built once per session) and a private cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.models.tiny import TINY_BUILDERS


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> directory of each tiny model in TINY_BUILDERS (bert, albert, roberta, ...)."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {name: builder(root / name) for name, (_, builder) in TINY_BUILDERS.items()}


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """An empty audit cache folder for one test."""
    path = tmp_path / "cache"
    path.mkdir()
    return path
