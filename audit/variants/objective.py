"""What a variant method asks the trainer for: what to train on (`TrainingData`) and
with which loss (`Objective`). Plain dataclasses, no torch: methods build them while
planning; `audit.variants.trainer.train_model` has the objective's builder turn it into
a `audit.training.objective.TrainingObjective` and runs the one training loop.

This is the one door for every method, built-in or plug-in (docs/plugins.md, "A
debiasing method with a new loss"):

- data: `TrainingData.sentences` for the model's own LM objective, or the method's own
  data in `TrainingData.own`: any frozen dataclass with the three methods of `MethodData`
  (AT's `AtData`, a projection's `LabelledSentences`, a plug-in's own);
- loss: `Objective(kind=<its name>, build=<builder>, settings=<its options>)`: the
  builder gets an `ObjectiveSetup` (the model, tokenizer, data, batch size, seed, device)
  and returns its `TrainingObjective`, checking the data it needs; without `build`, the
  model's own language-model objective (`build_language_model`).

Nothing here knows a method: the shared code reads an objective's `settings` and a
data's `key_fields()` without looking inside.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from audit.training.objective import TrainingObjective

#: The field layout of the data key when `TrainingData` held every method's fields.
#: Every data key starts from it (a method's `key_fields` fill in its own names), so
#: that the variants stored before keep their keys (`audit.variants.jobs.data_sha256`).
DATA_KEY_LAYOUT: Mapping[str, Any] = {
    "sentences": (),
    "target_sentences": (),
    "attribute_sentences": (),
    "attribute_words": {},
    "target_words": (),
    "labelled": {},
}


class MethodData(Protocol):
    """A method's own training data (`TrainingData.own`)."""

    def n_examples(self) -> int:
        """Training examples (what the steps of an epoch are counted in)."""
        ...

    def training_texts(self) -> tuple[str, ...]:
        """The sentences the weights are trained on (kept out of held-out text, timed by
        the plan); () for data that trains no weights (a projection's)."""
        ...

    def key_fields(self) -> dict[str, Any]:
        """JSON-able fields that make two data the same (hashed into the variant key)."""
        ...


D = TypeVar("D")


@dataclass(frozen=True)
class TrainingData:
    """The text a training reads: `sentences` (the LM objective's), and a method's own
    data (`own`)."""

    sentences: tuple[str, ...] = ()
    own: MethodData | None = None

    def n_examples(self) -> int:
        """Training examples: the own data's, else the sentences."""
        return self.own.n_examples() if self.own is not None else len(self.sentences)

    def training_texts(self) -> tuple[str, ...]:
        """Every sentence the weights are trained on."""
        own = self.own.training_texts() if self.own is not None else ()
        return (*self.sentences, *own)

    def key_fields(self) -> dict[str, Any]:
        """What the data key hashes: `DATA_KEY_LAYOUT` filled in."""
        own = self.own.key_fields() if self.own is not None else {}
        return {**DATA_KEY_LAYOUT, "sentences": self.sentences, **own}

    def own_as(self, kind: type[D]) -> D:
        """The own data, checked to be a `kind` (an objective's builder reads its own)."""
        if not isinstance(self.own, kind):
            got = type(self.own).__name__
            raise TypeError(f"the training data holds {got}, not the {kind.__name__} expected")
        return self.own


@dataclass(frozen=True)
class Objective:
    """The loss: `build` (a method's own builder; the model's own language-model
    objective without one) with the method's `settings`, under the dropout the training
    puts on the model (dropout debiasing's; None leaves the model's own). `audit plan`
    times a few steps of the training itself, so an objective's own cost needs no
    declaring."""

    kind: str
    attention_dropout: float | None = None
    hidden_dropout: float | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    build: Callable[[ObjectiveSetup], TrainingObjective] | None = field(default=None, compare=False)

    def identity(self) -> dict[str, Any]:
        """The fields that make two objectives the same (the builder left out)."""
        return {
            "kind": self.kind,
            "attention_dropout": self.attention_dropout,
            "hidden_dropout": self.hidden_dropout,
            **dict(self.settings),
        }

    def builder(self) -> Callable[[ObjectiveSetup], TrainingObjective]:
        return build_language_model if self.build is None else self.build


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


def build_language_model(setup: ObjectiveSetup) -> TrainingObjective:
    """The model's own objective (MLM or next-token) on `setup.data.sentences`."""
    from audit.errors import AuditUserError
    from audit.training.objectives.lm import LanguageModelTask

    if not setup.data.sentences:
        raise AuditUserError("training: the language-model objective got no training sentences")
    return LanguageModelTask(
        setup.model,
        setup.tokenizer,
        setup.data.sentences,
        model_type=setup.model_type,
        batch_size=setup.batch_size,
        max_length=setup.max_length,
        seed=setup.seed,
        device=setup.device,
    )
