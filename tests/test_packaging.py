"""The explicit package list in pyproject.toml covers every package under audit/."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_audit_package_is_listed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "audit").rglob("__init__.py")
    }
    assert found | {"audit.templates"} == listed


def test_templates_ship_as_package_data() -> None:
    from importlib.resources import files

    names = {p.name for p in files("audit.templates").iterdir()}
    assert {"report.html.j2", "report.css"} <= names


def test_v1_card_snapshot_ships_as_package_data() -> None:
    from importlib.resources import files

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "*.json" in config["tool"]["setuptools"]["package-data"]["audit.migrations"]
    assert files("audit.migrations").joinpath("v1_cards.json").is_file()
