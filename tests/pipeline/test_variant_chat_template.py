"""A variant's prompts are wrapped as its base's are: a variant is scored as its base is,
so a base with a chat template (its own or a dataset's) gives its variants the same
template, and the comparison of variant with base is on the same text. Before this, a
variant was prepared from its trained files alone and scored the raw prompts while its
base scored the templated ones."""

from __future__ import annotations

from typing import Any

import pytest

from audit.testing.run import AuditRun
from tests.pipeline.bbq_chat import run_each, write_inputs

VARIANT = {
    "id": "tiny-sd",
    "base": "tiny-gpt2",
    "method": "self_debias",
    "options": {"prefixes": ["a: ", "b: "]},
}


def _spec(model: dict[str, Any], bbq: dict[str, Any]) -> dict[str, Any]:
    return {
        "spec_version": 1,
        "name": "variant-chat",
        "seed": 3,
        "bootstrap": 20,
        "models": [{"id": "tiny-gpt2", "source": {"path": "models/gpt2"}, **model}],
        "datasets": [{"name": "bbq", "path": "BBQ", **bbq}],
        "variants": [VARIANT],
        "lm_quality": {"enabled": False},
        "scorers": {"causal": ["choice_ll"]},
        "measures": ["bbq_accuracy_ambig"],
        "report": {"formats": []},
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AuditRun]:
    """The same base and Self-Debias variant on BBQ: raw, with the model's template, and
    with the dataset's, each on its own cache."""
    root = tmp_path_factory.mktemp("variant-chat")
    write_inputs(root)
    specs = {
        "raw": _spec({}, {}),
        "model": _spec({"chat_template": "template.jinja"}, {}),
        "dataset": _spec({}, {"chat_template": "template.jinja"}),
    }
    return run_each(root, specs, one_cache=False)


def _variant_scores(run: AuditRun) -> list[float]:
    assert run.scores is not None
    table = run.scores[run.scores.model == "tiny-sd"].sort_values(["item_id", "side"])
    return [round(float(v), 6) for v in table.score]


def test_a_variant_gets_its_base_models_template(runs: dict[str, AuditRun]) -> None:
    models = {m.id: m for m in runs["model"].result.models}
    base, variant = models["tiny-gpt2"].chat_template, models["tiny-sd"].chat_template
    assert base is not None and variant is not None and variant.sha256 == base.sha256
    assert _variant_scores(runs["model"]) != _variant_scores(runs["raw"])


def test_a_variant_gets_the_datasets_template(runs: dict[str, AuditRun]) -> None:
    own = runs["dataset"].result.datasets[0].chat_template
    assert own is not None
    base, variant = own.models["tiny-gpt2"], own.models["tiny-sd"]
    assert base is not None and variant is not None and variant.sha256 == base.sha256
    # the same rendered prompts as the model-level template: the same scores
    assert _variant_scores(runs["dataset"]) == _variant_scores(runs["model"])


def test_a_raw_run_keeps_its_variant_raw(runs: dict[str, AuditRun]) -> None:
    models = {m.id: m for m in runs["raw"].result.models}
    assert models["tiny-gpt2"].chat_template is None and models["tiny-sd"].chat_template is None
