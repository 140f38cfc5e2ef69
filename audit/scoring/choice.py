"""Multiple-choice scorers: each answer's log-likelihood given the question's prompt.

`choice_ll` (causal LMs): log P(answer | prompt) = sum over the answer's tokens of
log P(w_t | w_<t), on the tokens of `prompt + " " + answer` (BOS prepended when the
tokenizer adds none, as `ll` does). `choice_pll` (masked LMs): the pseudo-log-likelihood
of the answer's tokens in the full text, sum of log P(w_i | text with i masked) over
them (Salazar et al. 2020, restricted to the answer). The answer's tokens are those
after the longest common prefix of the token ids of the prompt and of the full text, so
a token that straddles the boundary counts as the answer's. Each score comes with its
number of answer tokens; a length-normalised prediction divides by it
(docs/measures/methods/bbq.md). The prompt is `audit.scoring.choice_prompt.choice_prompt`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from audit.models.loaded import LoadedModel
from audit.scoring.base import (
    ChoiceScorer,
    Question,
    ScoringCall,
    ScoringInputError,
    SentenceScore,
)
from audit.scoring.causal import causal_token_ids, summed_log_likelihoods
from audit.scoring.choice_prompt import ANSWER_SEPARATOR
from audit.scoring.masked.inputs import encode_texts, mask_token_id, max_sequence_length
from audit.scoring.masked.scorers import single_token_sums
from audit.scoring.options import MaskedOptions

T = TypeVar("T")


def _flatten(questions: Sequence[Question]) -> tuple[list[str], list[str], list[int]]:
    """(prompt of each answer, full text of each answer, answers per question)."""
    prompts: list[str] = []
    texts: list[str] = []
    counts: list[int] = []
    for prompt, answers in questions:
        counts.append(len(answers))
        for answer in answers:
            if not answer.strip():
                raise ScoringInputError(f"an answer of the question {prompt[:80]!r} is empty")
            prompts.append(prompt)
            texts.append(prompt + ANSWER_SEPARATOR + answer)
    return prompts, texts, counts


def regroup(scores: Sequence[T], counts: Sequence[int]) -> list[tuple[T, ...]]:
    """Flat per-answer scores back into one tuple per question (`counts` answers each)."""
    out: list[tuple[T, ...]] = []
    start = 0
    for count in counts:
        out.append(tuple(scores[start : start + count]))
        start += count
    return out


def common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """Length of the longest common prefix of two sequences (token ids or texts)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _answer_start(prompt_ids: Sequence[int], full_ids: Sequence[int], text: str) -> int:
    start = common_prefix(prompt_ids, full_ids)
    if start >= len(full_ids):
        raise ScoringInputError(f"the answer of {text[-80:]!r} has no tokens of its own")
    return start


@dataclass(frozen=True)
class CausalChoice(ChoiceScorer):
    """`choice_ll`: sum of log P(answer token | prompt, earlier answer tokens)."""

    name: str

    def score_choices(
        self, model: LoadedModel, questions: Sequence[Question], call: ScoringCall
    ) -> list[tuple[SentenceScore, ...]]:
        if model.model_type != "causal":
            raise ScoringInputError(
                f"scorer '{self.name}' needs a causal LM; '{model.model_id}' is a "
                f"{model.model_type} LM (use choice_pll)"
            )
        prompts, texts, counts = _flatten(questions)
        if not texts:
            return [() for _ in questions]
        prompt_ids, _ = causal_token_ids(model, prompts, reference=False)
        full_ids, _ = causal_token_ids(model, texts, reference=False)
        starts = [
            max(1, _answer_start(p, f, t))
            for p, f, t in zip(prompt_ids, full_ids, texts, strict=True)
        ]
        sums = summed_log_likelihoods(
            model, full_ids, starts, call.progress, tag="choice-causal", starts_in_key=True
        )
        scores = [
            SentenceScore(float(total), len(ids) - start)
            for total, ids, start in zip(sums, full_ids, starts, strict=True)
        ]
        return regroup(scores, counts)


@dataclass(frozen=True)
class MaskedChoice(ChoiceScorer):
    """`choice_pll`: sum over the answer's tokens of log P(w_i | full text, i masked)."""

    name: str

    def score_choices(
        self, model: LoadedModel, questions: Sequence[Question], call: ScoringCall
    ) -> list[tuple[SentenceScore, ...]]:
        options = call.options
        if not isinstance(options, MaskedOptions):
            raise TypeError(f"scorer '{self.name}' needs MaskedOptions")
        if model.model_type != "masked":
            raise ScoringInputError(
                f"scorer '{self.name}' needs a masked LM; '{model.model_id}' is a "
                f"{model.model_type} LM (use choice_ll)"
            )
        prompts, texts, counts = _flatten(questions)
        if not texts:
            return [() for _ in questions]
        mask_id = mask_token_id(model.tokenizer, model.model_id)
        limit = max_sequence_length(model.model, model.tokenizer)
        full = encode_texts(model.tokenizer, texts, max_length=limit, model_id=model.model_id)
        prompt = encode_texts(model.tokenizer, prompts, max_length=limit, model_id=model.model_id)
        positions = []
        for p, f, text in zip(prompt, full, texts, strict=True):
            start = _answer_start(p.ids, f.ids, text)
            scored = [i for i in f.scored_positions if i >= start]
            if not scored:
                raise ScoringInputError(f"the answer of {text[-80:]!r} has no tokens of its own")
            positions.append(scored)
        sums = single_token_sums(
            model, full, positions, mask_id=mask_id, opts=options, progress=call.progress
        )
        scores = [
            SentenceScore(float(total), len(pos))
            for total, pos in zip(sums, positions, strict=True)
        ]
        return regroup(scores, counts)


CHOICE_LL = CausalChoice("choice_ll")
CHOICE_PLL = MaskedChoice("choice_pll")
