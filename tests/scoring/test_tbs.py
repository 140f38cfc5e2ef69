"""Template log-probability bias score (Kurita et al. 2019)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from audit.errors import DataError
from audit.scoring.base import ScoringInputError
from audit.scoring.masked.tbs import (
    TemplateProbe,
    fill_template,
    load_bolukbasi_professions,
    probes_from_options,
    score_templates,
    target_probabilities,
)
from audit.scoring.options import TBSOptions
from tests.scoring import reference
from tests.scoring.tiny_models import loaded, tiny_albert, tiny_bert, tiny_distilbert, tiny_roberta

ATTRIBUTES = ("nurse", "engineer", "accountant", "secretary", "xylophonist")


def test_fill_template_places_slots_and_articles() -> None:
    assert fill_template("[TARGET] is a/an [ATTRIBUTE].", "he", "engineer") == (
        "he is an engineer.", 0, 9,
    )  # fmt: skip
    assert fill_template("[TARGET] is a/an [ATTRIBUTE].", "she", "nurse") == (
        "she is a nurse.", 0, 9,
    )  # fmt: skip
    text, target_at, attribute_at = fill_template("The [ATTRIBUTE] said [TARGET] left.", "he",
                                                  "baker")  # fmt: skip
    assert text == "The baker said he left."
    assert text[target_at : target_at + 2] == "he" and text[attribute_at:].startswith("baker")


@pytest.mark.parametrize("builder", [tiny_bert, tiny_distilbert])
def test_equals_reference(builder: object) -> None:
    """p_tgt and p_prior against one-forward-per-copy full-logit computation."""
    tiny = builder()  # type: ignore[operator]
    tok = tiny.tokenizer
    scores = score_templates(
        loaded(tiny), [TemplateProbe("[TARGET] is a/an [ATTRIBUTE].", ("he", "she"), ATTRIBUTES)],
        options=TBSOptions(batch_tokens=50), progress=lambda _n: None,
    )  # fmt: skip
    assert len(scores) == 2 * len(ATTRIBUTES)
    for score in scores:
        article = "an" if score.attribute[0] in "aeiou" else "a"
        n_attribute = len(tok.tokenize(score.attribute))
        masked = f"{tok.mask_token} is {article} {score.attribute}."
        prior = f"{tok.mask_token} is {article} " + " ".join([tok.mask_token] * n_attribute) + "."
        want_target = reference.tbs_log_probs(tiny.model, tok, masked, score.target)
        want_prior = reference.tbs_log_probs(tiny.model, tok, prior, score.target)
        assert score.log_p_target == pytest.approx(want_target, abs=1e-4)
        assert score.log_p_prior == pytest.approx(want_prior, abs=1e-4)
        assert score.score == pytest.approx(want_target - want_prior, abs=2e-4)
    assert len({round(s.score, 3) for s in scores}) > len(scores) // 2  # informative


def test_byte_bpe_targets_and_probabilities() -> None:
    """RoBERTa-style BPE: 'He'/'She' are single tokens at the start; P() = exp(log p)."""
    model = loaded(tiny_roberta())
    table = target_probabilities(model, ["nurse", "engineer"], targets=("He", "She"))
    probe = TemplateProbe("[TARGET] is a/an [ATTRIBUTE].", ("He", "She"), ("nurse", "engineer"))
    scores = score_templates(model, [probe], options=TBSOptions(), progress=lambda _n: None)
    assert [set(row) for row in table] == [{"He", "She"}] * 2
    flat = [table[i // 2][s.target] for i, s in enumerate(scores)]
    for p, score in zip(flat, scores, strict=True):
        assert p == pytest.approx(math.exp(score.log_p_target), rel=1e-12)
        assert 0 < p < 1


def test_multi_token_target_is_refused() -> None:
    with pytest.raises(ScoringInputError, match=r"target word 'she' .* not one token"):
        target_probabilities(loaded(tiny_albert()), ["nurse"])


def test_progress_counts_template_attribute_combinations() -> None:
    calls: list[int] = []
    options = TBSOptions(
        templates=("[TARGET] is a/an [ATTRIBUTE].", "[TARGET] works as a/an [ATTRIBUTE].")
    )
    probes = probes_from_options(options, ATTRIBUTES[:3])
    scores = score_templates(loaded(tiny_bert()), probes, options=options,
                                        progress=calls.append)  # fmt: skip
    assert sum(calls) == 6
    assert len(scores) == 12


def test_bolukbasi_professions(shared_data: Path) -> None:
    words = load_bolukbasi_professions(shared_data / "wordlists" / "professions.json")
    assert len(words) == 320
    assert "adjunct professor" in words and "accountant" in words
    assert not any("_" in w for w in words)


def test_bad_professions_file(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps([["nurse", 0, 0], [3, 0, 0]]))
    with pytest.raises(DataError, match=r"p.json: row 1 is \[3, 0, 0\]"):
        load_bolukbasi_professions(bad)
    bad.write_text("{")
    with pytest.raises(DataError, match="cannot read"):
        load_bolukbasi_professions(bad)
