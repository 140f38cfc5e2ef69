"""The specs in tests/specs/good validate; the minimal one fills in every default."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import ValidationError

from audit.spec.loader import load_spec, validate_spec_file
from audit.spec.models import HubSource, PathSource, PipSource

GOOD = Path(__file__).resolve().parents[1] / "specs" / "good"
GOOD_SPECS = sorted(GOOD.glob("*.yaml"))


def test_there_are_good_specs() -> None:
    assert {p.name for p in GOOD_SPECS} >= {"minimal.yaml", "full.yaml"}


@pytest.mark.usefixtures("plugin_names")
@pytest.mark.parametrize("path", GOOD_SPECS, ids=[p.stem for p in GOOD_SPECS])
def test_good_spec_has_no_error(path: Path) -> None:
    errors = [p.format() for p in validate_spec_file(path) if p.is_error]
    assert errors == []
    loaded = load_spec(path)
    assert loaded.path == path
    assert loaded.text == path.read_text(encoding="utf-8")
    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert loaded.raw["spec_version"] == 1 and loaded.raw["name"] == loaded.spec.name


@pytest.mark.usefixtures("plugin_names")
def test_minimal_spec_gets_defaults() -> None:
    loaded = load_spec(GOOD / "minimal.yaml")
    spec = loaded.spec
    assert len(loaded.text.splitlines()) <= 5
    assert spec.seed == 0 and spec.alpha == 0.05 and spec.bootstrap == 1000
    assert [d.name for d in spec.datasets] == ["crows_pairs"]
    assert [s.name for s in spec.scorers.masked] == ["cps"]
    assert [s.name for s in spec.scorers.causal] == ["ll"]
    assert [m.name for m in spec.measures] == ["bias_score", "safety_score"]
    assert spec.robustness is None and spec.gates == [] and spec.variants == []
    assert spec.correlations.correction == "holm"
    assert spec.correlations.failed_dev_check == "exclude"
    assert spec.report.formats == ["html", "pdf"]
    assert loaded.warnings == ()  # the default measures are not the user's doing


@pytest.mark.usefixtures("plugin_names")
def test_full_spec_reads_every_part() -> None:
    loaded = load_spec(GOOD / "full.yaml")
    spec = loaded.spec
    assert [m.id for m in spec.models] == ["smollm2-135m", "bert-base", "minilm-mlm"]
    assert isinstance(spec.models[0].source, PipSource)
    assert isinstance(spec.models[1].source, HubSource)
    assert isinstance(spec.models[2].source, PathSource)
    stereoset = spec.datasets[1]
    assert stereoset.name == "stereoset" and stereoset.bias_types == ["gender", "race"]
    mine = spec.datasets[3]
    assert mine.kind == "pairs" and mine.columns is not None
    assert mine.columns.anti_stereotype == "s2"
    assert [s.name for s in spec.scorers.masked] == ["cps", "aul"]
    assert spec.robustness is not None and spec.robustness.rates == [0.3, 0.5, 0.8]
    assert (spec.correlations.correction, spec.correlations.failed_dev_check) == ("bh", "keep")
    assert spec.gates[0].within == (45.0, 55.0)
    # the local paths do not exist here: warnings, not errors
    assert all("no such file or folder" in w.message for w in loaded.warnings)
    assert loaded.resolve_path("data/pairs.csv") == GOOD.resolve() / "data" / "pairs.csv"


@pytest.mark.usefixtures("plugin_names")
def test_loaded_spec_is_frozen() -> None:
    spec = load_spec(GOOD / "minimal.yaml").spec
    with pytest.raises(ValidationError):
        spec.seed = 3
