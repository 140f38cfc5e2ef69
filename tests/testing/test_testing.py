"""audit.testing, as a plug-in's tests use it from the installed package: the tiny models
load and run, the probe models know the corpus's words, and `run_spec` runs an audit."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import audit.testing as testing
from audit.testing import (
    OCCUPATIONS,
    TINY_PAIRS,
    load,
    loaded_model,
    run_spec,
    save_probe_bert,
    save_probe_llama,
    save_tiny_gpt2,
    write_tiny_pairs,
)


def test_every_public_name_is_exported() -> None:
    assert sorted(testing.__all__) == sorted(n for n in testing.__all__ if hasattr(testing, n))
    assert {"run_spec", "save_tiny_bert", "save_tiny_gpt2", "TINY_CORPUS"} <= set(testing.__all__)


@pytest.mark.parametrize("name", sorted(testing.TINY_BUILDERS))
def test_a_tiny_model_is_the_same_for_the_same_seed(name: str, tmp_path: Path) -> None:
    model_type, build = testing.TINY_BUILDERS[name]
    first, _ = load(build(tmp_path / "a"), model_type)
    second, _ = load(build(tmp_path / "b"), model_type)
    other, _ = load(build(tmp_path / "c", seed=1), model_type)
    weights = lambda m: torch.cat([p.flatten() for p in m.parameters()])  # noqa: E731
    assert torch.equal(weights(first), weights(second))
    assert not torch.equal(weights(first), weights(other))


@pytest.mark.parametrize(
    ("build", "model_type"), [(save_probe_bert, "masked"), (save_probe_llama, "causal")]
)
def test_the_probe_models_know_the_probe_words_as_one_token(
    build: object, model_type: str, tmp_path: Path
) -> None:
    _, tokenizer = load(build(tmp_path / "m"), model_type)  # type: ignore[operator]
    space = " " if model_type == "causal" else ""  # inside a sentence, after a space
    for word in OCCUPATIONS:
        assert len(tokenizer.tokenize(f"{space}{word}")) == 1, word
    for pronoun in ("he", "she", "He", "She"):  # where the probe's sentences start
        assert len(tokenizer.tokenize(pronoun)) == 1, pronoun


def test_loaded_model_scores_on_the_cpu(tmp_path: Path) -> None:
    lm = loaded_model(save_tiny_gpt2(tmp_path / "gpt2"), "causal")
    assert lm.model_type == "causal" and lm.device == torch.device("cpu")
    ids = lm.tokenizer("He is a nurse.", return_tensors="pt")
    assert lm.model(**ids).logits.shape[-1] == len(lm.tokenizer)


def test_run_spec_runs_a_spec_and_reads_its_results_back(tmp_path: Path) -> None:
    model = save_tiny_gpt2(tmp_path / "gpt2")
    dataset = write_tiny_pairs(tmp_path / "pairs.csv")
    spec = {
        "spec_version": 1,
        "name": "tiny",
        "seed": 0,
        "bootstrap": 20,
        "models": [{"id": "tiny-gpt2", "source": {"path": str(model)}}],
        "datasets": [dataset],
        "scorers": {"causal": ["ll"]},
        "measures": ["bias_score"],
        "report": {"formats": []},
    }
    run = run_spec(spec, tmp_path / "run")
    assert (run.folder / "out" / "results.json").is_file()
    [measurement] = [m for m in run.result.measurements if m.group == "all"]
    assert measurement.model == "tiny-gpt2" and measurement.n == len(TINY_PAIRS)
    assert run.scores is not None and len(run.scores) == 2 * len(TINY_PAIRS)
    again = run_spec(spec, tmp_path / "run")  # YAML text would do as well; the cache answers
    assert [m.value for m in again.result.measurements] == [
        m.value for m in run.result.measurements
    ]
