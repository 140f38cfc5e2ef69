"""What a scorer is: static facts the planner, cache and measures read without torch, and
the scoring calls.

Every score is a log-likelihood-like number: higher means the model finds the sentence
more likely (`higher_is_likelier`), except perplexities, which say so in their info.

A scorer takes one of four inputs, its shape (`ScorerInfo.unit`, also the card's
`shape`): single sentences, sentence pairs (it aligns their tokens), template slots
(an attribute and two target words), or multiple-choice questions (a prompt and its
answers, each answer scored given the prompt). Every scorer object answers all four calls; the
ones outside its shape raise a `ScoringInputError` that says what to use instead (one
base, `ShapedScorer`, does this for every shape). The runner picks the call from the
registered shape (`audit.scoring.inputs`), never from the object's type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from audit.errors import AuditUserError

if TYPE_CHECKING:
    from audit.data.items import TemplateSlots
    from audit.models.loaded import LoadedModel

ModelType = Literal["masked", "causal"]
#: sentence: scores one sentence at a time; pair: needs both sentences (token alignment);
#: template: scores an item's template slots (attribute, two targets); choice: scores
#: each answer of a multiple-choice question given its prompt.
ScorerShape = Literal["sentence", "pair", "template", "choice"]
ProgressCallback = Callable[[int], None]  # called with the number of sentences just finished


class ScorerOptions(BaseModel):
    """Options every scorer accepts. Subclasses add their own; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Options that change how fast scores are computed, never their values; they are
    #: left out of cache keys.
    RUNTIME_FIELDS: ClassVar[frozenset[str]] = frozenset()

    compat: Literal["formula", "reference"] = "formula"

    def cache_identity(self) -> dict[str, object]:
        """The options that can change a score, as JSON-ready data."""
        return self.model_dump(mode="json", exclude=set(self.RUNTIME_FIELDS))


@dataclass(frozen=True)
class ScoringCall:
    """What a scoring call is given besides the model and its inputs: the scorer's
    options (validated against its options model) and the progress callback, which it
    calls with the number of sentences (or answers) each time some are finished."""

    options: ScorerOptions
    progress: ProgressCallback


@dataclass(frozen=True)
class ScorerInfo:
    """Static facts about a scorer, used by the planner, the cache and the measures."""

    name: str
    model_types: frozenset[str]
    unit: ScorerShape  # the scorer's input (see `ScorerShape`)
    higher_is_likelier: bool
    aggregation: Literal["sum", "mean"]  # score is a sum or a mean over scored tokens
    version: str  # bump when the arithmetic changes: it is part of every cache key
    summary: str
    #: Computable from the log-probabilities a serving endpoint returns for given text
    #: (no hidden states, no full next-token distributions, no masking): a served model
    #: (`ServedScoring`) can run it.
    served: bool = False


@dataclass(frozen=True)
class SentenceScore:
    """One sentence's score (float64) and how many tokens were scored."""

    score: float
    n_tokens: int


def perplexity_of(score: SentenceScore) -> SentenceScore:
    """The perplexity exp(-LL/T) of a log-likelihood over T tokens (NaN for T = 0)."""
    value = math.exp(-score.score / score.n_tokens) if score.n_tokens else math.nan
    return SentenceScore(value, score.n_tokens)


ScorePair = tuple[SentenceScore, SentenceScore]
#: A multiple-choice question as a choice scorer takes it: the prompt and the answers.
Question = tuple[str, tuple[str, ...]]


class Scorer(Protocol):
    """The scoring calls. A scorer implements the one of its shape; the others raise."""

    @property
    def name(self) -> str:
        """The registered name (error messages name the scorer)."""
        ...

    def score_sentences(
        self, model: LoadedModel, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]: ...

    def score_pairs(
        self, model: LoadedModel, pairs: Sequence[tuple[str, str]], call: ScoringCall
    ) -> list[ScorePair]: ...

    def score_slots(
        self, model: LoadedModel, slots: Sequence[TemplateSlots], call: ScoringCall
    ) -> list[ScorePair]: ...

    def score_choices(
        self, model: LoadedModel, questions: Sequence[Question], call: ScoringCall
    ) -> list[tuple[SentenceScore, ...]]: ...


