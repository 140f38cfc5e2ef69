"""The `bias_audit.plugins` entry points (audit/plugins.py): found, loaded once before any
registry answers, their entries' origins recorded, and every failure a user error that
names the distribution, the entry point and the problem."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit import plugins
from audit.cli import app
from audit.errors import AuditUserError
from audit.measures.catalog import MEASURES
from audit.plugins import GROUP, PluginError, PluginLoader, discover
from tests.plugins import fake_plugins

ORIGIN = "fake-audit-plugin 1.2 (entry point {name})"


def _entry_points(tmp_path: Path, **targets: str) -> list[importlib.metadata.EntryPoint]:
    """Entry points `name = target` of a distribution 'fake-audit-plugin' 1.2 (a real
    dist-info folder, so each entry point knows its distribution)."""
    info = tmp_path / "fake_audit_plugin-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-audit-plugin\nVersion: 1.2\n")
    lines = [f"{name} = {target}" for name, target in targets.items()]
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "\n".join(lines) + "\n")
    dist = importlib.metadata.PathDistribution(info)
    return list(dist.entry_points.select(group=GROUP))


@pytest.fixture
def clean_measures() -> Iterator[None]:
    yield
    for name in ("fake_gap", "fake_asking", "fake_bad_target"):
        MEASURES.unregister(name)


def _install(
    monkeypatch: pytest.MonkeyPatch, entry_points: list[importlib.metadata.EntryPoint]
) -> PluginLoader:
    """A fresh process-wide loader that finds `entry_points` (through a patched
    importlib.metadata.entry_points), so that the next registry question loads them."""
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda group: [ep for ep in entry_points if ep.group == group],
    )
    loader = PluginLoader()
    monkeypatch.setattr(plugins, "LOADER", loader)
    return loader


def test_discover_reads_the_group(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = _entry_points(tmp_path, b="m:f", a="m:g")
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: found + found)
    assert [(ep.name, ep.value) for ep in discover()] == [("a", "m:g"), ("b", "m:f")]


def test_the_first_registry_question_loads_each_plugin_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clean_measures: None
) -> None:
    extra = _entry_points(tmp_path, extra="tests.plugins.fake_plugins:register_extra")
    loader = _install(monkeypatch, extra)
    fake_plugins.CALLS.clear()
    assert loader.loaded == []
    assert "fake_gap" in MEASURES.names()  # the question loads the plug-in first
    assert MEASURES.origin("fake_gap") == ORIGIN.format(name="extra")
    assert MEASURES.origin("bias_score") == "built-in"
    assert not MEASURES.is_built_in("fake_gap")
    MEASURES.entry("fake_gap")
    loader.ensure_loaded()
    assert fake_plugins.CALLS == ["extra"]
    assert [(p.origin, p.entry_point) for p in loader.loaded] == [
        (ORIGIN.format(name="extra"), "extra")
    ]


def test_a_plugin_may_ask_a_registry_while_it_registers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clean_measures: None
) -> None:
    _install(monkeypatch, _entry_points(tmp_path, ask="tests.plugins.fake_plugins:register_asking"))
    assert MEASURES.origin("fake_asking") == ORIGIN.format(name="ask")


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        (
            "tests.plugins.no_such_module:register",
            "cannot import 'tests.plugins.no_such_module:register': ModuleNotFoundError: "
            "No module named 'tests.plugins.no_such_module'",
        ),
        (
            "tests.plugins.fake_plugins:no_such_function",
            "cannot import 'tests.plugins.fake_plugins:no_such_function': AttributeError: "
            "module 'tests.plugins.fake_plugins' has no attribute 'no_such_function'",
        ),
        (
            "tests.plugins.fake_plugins:register_duplicate",
            "measure 'bias_score' is registered twice (first: built-in) (at ",
        ),
        (
            "tests.plugins.fake_plugins:register_bad_target",
            "measure 'fake_bad_target': target 'tests.toy_measure.MEAN_GAP'; expected "
            "'package.module:attribute'",
        ),
        (
            "tests.plugins.fake_plugins:register_wrong_kind",
            "a measure entry must be a MeasureEntry; got ScorerEntry (at ",
        ),
        (
            "tests.plugins.fake_plugins:NOT_CALLABLE",
            "'tests.plugins.fake_plugins:NOT_CALLABLE' is of type int; expected a function",
        ),
    ],
)
def test_a_failing_plugin_is_a_user_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: str, problem: str
) -> None:
    _install(monkeypatch, _entry_points(tmp_path, broken=target))
    with pytest.raises(PluginError) as raised:
        MEASURES.names()
    message = str(raised.value)
    assert message.startswith(f"plug-in {ORIGIN.format(name='broken')}: ")
    assert problem in message
    assert isinstance(raised.value, AuditUserError) and raised.value.exit_code == 2
    # the failure stands: no later question is answered from a half-loaded set
    with pytest.raises(PluginError, match="broken"):
        MEASURES.entry("bias_score")


def test_a_duplicate_names_the_file_and_line_of_the_registration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _install(
        monkeypatch, _entry_points(tmp_path, dup="tests.plugins.fake_plugins:register_duplicate")
    )
    with pytest.raises(PluginError, match=r"fake_plugins\.py:\d+\)$"):
        MEASURES.names()


def test_the_cli_reports_a_failing_plugin_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _install(
        monkeypatch, _entry_points(tmp_path, dup="tests.plugins.fake_plugins:register_duplicate")
    )
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 2
    assert "error: plug-in fake-audit-plugin 1.2 (entry point dup): measure 'bias_score'" in (
        result.output
    )
    assert "Traceback" not in result.output


def test_a_plugin_whose_implementation_cannot_be_imported_is_named_on_first_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from audit.measures.catalog import register_measure
    from audit.plugins import _registering  # the origin a loading entry point sets

    with _registering(ORIGIN.format(name="gone")):
        register_measure(
            **{**MEASURES.entry("bias_score").card.model_dump(include=_CARD_TEXTS)},
            name="fake_gone",
            shape="pairs",
            roles=("intrinsic",),
            ideal_value=0.0,
            options=MEASURES.entry("bias_score").options,
            target="tests.plugins.gone_module:MEASURE",
        )
    try:
        with pytest.raises(PluginError) as raised:
            MEASURES.load("fake_gone")
        assert str(raised.value) == (
            "plug-in fake-audit-plugin 1.2 (entry point gone): measure 'fake_gone': cannot "
            "import 'tests.plugins.gone_module': ModuleNotFoundError: No module named "
            "'tests.plugins.gone_module'"
        )
    finally:
        MEASURES.unregister("fake_gone")


_CARD_TEXTS = {"title", "what", "inputs", "direction", "ideal", "citation", "limitations"}


def test_unreadable_entry_point_metadata_is_a_user_error() -> None:
    def broken() -> list[importlib.metadata.EntryPoint]:
        raise ValueError("bad entry_points.txt line")

    loader = PluginLoader(broken)
    with pytest.raises(PluginError, match=r"cannot read the 'bias_audit\.plugins' entry points"):
        loader.ensure_loaded()
    with pytest.raises(PluginError, match=r"bad entry_points\.txt line"):
        loader.ensure_loaded()
