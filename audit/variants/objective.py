"""What a variant method asks the trainer for: what to train on (`TrainingData`) and
with which loss (`Objective`). Plain dataclasses, no torch: methods build them while
planning; `audit.variants.trainer.train_model` turns the objective into a
`audit.training.objective.TrainingObjective` and runs the one training loop.

A method with a loss of its own gives `Objective(kind="<its name>", build=<builder>)`:
the builder gets an `ObjectiveSetup` (the model, tokenizer, data, batch size, seed,
device) and returns its `TrainingObjective` (see docs/training.md, "A new objective").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.training.objective import TrainingObjective


@dataclass(frozen=True)
class TrainingData:
    """The text a training reads. LM objectives (cda, dropout, bias_controlled) read
    `sentences`; AT reads target and attribute sentences and the word lists."""

    sentences: tuple[str, ...] = ()
    target_sentences: tuple[str, ...] = ()
    attribute_sentences: tuple[str, ...] = ()
    attribute_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target_words: tuple[str, ...] = ()
    #: Post-hoc projections (INLP, SentenceDebias): sentences by label (a class, or the
    #: position in a counterfactual set, rows aligned across labels).
    labelled: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def n_examples(self) -> int:
        """Training examples: the sentences, target + attribute sentences for AT, or the
        labelled sentences of a projection."""
        if self.sentences:
            return len(self.sentences)
        if self.labelled:
            return sum(len(v) for v in self.labelled.values())
        return len(self.target_sentences) + len(self.attribute_sentences)


@dataclass(frozen=True)
class Objective:
    """The loss: the model's own LM objective (`lm`, optionally with dropout debiasing's
    dropout), AT (`at`, Kaneko & Bollegala 2021) with its options, or a method's own loss
    (any other `kind`, built by `build`)."""

    kind: str
    attention_dropout: float | None = None
    hidden_dropout: float | None = None
    at_alpha: float = 0.2
    at_beta: float = 0.8
    at_layers: Literal["all", "first", "last"] = "all"
    at_level: Literal["token", "sentence"] = "token"
    at_compat: Literal["formula", "reference"] = "formula"
    build: Callable[[ObjectiveSetup], TrainingObjective] | None = field(default=None, compare=False)

    def identity(self) -> dict[str, Any]:
        """The fields that make two objectives the same (the builder left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "build"}


@dataclass(frozen=True)
class ObjectiveSetup:
    """What an objective is built from: the model it will train (on `device`), its
    tokenizer and type, the objective's own settings, the data and the batch shape."""

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    model_type: Literal["masked", "causal"]
    objective: Objective
    data: TrainingData
    batch_size: int
    max_length: int
    seed: int
    device: torch.device
