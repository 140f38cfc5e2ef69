"""AT, all-layer token-level debiasing (Kaneko & Bollegala 2021; METHODS.md section 5).

    loss = alpha * L_debias + beta * L_reg

The reported terms are L_debias and L_reg before weighting. `compat`:

`formula` (METHODS.md): each step reads a batch of target sentences (a target word, no
attribute word) and a batch of attribute sentences (an attribute word) and trains on the
weighted sum of both terms, the model's forward passes in eval mode (no dropout: the
regulariser measures drift from the original, not dropout noise). Both terms are means
in the same units (a squared length per hidden unit), so that the reference's weights
(alpha 0.2, beta 0.8) weigh terms of the same size (docs/training.md, "Why means"):
- layers: the outputs of the N transformer layers (`first` = layer 1, `last` = layer N);
- v_a^l: per attribute class a and layer l, the mean of the frozen original model's
  layer-l states over every token of the class's words in all attribute sentences,
  computed once;
- L_debias: the mean over the batch's target-sentence tokens (special tokens and padding
  excluded), the chosen layers and the classes of (v_a^l . h^l_i)^2 / (|v_a^l|^2 d), the
  squared projection on the unit gender direction per hidden unit (`token` level); at
  `sentence` level h^l_i is replaced by the mean of the sentence's token states and the
  mean is over sentences, layers and classes;
- L_reg: the mean over the tokens of the batch's attribute words, the chosen layers and
  the hidden units of (h^l_i - h_orig^l_i)^2, i.e. ||h^l_i - h_orig^l_i||^2 / d.

`reference` (kanekomasahiro/context-debias, src/run_debias_mlm.py and src/preprocess.py;
docs/training.md lists each difference with its line):
- steps: each step trains one term on one batch of `batch_size` sentences of one kind:
  target sentences (alpha * L_debias) or the attribute sentences of one class
  (beta * L_reg), and is clipped on its own. A pass holds k steps of each kind, k the
  smallest class's sentences // `batch_size` (at least 1), in a seeded shuffled order;
  each step's batch is the start of a fresh seeded permutation of its kind's sentences
  (the code rebuilds its shuffled loaders after every step);
- layers: all N + 1 hidden states, the embedding output included (`first` = embeddings);
- attention: no attention mask (padding is attended to, as the code passes none);
- attribute sentences: only those whose words are all of one class; one word each (the
  first); target sentences (`token` level): one target word each (the first);
- word positions: the word's tokens summed and divided by the batch's longest word (in
  tokens); in a batch whose longest word has more than one token every position is read
  one place to the left (the code's one-hot table has a zero row in front);
- v_a^l: the mean of those per-sentence states over k batches of the class's sentences
  (a seeded permutation's first k * `batch_size`), taken by the model being trained
  (eval mode, no gradient) at the start of every pass;
- L_debias: per class, the mean over the batch and the layers of v_a^l . h^l (at the
  target word, or at every position padding included at `sentence` level), squared;
  summed over classes;
- L_reg: the mean over the batch, every position (padding and special tokens included),
  every one of the N + 1 layers (whatever `layers` says) and the hidden size of
  (h - h_orig)^2.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from audit.errors import AuditUserError
from audit.training.encode import Batch, Encoded, collate, pad_token_id
from audit.training.objective import StepLoss
from audit.training.schedule import Stream, batch_indices, permutation
from audit.variants.cda import gendered_word_regex
from audit.variants.methods.at_data import AtData
from audit.variants.methods.at_positions import (
    LocatedSentence,
    encode_with_offsets,
    fresh_batch,
    locate,
    reference_kind,
    reference_weights,
)
from audit.variants.wordlists import normalise_entry

if TYPE_CHECKING:
    from transformers import PreTrainedModel

    from audit.variants.objective import ObjectiveSetup

#: Sentences per forward pass when the formula's attribute vectors are computed.
VECTOR_BATCH = 32
#: The kind of a reference step that trains L_debias (kind c + 1: attribute class c).
DEBIAS_STEP = 0


class AttributeTargetTask:
    """AT's loss on a model, with its frozen original and its attribute vectors."""

    name = "at"
    term_names: tuple[str, ...] = ("debias", "regulariser")

    def __init__(self, setup: ObjectiveSetup) -> None:
        """AT on the setup's model and its `AtData`, with the objective's settings (those
        of `audit.variants.methods.at.at_objective`)."""
        settings, data = setup.objective.settings, setup.data.own_as(AtData)
        if not (data.target_sentences and data.attribute_sentences):
            raise AuditUserError(
                f"training (at): AT needs target and attribute sentences; got "
                f"{len(data.target_sentences)} target and {len(data.attribute_sentences)} "
                "attribute sentences"
            )
        self.model_type = setup.model_type
        self.reference = settings["compat"] == "reference"
        self.layers = settings["layers"]
        self.level = settings["level"]
        self.alpha = settings["alpha"]
        self.beta = settings["beta"]
        self.seed = setup.seed
        self.device = setup.device
        self.pad_id = pad_token_id(setup.tokenizer)
        self.batch_size = setup.batch_size
        self.target_batch = max(1, math.ceil(setup.batch_size / 2))
        self.attribute_batch = max(1, setup.batch_size - self.target_batch)
        self.classes = [c for c, words in data.attribute_words.items() if words]
        if not self.classes:
            raise AuditUserError("at: no attribute words were given (attribute_words is empty)")
        self.targets = self._targets(
            encode_with_offsets(setup, data.target_sentences, "target sentences"), data
        )
        self.attributes = self._attributes(
            encode_with_offsets(setup, data.attribute_sentences, "attribute sentences"), data
        )
        # Reference: each class's (single-class) sentences, and the steps of each kind in a
        # pass (the code's int(min_size / batch_size), at least 1).
        self.by_class = (
            {c: [s for s in self.attributes if s.classes[0] == c] for c in self.classes}
            if self.reference
            else {}
        )
        smallest = min((len(found) for found in self.by_class.values()), default=0)
        self.per_kind = max(1, smallest // self.batch_size)
        self.frozen = copy.deepcopy(setup.model).eval()
        self.frozen.requires_grad_(False)
        self.vectors: torch.Tensor | None = None  # [C, layers, d]

    # -- data ---------------------------------------------------------------------------

    def _targets(self, encoded: list[Encoded], data: AtData) -> list[LocatedSentence]:
        texts = data.target_sentences
        if self.reference and self.level == "token":
            if not data.target_words:
                raise AuditUserError(
                    "at (compat: reference, level: token): no target words were given, "
                    "and the reference debiases the target word's tokens"
                )
            regex = gendered_word_regex(data.target_words)
            located = [locate(e, texts[e.index], regex, None) for e in encoded]
            found = [LocatedSentence(s.enc, s.words[:1], s.classes[:1]) for s in located if s.words]
        else:
            found = [LocatedSentence(e, (), ()) for e in encoded]
        if not found:
            raise AuditUserError(
                f"at: none of the {len(texts)} target sentences can be used (no token to "
                "debias" + (", or no target word found in them)" if self.reference else ")")
            )
        return found

    def _attributes(self, encoded: list[Encoded], data: AtData) -> list[LocatedSentence]:
        texts = data.attribute_sentences
        class_of = {normalise_entry(w): c for c in self.classes for w in data.attribute_words[c]}
        regex = gendered_word_regex(class_of)
        located = [locate(e, texts[e.index], regex, class_of) for e in encoded]
        if self.reference:
            located = [
                LocatedSentence(s.enc, s.words[:1], s.classes[:1])
                for s in located
                if s.words and len(set(s.classes)) == 1
            ]
        else:
            located = [s for s in located if s.words]
        if not located:
            raise AuditUserError(
                f"at: no attribute word was found in the {len(texts)} attribute sentences"
                + (" that hold words of one class only" if self.reference else "")
                + "; check the attribute word lists and the corpus"
            )
        present = {c for s in located for c in s.classes}
        missing = [c for c in self.classes if c not in present]
        if missing:
            raise AuditUserError(
                f"at: no attribute sentence holds a word of the class(es) "
                f"{', '.join(missing)}, so their attribute vectors cannot be computed; use a "
                "corpus with sentences of every class"
            )
        return located

    # -- model passes -------------------------------------------------------------------

    def _hidden(self, model: PreTrainedModel, batch: Batch) -> list[torch.Tensor]:
        """The hidden states of the layer space ([B, T, d] each, float32)."""
        mask = torch.ones_like(batch.attention_mask) if self.reference else batch.attention_mask
        extra: dict[str, Any] = {"use_cache": False} if self.model_type == "causal" else {}
        out = model.base_model(
            input_ids=batch.input_ids,
            attention_mask=mask,
            output_hidden_states=True,
            return_dict=True,
            **extra,
        )
        states = list(out.hidden_states)
        return [h.float() for h in (states if self.reference else states[1:])]

    def _chosen(self, states: list[torch.Tensor]) -> list[torch.Tensor]:
        if self.layers == "first":
            return states[:1]
        if self.layers == "last":
            return states[-1:]
        return states

    def _chosen_vectors(self) -> torch.Tensor:
        assert self.vectors is not None
        if self.layers == "first":
            return self.vectors[:, :1]
        if self.layers == "last":
            return self.vectors[:, -1:]
        return self.vectors

    def _batch(self, rows: Sequence[LocatedSentence]) -> Batch:
        return collate([r.enc for r in rows], self.pad_id).to(self.device)

    # -- attribute vectors ----------------------------------------------------------------

    def _formula_vectors(self) -> torch.Tensor:
        """Mean original state per class and layer over the class's word tokens."""
        sums: torch.Tensor | None = None
        counts = torch.zeros(len(self.classes), device=self.device)
        by_length = sorted(self.attributes, key=lambda s: len(s.enc.ids))  # little padding
        with torch.inference_mode():
            for start in range(0, len(by_length), VECTOR_BATCH):
                rows = by_length[start : start + VECTOR_BATCH]
                stacked = torch.stack(self._hidden(self.frozen, self._batch(rows)), dim=2)
                if sums is None:
                    sums = stacked.new_zeros(len(self.classes), *stacked.shape[2:])
                for row, sentence in enumerate(rows):
                    for word, cls in zip(sentence.words, sentence.classes, strict=True):
                        c = self.classes.index(cls)
                        sums[c] += stacked[row, list(word)].sum(dim=0)
                        counts[c] += len(word)
        assert sums is not None
        return (sums / counts[:, None, None]).clone()

    def _reference_vectors(self, model: PreTrainedModel, epoch: int) -> torch.Tensor:
        """The code's vectors at the start of pass `epoch`: per class, the first
        `per_kind` batches of a seeded permutation of its sentences, each sentence's word
        state by `reference_weights`, the mean over sentences; by the model in training."""
        was_training = model.training
        model.eval()
        vectors: list[torch.Tensor] = []
        try:
            with torch.no_grad():
                for index, cls in enumerate(self.classes):
                    found = self.by_class[cls]
                    order = permutation(
                        len(found),
                        self.seed,
                        Stream.ATTRIBUTE_VECTORS,
                        epoch * len(self.classes) + index,
                    )
                    mine = [found[i] for i in order[: self.per_kind * self.batch_size]]
                    total: torch.Tensor | None = None
                    for start in range(0, len(mine), self.batch_size):
                        rows = mine[start : start + self.batch_size]
                        batch = self._batch(rows)
                        stacked = torch.stack(self._hidden(model, batch), dim=2)
                        weights = reference_weights(
                            [r.words[0] for r in rows], batch.input_ids.shape[1]
                        ).to(self.device)
                        part = torch.einsum("bt,btld->ld", weights, stacked)
                        total = part if total is None else total + part
                    assert total is not None
                    vectors.append(total / len(mine))
        finally:
            model.train(was_training)
        return torch.stack(vectors)

    # -- loss terms -----------------------------------------------------------------------

    def _debias(self, model: PreTrainedModel, rows: Sequence[LocatedSentence]) -> torch.Tensor:
        batch = self._batch(rows)
        hidden = torch.stack(self._chosen(self._hidden(model, batch)), dim=2)  # [B,T,L,d]
        vectors = self._chosen_vectors()  # [C, L, d]
        if self.reference:
            if self.level == "token":
                weights = reference_weights([r.words[0] for r in rows], hidden.shape[1])
                word = torch.einsum("bt,btld->bld", weights.to(self.device), hidden)
                means = torch.einsum("bld,cld->blc", word, vectors).mean(dim=(0, 1))
            else:
                means = torch.einsum("btld,cld->btlc", hidden, vectors).mean(dim=(0, 1, 2))
            return (means**2).sum()
        valid = (~batch.special).float()  # [B, T]
        # Per class and layer, v / (|v| sqrt(d)): (v . h)^2 / (|v|^2 d), the squared
        # projection on the unit direction per hidden unit, in the regulariser's units.
        vectors = vectors / (vectors.norm(dim=-1, keepdim=True) * math.sqrt(vectors.shape[-1]))
        if self.level == "token":
            dots = torch.einsum("btld,cld->btlc", hidden, vectors)
            per_token = (dots**2).mean(dim=(2, 3))  # [B, T]: over layers and classes
            return (per_token * valid).sum() / valid.sum()
        pooled = (hidden * valid[:, :, None, None]).sum(dim=1) / valid.sum(dim=1)[:, None, None]
        return (torch.einsum("bld,cld->blc", pooled, vectors) ** 2).mean()

    def _regulariser(self, model: PreTrainedModel, rows: Sequence[LocatedSentence]) -> torch.Tensor:
        batch = self._batch(rows)
        states = self._hidden(model, batch)
        with torch.no_grad():
            original = self._hidden(self.frozen, batch)
        if self.reference:
            hidden, before = torch.stack(states, dim=2), torch.stack(original, dim=2)
            return ((hidden - before) ** 2).mean()
        hidden = torch.stack(self._chosen(states), dim=2)
        before = torch.stack(self._chosen(original), dim=2)
        pairs = [(row, p) for row, s in enumerate(rows) for p in s.positions()]
        index_rows = torch.tensor([r for r, _ in pairs]).to(self.device)
        index_cols = torch.tensor([p for _, p in pairs]).to(self.device)
        diff = hidden[index_rows, index_cols] - before[index_rows, index_cols]  # [R, L, d]
        return (diff**2).mean()

    # -- the task ---------------------------------------------------------------------------

    def step_loss(self, model: PreTrainedModel, step: int) -> StepLoss:
        if self.reference:
            return self._reference_step(model, step)
        if self.vectors is None:
            self.vectors = self._formula_vectors()
        targets = [
            self.targets[i]
            for i in batch_indices(
                len(self.targets), self.target_batch, step, self.seed, Stream.ORDER
            )
        ]
        attributes = [
            self.attributes[i]
            for i in batch_indices(
                len(self.attributes),
                self.attribute_batch,
                step,
                self.seed,
                Stream.ATTRIBUTE_ORDER,
            )
        ]
        # Eval mode (no dropout): the regulariser then measures the drift from the
        # original, not the model's own dropout noise (docs/training.md, "Why means").
        was_training = model.training
        model.eval()
        try:
            debias = self._debias(model, targets)
            regulariser = self._regulariser(model, attributes)
        finally:
            model.train(was_training)
        loss = self.alpha * debias + self.beta * regulariser
        tokens = sum(len(s.enc.ids) for s in (*targets, *attributes))
        return StepLoss(
            loss, {"debias": debias.detach(), "regulariser": regulariser.detach()}, tokens
        )

    def _reference_step(self, model: PreTrainedModel, step: int) -> StepLoss:
        """One term on one batch of one kind (the code's step); the other term is NaN."""
        kinds = len(self.classes) + 1
        epoch, offset = divmod(step, self.per_kind * kinds)
        if self.vectors is None or offset == 0:
            self.vectors = self._reference_vectors(model, epoch)
        kind = reference_kind(step, self.per_kind, kinds, self.seed)
        nothing = torch.tensor(math.nan, device=self.device)
        if kind == DEBIAS_STEP:
            order = fresh_batch(len(self.targets), self.batch_size, self.seed, Stream.ORDER, step)
            rows = [self.targets[i] for i in order]
            debias = self._debias(model, rows)
            loss, terms = self.alpha * debias, {"debias": debias.detach(), "regulariser": nothing}
        else:
            found = self.by_class[self.classes[kind - 1]]
            order = fresh_batch(
                len(found), self.batch_size, self.seed, Stream.ATTRIBUTE_ORDER, step
            )
            rows = [found[i] for i in order]
            regulariser = self._regulariser(model, rows)
            loss = self.beta * regulariser
            terms = {"debias": nothing, "regulariser": regulariser.detach()}
        return StepLoss(loss, terms, sum(len(s.enc.ids) for s in rows))

    def state(self) -> dict[str, torch.Tensor]:
        return {} if self.vectors is None else {"attribute_vectors": self.vectors}

    def load_state(self, state: dict[str, torch.Tensor]) -> None:
        if "attribute_vectors" in state:
            self.vectors = state["attribute_vectors"].to(self.device)

    def release(self) -> None:
        """Drop the frozen copy (its memory) once training is over."""
        del self.frozen
