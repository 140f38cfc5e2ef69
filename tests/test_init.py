"""`audit.__version__`: the installed package's version (results.json's `tool_version`)."""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest

import audit


def test_the_version_is_the_installed_packages() -> None:
    assert audit.__version__ == importlib.metadata.version("bias-audit")


def test_a_source_tree_never_installed_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    installed = audit.__version__
    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    try:
        assert importlib.reload(audit).__version__ == "0+unknown"
    finally:
        monkeypatch.undo()
        importlib.reload(audit)
    assert audit.__version__ == installed
