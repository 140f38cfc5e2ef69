"""The multiple-choice scorers against sums computed by hand with one forward pass."""

from __future__ import annotations

import pytest
import torch

from audit.scoring.base import ScoringCall, ScoringInputError
from audit.scoring.catalog import SCORERS
from audit.scoring.choice import common_prefix
from audit.scoring.choice_prompt import choice_prompt
from tests.scoring.tiny_models import CAUSAL_BUILDERS, loaded, tiny_bert, tiny_gpt2

PROMPT = choice_prompt("The nurse and the doctor met.", "Who was late?")
ANSWERS = ("The nurse", "The doctor", "Cannot be determined")
QUESTIONS = [(PROMPT, ANSWERS), (choice_prompt("She is a cook.", "Who cooks?"), ("She", "He"))]


def _causal_by_hand(tiny, prompt: str, answer: str) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    tok = tiny.tokenizer
    bos = tok.bos_token_id

    def ids_of(text: str) -> list[int]:
        ids = tok(text)["input_ids"]
        return ids if ids and ids[0] == bos else [bos, *ids]

    full, start = (
        ids_of(f"{prompt} {answer}"),
        common_prefix(ids_of(prompt), ids_of(f"{prompt} {answer}")),
    )
    with torch.no_grad():
        logp = torch.log_softmax(tiny.model(torch.tensor([full])).logits[0].double(), dim=-1)
    return sum(float(logp[t - 1, full[t]]) for t in range(start, len(full))), len(full) - start


@pytest.mark.parametrize("name", sorted(CAUSAL_BUILDERS))
def test_choice_ll_is_the_answers_log_likelihood_given_the_prompt(name: str) -> None:
    tiny = CAUSAL_BUILDERS[name]()
    scores = SCORERS.load("choice_ll").score_choices(
        loaded(tiny), QUESTIONS, ScoringCall(SCORERS.options_of("choice_ll", {}), lambda n: None)
    )
    assert [len(s) for s in scores] == [3, 2]
    for (prompt, answers), got in zip(QUESTIONS, scores, strict=True):
        for answer, score in zip(answers, got, strict=True):
            value, n = _causal_by_hand(tiny, prompt, answer)
            assert score.n_tokens == n >= 1
            assert score.score == pytest.approx(value, abs=1e-4)


def test_choice_pll_masks_each_answer_token_in_the_full_text() -> None:
    tiny = tiny_bert()
    tok = tiny.tokenizer
    [scores] = SCORERS.load("choice_pll").score_choices(
        loaded(tiny),
        QUESTIONS[:1],
        ScoringCall(SCORERS.options_of("choice_pll", {}), lambda n: None),
    )
    for answer, score in zip(ANSWERS, scores, strict=True):
        full = tok(f"{PROMPT} {answer}")["input_ids"]
        start = common_prefix(tok(PROMPT)["input_ids"], full)
        positions = range(start, len(full) - 1)  # the answer's tokens, [SEP] left out
        total = 0.0
        for i in positions:
            masked = list(full)
            masked[i] = tok.mask_token_id
            with torch.no_grad():
                logits = tiny.model(torch.tensor([masked])).logits[0, i].double()
            total += float(torch.log_softmax(logits, dim=-1)[full[i]])
        assert score.n_tokens == len(positions) >= 1
        assert score.score == pytest.approx(total, abs=1e-4)


def test_each_scorer_refuses_the_other_model_type_and_other_shapes() -> None:
    options = SCORERS.options_of("choice_ll", {})
    with pytest.raises(ScoringInputError, match="needs a causal LM"):
        SCORERS.load("choice_ll").score_choices(
            loaded(tiny_bert()), QUESTIONS, ScoringCall(options, lambda n: None)
        )
    with pytest.raises(ScoringInputError, match="multiple-choice"):
        SCORERS.load("choice_ll").score_sentences(
            loaded(tiny_gpt2()), ["A sentence."], ScoringCall(options, lambda n: None)
        )
    with pytest.raises(ScoringInputError, match="choice_ll"):
        SCORERS.load("ll").score_choices(
            loaded(tiny_gpt2()), QUESTIONS, ScoringCall(options, lambda n: None)
        )
