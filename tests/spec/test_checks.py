"""Semantic checks with plug-ins whose options models have their own fields."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import Field

from audit.cards import PluginCard
from audit.measures.base import MeasureOptions
from audit.measures.catalog import MEASURES, MeasureEntry
from audit.spec.checks import run_checks
from audit.spec.models import AuditSpec
from audit.spec.problems import Finding
from audit.spec.sections import SpecSections

pytestmark = pytest.mark.usefixtures("plugin_names")


class _WindowOptions(MeasureOptions):
    window: int = Field(5, gt=0)


@pytest.fixture
def windowed_measure() -> Iterator[str]:
    name = "test_windowed"
    MEASURES.register(
        MeasureEntry(
            card=PluginCard(
                kind="measure", name=name, title="Windowed", summary="test only", shape="pairs"
            ),
            options=_WindowOptions,
            target="audit.nowhere:absent",
        )
    )
    yield name
    MEASURES.unregister(name)


def _spec(**parts: object) -> AuditSpec:
    data: dict[str, object] = {
        "spec_version": 1,
        "name": "t",
        "models": [{"id": "a", "source": {"hf": "gpt2"}}],
        "datasets": ["crows_pairs"],
        "measures": ["bias_score"],
    }
    data.update(parts)
    return AuditSpec.model_validate(data)


def _errors(spec: AuditSpec) -> list[Finding]:
    return [f for f in run_checks(SpecSections.of_spec(spec)) if f.severity == "error"]


def test_options_validated_with_the_plugins_model(windowed_measure: str) -> None:
    spec = _spec(measures=[{"name": windowed_measure, "window": -1, "compat": "formula"}])
    findings = run_checks(SpecSections.of_spec(spec))
    assert [(f.loc, f.message, f.got) for f in findings] == [
        (
            ("measures", 0, "window"),
            f"option 'window' of measure '{windowed_measure}' must be greater than 0",
            "-1",
        )
    ]


def test_unknown_option_lists_the_known_ones(windowed_measure: str) -> None:
    spec = _spec(measures=[{"name": windowed_measure, "windw": 3}])
    (finding,) = run_checks(SpecSections.of_spec(spec))
    assert finding.message == (
        f"unknown option 'windw' for measure '{windowed_measure}'; did you mean 'window'?"
    )
    assert finding.expected == "one of compat, window"


def test_dataset_kind_must_match_a_builtin() -> None:
    spec = _spec(datasets=[{"name": "toxigen", "kind": "pairs"}])
    (finding,) = _errors(spec)
    assert finding.loc == ("datasets", 0, "kind")
    assert finding.message == "built-in dataset 'toxigen' holds labelled, not pairs"


def test_user_dataset_options_are_refused() -> None:
    spec = _spec(
        datasets=[
            {
                "name": "mine",
                "kind": "labelled",
                "path": "x.jsonl",
                "columns": {"text": "t", "label": "l"},
                "options": {"part": "a"},
            }
        ]
    )
    (finding,) = _errors(spec)
    assert finding.loc == ("datasets", 0, "options", "part")


def test_gate_scorer_must_be_used() -> None:
    spec = _spec(
        gates=[{"measure": "bias_score", "dataset": "crows_pairs", "scorer": "aul", "max": 60}]
    )
    (finding,) = run_checks(SpecSections.of_spec(spec))
    assert finding.loc == ("gates", 0, "scorer")
    assert finding.expected == "one of cps, ll"


def test_a_gate_on_seat_is_refused_with_what_can_be_gated() -> None:
    spec = _spec(
        measures=["bias_score", "seat"],
        gates=[{"measure": "seat", "dataset": "crows_pairs", "max": 0.2}],
    )
    (finding,) = _errors(spec)
    assert finding.loc == ("gates", 0, "measure")
    assert finding.message.startswith("measure 'seat' cannot be gated: SEAT reports")
    assert "no confidence interval" in finding.message
    assert finding.got == "'seat'" and finding.expected == "one of bias_score"


def test_duplicate_scorer_and_measure() -> None:
    spec = _spec(scorers={"masked": ["cps", "cps"]}, measures=["kls", "kls"])
    messages = [f.message for f in run_checks(SpecSections.of_spec(spec))]
    assert messages == ["scorer 'cps' is listed twice", "measure 'kls' is listed twice"]


def test_no_path_warnings_without_a_base_dir(tmp_path: Path) -> None:
    spec = _spec(models=[{"id": "a", "source": {"gguf": "missing.gguf"}}])
    assert run_checks(SpecSections.of_spec(spec)) == []
    (warning,) = run_checks(SpecSections.of_spec(spec), base_dir=tmp_path)
    assert warning.severity == "warning" and warning.got == str(tmp_path / "missing.gguf")


def test_a_filter_on_a_dataset_without_such_labels() -> None:
    spec = _spec(datasets=[{"name": "toxigen", "bias_types": ["gender"]}])
    (finding,) = _errors(spec)
    assert finding.message == "dataset 'toxigen' has no bias types to filter on"
