"""What a scorer is: metadata the planner reads without torch, and the scoring calls.

Every score is a log-likelihood-like number: higher means the model finds the sentence
more likely (`higher_is_likelier`), except perplexities, which say so in their info.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from audit.errors import AuditUserError

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

ModelType = Literal["masked", "causal"]
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
class ScorerInfo:
    """Static facts about a scorer, used by the planner, the cache and the measures."""

    name: str
    model_types: frozenset[str]
    # sentence: scores one sentence at a time; pair: needs both sentences (token
    # alignment); template: scores an item's template slots (attribute, two targets)
    unit: Literal["sentence", "pair", "template"]
    higher_is_likelier: bool
    aggregation: Literal["sum", "mean"]  # score is a sum or a mean over scored tokens
    version: str  # bump when the arithmetic changes: it is part of every cache key
    summary: str


@dataclass(frozen=True)
class SentenceScore:
    """One sentence's score (float64) and how many tokens were scored."""

    score: float
    n_tokens: int


class Scorer(Protocol):
    """A scorer computes per-sentence scores; pair scorers score both sides together."""

    info: ScorerInfo
    options_model: type[ScorerOptions]

    def score_sentences(
        self,
        model: LoadedModel,
        texts: Sequence[str],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[SentenceScore]: ...

    def score_pairs(
        self,
        model: LoadedModel,
        pairs: Sequence[tuple[str, str]],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[tuple[SentenceScore, SentenceScore]]: ...


ScorePair = tuple[SentenceScore, SentenceScore]


class ScoringInputError(AuditUserError):
    """Input a scorer cannot score (wrong model type, empty or too long sentence, a pair
    scorer given single sentences, no [MASK] token...)."""


def interleave_pairs(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """[st0, at0, st1, at1, ...]: both sides of every pair, in order."""
    return [text for pair in pairs for text in pair]


def regroup_pairs(scores: Sequence[SentenceScore]) -> list[ScorePair]:
    """The inverse of `interleave_pairs` for the scores."""
    return [(scores[i], scores[i + 1]) for i in range(0, len(scores), 2)]


class SentenceScorer:
    """Base of scorers of single sentences: a pair is scored side by side, each side on
    its own (so progress counts two sentences per pair)."""

    info: ScorerInfo

    def score_sentences(
        self,
        model: LoadedModel,
        texts: Sequence[str],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[SentenceScore]:
        raise NotImplementedError

    def score_pairs(
        self,
        model: LoadedModel,
        pairs: Sequence[tuple[str, str]],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[ScorePair]:
        texts = interleave_pairs(pairs)
        scores = self.score_sentences(model, texts, options=options, progress=progress)
        return regroup_pairs(scores)


class PairScorer:
    """Base of scorers that need both sentences of a pair (they align their tokens)."""

    info: ScorerInfo

    def score_sentences(
        self,
        model: LoadedModel,
        texts: Sequence[str],
        *,
        options: ScorerOptions,
        progress: ProgressCallback,
    ) -> list[SentenceScore]:
        raise ScoringInputError(
            f"scorer '{self.info.name}' compares the two sentences of a pair (it aligns their "
            "tokens), so it runs on pair datasets only; for single sentences use pll, pppl, "
            "aul or aula"
        )
