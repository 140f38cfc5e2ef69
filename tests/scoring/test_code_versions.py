"""A scorer's code in the score cache's key: raising the scorer's card version, or the
version of the distribution it came from, scores its units again, keeps every other
scorer's scores cached, and `audit plan` says why; a built-in at version 1 keeps the key
(the namespace folder) it always had."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.pipeline.plan_text import describe_plan
from audit.scoring.cache import ScoreCache
from audit.scoring.catalog import SCORERS
from audit.scoring.options import CausalOptions
from audit.spec.loader import load_spec
from audit.testing import run_spec, save_tiny_gpt2, write_tiny_pairs
from tests.plugin_versions import registered_as


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny GPT-2 audited with ll and ppl: the run's folder, its cache filled."""
    folder = tmp_path_factory.mktemp("scored")
    spec = {
        "spec_version": 1,
        "name": "code-versions",
        "seed": 1,
        "bootstrap": 20,
        "models": [{"id": "gpt", "source": {"path": str(save_tiny_gpt2(folder / "gpt"))}}],
        "datasets": [write_tiny_pairs(folder / "pairs.csv")],
        "scorers": {"causal": ["ll", "ppl"]},
        "measures": ["bias_score"],
        "report": {"formats": []},
    }
    run_spec(spec, folder)
    return folder


def _plan_lines(folder: Path) -> dict[str, str]:
    """`audit plan`'s scoring-unit line of each scorer."""
    settings = RunSettings(out_dir=folder / "plan", cache_dir=folder / "cache", device="cpu")
    plan = plan_audit(load_spec(folder / "spec.yaml"), settings, SilentDisplay())
    text = describe_plan(plan, ScoreCache(folder / "cache"))
    lines = [line for line in text.splitlines() if line.startswith("  gpt x tiny_pairs x ")]
    return {line.split(" x ")[2].split(" ")[0]: line for line in lines}


def test_the_run_s_scores_are_all_in_the_cache(scored: Path) -> None:
    lines = _plan_lines(scored)
    assert set(lines) == {"ll", "ppl"}
    assert all(line.endswith("; all in the cache") for line in lines.values())


def test_raising_the_scorer_s_version_scores_its_units_again(scored: Path) -> None:
    with registered_as(SCORERS, "ll", version="2"):
        lines = _plan_lines(scored)
    assert "all in the cache" not in lines["ll"]
    assert lines["ll"].endswith(
        "(12 sentences); to score again: the cached scores were made by scorer 'll' "
        "version 1, now version 2"
    )
    assert lines["ppl"].endswith("; all in the cache")


def test_a_new_distribution_version_scores_its_units_again(scored: Path) -> None:
    with registered_as(SCORERS, "ppl", distribution="my-scorers==0.1"):
        run_spec((scored / "spec.yaml").read_text(), scored)  # scores ppl under 0.1
        assert _plan_lines(scored)["ppl"].endswith("; all in the cache")
    with registered_as(SCORERS, "ppl", distribution="my-scorers==0.2"):
        lines = _plan_lines(scored)
    assert lines["ppl"].endswith(
        "; to score again: the cached scores were made by scorer 'ppl' version 1 from "
        "my-scorers==0.1, now version 1 from my-scorers==0.2"
    )
    assert lines["ll"].endswith("; all in the cache")


def test_a_built_in_at_version_1_keeps_its_namespace(tmp_path: Path) -> None:
    """The manifest (and so the folder) of a built-in scorer at version 1 is the one it
    had before versions entered every key: users' cached scores stay valid."""
    info = SCORERS.entry("ll").info
    namespace = ScoreCache(tmp_path).namespace(
        model_fingerprint="fp",
        scorer=info,
        options=CausalOptions(),
        code=SCORERS.code_identity("ll"),
    )
    manifest = {
        "layout": "1",
        "model_fingerprint": "fp",
        "precision": "cpu/float32",
        "scorer": "ll",
        "scorer_version": "1",
        "options": CausalOptions().cache_identity(),
    }
    key = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()
    assert namespace.folder == tmp_path / "scores" / key[:2] / key
    assert json.loads((namespace.folder / "manifest.json").read_text()) == manifest
    namespace.close()