@runtime_checkable
class ServedScoring(Protocol):
    """A model this process does not hold (a model behind a serving endpoint), which
    scores the entries of the scorers whose info says `served` itself, from the
    log-probabilities the server returns; the runner hands it the scorer's name, shape
    and inputs instead of calling the scorer with weights."""

    @property
    def model_id(self) -> str: ...

    @property
    def entries_per_commit(self) -> int:
        """Entries scored between two cache commits. Each request stands alone (no
        packing into batches), so small chunks cost nothing in exactness, and a run
        stopped by a failing server loses at most one of them."""
        ...

    def close(self) -> None:
        """Release what scoring held (a server started for the model)."""
        ...

    def traffic(self, seconds: float) -> str:
        """What the last `seconds` of scoring sent: requests, retries and their rate."""
        ...

    def score(
        self, scorer: str, shape: ScorerShape, inputs: Sequence[object], call: ScoringCall
    ) -> Sequence[object]:
        """What the scorer's call of `shape` returns for `inputs` (`score_sentences`:
        SentenceScores, `score_pairs`: pairs of them, `score_choices`: tuples)."""
        ...


class ScoringInputError(AuditUserError):
    """Input a scorer cannot score (wrong model type, empty or too long sentence, a pair
    scorer given single sentences, no [MASK] token...)."""


def interleave_pairs(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """[st0, at0, st1, at1, ...]: both sides of every pair, in order."""
    return [text for pair in pairs for text in pair]


def regroup_pairs(scores: Sequence[SentenceScore]) -> list[ScorePair]:
    """The inverse of `interleave_pairs` for the scores."""
    return [(scores[i], scores[i + 1]) for i in range(0, len(scores), 2)]


class ShapedScorer:
    """The base of every built-in scorer: one class for the three input shapes.

    A subclass sets `shape` (its `ScorerInfo.unit`) and implements that shape's call:
    `score_sentences` (sentence), `score_pairs` (pair) or `score_slots` (template). The
    other calls raise a `ScoringInputError` that says what to use instead, except that a
    sentence scorer also scores pairs, each side on its own (so progress counts two
    sentences per pair).
    """

    name: str
    shape: ClassVar[ScorerShape]

    def score_sentences(
        self, model: LoadedModel, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]:
        raise self._not_of_shape("sentence")

    def score_pairs(
        self, model: LoadedModel, pairs: Sequence[tuple[str, str]], call: ScoringCall
    ) -> list[ScorePair]:
        if self.shape != "sentence":
            raise self._not_of_shape("pair")
        texts = interleave_pairs(pairs)
        scores = self.score_sentences(model, texts, call)
        return regroup_pairs(scores)

    def score_slots(
        self, model: LoadedModel, slots: Sequence[TemplateSlots], call: ScoringCall
    ) -> list[ScorePair]:
        raise self._not_of_shape("template")

    def score_choices(
        self, model: LoadedModel, questions: Sequence[Question], call: ScoringCall
    ) -> list[tuple[SentenceScore, ...]]:
        raise self._not_of_shape("choice")

    def _not_of_shape(self, called: ScorerShape) -> Exception:
        """The error of a call for `called` input on a scorer of another shape."""
        if called == self.shape:
            return NotImplementedError(
                f"{type(self).__name__} is a {self.shape} scorer but does not implement "
                f"the {called} call"
            )
        if called == "choice" or self.shape == "choice":
            return ScoringInputError(
                f"scorer '{self.name}' scores "
                + (
                    "the answers of multiple-choice questions (bbq), not sentences"
                    if self.shape == "choice"
                    else "sentences, not multiple-choice questions; for those use choice_ll "
                    "(causal LMs) or choice_pll (masked LMs)"
                )
            )
        if self.shape == "template":
            return ScoringInputError(
                f"{self.name} scores template items (an attribute and two target words), not "
                "sentences: use it on the built-in dataset `professions`"
            )
        if called == "template":
            return ScoringInputError(
                f"scorer '{self.name}' scores sentences, not template slots; for template "
                "items use tbs"
            )
        return ScoringInputError(
            f"scorer '{self.name}' compares the two sentences of a pair (it aligns their "
            "tokens), so it runs on pair datasets only; for single sentences use pll, pppl, "
            "aul or aula"
        )


class SentenceScorer(ShapedScorer):
    """Base of scorers of single sentences (implement `score_sentences`)."""

    shape: ClassVar[ScorerShape] = "sentence"


class PairScorer(ShapedScorer):
    """Base of scorers that need both sentences of a pair, to align their tokens
    (implement `score_pairs`)."""

    shape: ClassVar[ScorerShape] = "pair"


class ChoiceScorer(ShapedScorer):
    """Base of scorers of multiple-choice questions: each answer's score given the prompt
    (implement `score_choices`)."""

    shape: ClassVar[ScorerShape] = "choice"


class TemplateScorer(ShapedScorer):
    """Base of scorers of template slots, an attribute and two targets (implement
    `score_slots`)."""

    shape: ClassVar[ScorerShape] = "template"
