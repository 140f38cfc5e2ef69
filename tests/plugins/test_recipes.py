"""Issue 18, item 6: every recipe of docs/plugins.md runs as written.

The code blocks of each recipe are read out of the page and written as files of a
package `my_bias_plugins`; the page's `pyproject.toml` block becomes the entry point of
a distribution holding it, loaded the way an installed plug-in is; then the recipe's
own test functions run. The page and this test cannot drift apart."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.data.catalog import DATASETS, TASK_DATASETS
from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.measures.catalog import MEASURES
from audit.plugins import GROUP, load_entry_point
from audit.registry import Registry
from audit.scoring.catalog import SCORERS
from audit.variants.catalog import VARIANT_METHODS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
PACKAGE = "my_bias_plugins"
ORIGIN = "my-bias-plugins 0.1.0 (entry point my_bias_plugins)"
REGISTRIES: tuple[Registry[Any, Any], ...] = (
    DATASETS,
    TASK_DATASETS,
    SCORERS,
    MEASURES,
    VARIANT_METHODS,
    EXTRINSIC_TASKS,
)
_FILE = re.compile(r"<!-- file: (?P<path>\S+) -->\n```\w+\n(?P<code>.*?)\n```", re.DOTALL)
_RECIPE = re.compile(r"<!-- recipe: (?P<kind>[\w ]+) -->")


def _page_parts() -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The files shown before the first recipe, and each recipe's files (path -> code)."""
    text = PAGE.read_text(encoding="utf-8")
    pieces = _RECIPE.split(text)
    shared = {m["path"]: m["code"] for m in _FILE.finditer(pieces[0])}
    recipes = {
        kind: {m["path"]: m["code"] for m in _FILE.finditer(body)}
        for kind, body in zip(pieces[1::2], pieces[2::2], strict=True)
    }
    return shared, recipes


SHARED, RECIPES = _page_parts()
#: What each recipe registers (registry kinds, in registration order).
KIND_OF = {
    "measure": ["measure"],
    "dataset": ["dataset"],
    "scorer": ["scorer"],
    "variant method": ["variant_method"],
    "extrinsic task": ["dataset", "extrinsic_task"],
    "extrinsic head kind": ["dataset", "extrinsic_task", "head_kind"],
}


def test_the_page_has_a_recipe_for_each_kind_it_promises() -> None:
    assert set(RECIPES) == set(KIND_OF)
    assert set(SHARED) == {"pyproject.toml"}


@pytest.mark.parametrize("kind", sorted(RECIPES))
def test_a_recipe_needs_at_most_three_files(kind: str) -> None:
    files = RECIPES[kind]
    assert len(files) <= 3, sorted(files)
    assert f"{PACKAGE}/__init__.py" in files  # the registration
    assert any(path.startswith("tests/test_") for path in files)  # the test


def _entry_point(root: Path) -> importlib.metadata.EntryPoint:
    """The page's entry point, as the metadata of a distribution 'my-bias-plugins' 0.1.0
    in `root` declares it (not on sys.path: the test loads it, not the process's loader)."""
    pyproject = tomllib.loads(SHARED["pyproject.toml"])
    declared = pyproject["project"]["entry-points"][GROUP]
    info = root / "my_bias_plugins-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-bias-plugins\nVersion: 0.1.0\n")
    lines = [f"{name} = {value}" for name, value in declared.items()]
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "\n".join(lines) + "\n")
    [entry_point] = importlib.metadata.PathDistribution(info).entry_points.select(group=GROUP)
    return entry_point


def _forget_package() -> None:
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]


@pytest.fixture
def recipe_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    _forget_package()
    yield root
    _forget_package()
    for registry in REGISTRIES:
        for name in registry.names():
            if registry.origin(name) == ORIGIN:
                registry.unregister(name)
    for name in HEAD_KINDS.names():
        if HEAD_KINDS.origin(name) == ORIGIN:
            HEAD_KINDS.unregister(name)


@pytest.fixture(scope="module")
def masked_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a tiny BERT, as a spec's model `source: {path: ...}` names it."""
    from tests.models.tiny import save_tiny_bert

    return save_tiny_bert(tmp_path_factory.mktemp("masked_model") / "bert")


@pytest.mark.parametrize("kind", sorted(RECIPES))
def test_the_recipe_registers_and_its_test_passes(
    kind: str, recipe_root: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    tests: list[Path] = []
    for path, code in RECIPES[kind].items():
        target = recipe_root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code + "\n", encoding="utf-8")
        if path.startswith("tests/"):
            tests.append(target)

    loaded = load_entry_point(_entry_point(tmp_path))
    assert loaded.origin == ORIGIN
    registered = [
        (registry.kind, name)
        for registry in REGISTRIES
        for name in registry.names()
        if registry.origin(name) == ORIGIN
    ]
    registered += [("head_kind", n) for n in HEAD_KINDS.names() if HEAD_KINDS.origin(n) == ORIGIN]
    assert sorted(k for k, _ in registered) == sorted(KIND_OF[kind])

    for test_file in tests:
        spec = importlib.util.spec_from_file_location(f"recipe_{kind}_{test_file.stem}", test_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        functions = [f for n, f in vars(module).items() if n.startswith("test_")]
        assert functions
        for function in functions:
            arguments = {
                name: tmp_path if name == "tmp_path" else request.getfixturevalue(name)
                for name in inspect.signature(function).parameters
            }
            function(**arguments)
