"""The trainer's data types: what to train on (`TrainingData`), with which loss
(`Objective`), the progress it reports (`TrainingStatus`) and its test-hook interruption.
Plain dataclasses, no torch: methods build them while planning. `run.py` re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class TrainingData:
    """The text a training reads. LM objectives (cda, dropout, bias_controlled) read
    `sentences`; AT reads target and attribute sentences and the word lists."""

    sentences: tuple[str, ...] = ()
    target_sentences: tuple[str, ...] = ()
    attribute_sentences: tuple[str, ...] = ()
    attribute_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target_words: tuple[str, ...] = ()

    def n_examples(self) -> int:
        """Training examples: the sentences, or target + attribute sentences for AT."""
        if self.sentences:
            return len(self.sentences)
        return len(self.target_sentences) + len(self.attribute_sentences)


@dataclass(frozen=True)
class Objective:
    """The loss: the model's own LM objective (optionally with dropout debiasing's
    dropout), or AT (Kaneko & Bollegala 2021) with its options."""

    kind: Literal["lm", "at"]
    attention_dropout: float | None = None
    hidden_dropout: float | None = None
    at_alpha: float = 0.2
    at_beta: float = 0.8
    at_layers: Literal["all", "first", "last"] = "all"
    at_level: Literal["token", "sentence"] = "token"
    at_compat: Literal["formula", "reference"] = "formula"


@dataclass(frozen=True)
class TrainingStatus:
    """Passed to the progress callback after each step. `step` counts steps done (1 after
    the first); `loss` and `terms` are that step's; speed and ETA are this session's."""

    step: int
    total: int
    loss: float
    terms: dict[str, float]
    tokens_per_s: float
    eta_s: float | None
    resumed_from: int | None


class TrainingInterrupted(Exception):
    """Raised when `stop_after` steps have run (the checkpoint is written first)."""

    def __init__(self, step: int) -> None:
        super().__init__(f"training interrupted after step {step} (checkpoint written)")
        self.step = step
