"""What a scorer is: metadata the planner reads without torch, and the scoring calls.

Every score is a log-likelihood-like number: higher means the model finds the sentence
more likely (`higher_is_likelier`), except perplexities, which say so in their info.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

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
    unit: Literal["sentence", "pair"]  # pair: needs both sentences (token alignment)
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
