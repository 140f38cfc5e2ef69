"""What a scorer reads from each item and how it is called, per input shape.

A scorer's shape (`ScorerInfo.unit`: sentence, pair or template) decides which cache
entries an item needs and which score of which entry each side of the item gets. One
`ScorerInput` per shape says both, so the runner that fills the cache and the table that
reads it back agree on the entries, and the runner scores every unit the same way
whatever its scorer's input:

- sentence: one entry per sentence (a pair item's st, at and unrelated sentence, or a
  labelled item's text);
- pair: one entry per pair item (st, at), holding both sides' scores;
- template: one entry per template item, keyed by its slots (attribute, targets);
- choice: one entry per multiple-choice item, keyed by its prompt and answers, holding
  one score per answer (sides `ans0`, `ans1`, ...).

Entry keys are `cache.text_key(texts)` of exactly these texts, as they always were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from audit.data.items import ChoiceItem, LabelledItem, PairItem, TemplateSlots
from audit.scoring.base import Scorer, ScorerShape, ScoringCall, SentenceScore
from audit.scoring.cache import Entry, text_key
from audit.scoring.choice_prompt import choice_prompt

if TYPE_CHECKING:
    from audit.models.chat_template import ChatFormat
    from audit.models.loaded import LoadedModel

Side = Literal["st", "at", "unrelated", "sentence", "ans0", "ans1", "ans2"]
Item = PairItem | LabelledItem | ChoiceItem

#: First text of a template entry: keeps slot keys apart from sentence-pair keys.
TEMPLATE_MARK = "[template slots]"
#: First text of a choice entry: keeps question keys apart from the others.
CHOICE_MARK = "[multiple choice]"
ANSWER_SIDES: tuple[Side, ...] = ("ans0", "ans1", "ans2")


@dataclass(frozen=True)
class SideRef:
    """Where one side of an item finds its score: entry `texts`, score number `index`."""

    side: Side
    texts: tuple[str, ...]
    index: int

    @property
    def key(self) -> str:
        return text_key(self.texts)


class ScorerInput:
    """Base of the three input shapes: the entries an item needs and the scoring call."""

    shape: ScorerShape

    def sides(self, item: Item, chat: ChatFormat | None = None) -> list[SideRef]:
        """Every side of `item` and the entry it reads, in table order; `chat`: the
        chat template that wraps a multiple-choice item's prompt (the model's)."""
        raise NotImplementedError

    def work(self, texts: tuple[str, ...]) -> int:
        """Sentences an entry scores (progress counts these)."""
        return len(texts)

    def method(self, scorer: Scorer) -> Callable[..., Sequence[Any]]:
        """The scorer's call of this shape (`score_sentences`, `score_pairs`, ...)."""
        raise NotImplementedError

    def inputs(self, batch: Sequence[tuple[str, ...]]) -> list[Any]:
        """What that call takes for the entries `batch` (entry texts)."""
        raise NotImplementedError

    def entry(self, score: Any) -> Entry:
        """The cache entry of one result of the call (a pair of scores by default)."""
        return tuple(score)

    def score(
        self,
        scorer: Scorer,
        model: LoadedModel,
        batch: Sequence[tuple[str, ...]],
        call: ScoringCall,
    ) -> list[Entry]:
        """The entries of `batch` (entry texts), in order."""
        scored = self.method(scorer)(model, self.inputs(batch), call)
        return [self.entry(s) for s in scored]

    def _pair_only(self, item: Item) -> PairItem:
        if not isinstance(item, PairItem):
            raise TypeError(f"a {self.shape} scorer cannot score the item {item.item_id}")
        return item


class SentenceInput(ScorerInput):
    shape: ScorerShape = "sentence"

    def sides(self, item: Item, chat: ChatFormat | None = None) -> list[SideRef]:
        if isinstance(item, LabelledItem):
            return [SideRef("sentence", (item.text,), 0)]
        item = self._pair_only(item)
        refs = [SideRef("st", (item.stereotype,), 0), SideRef("at", (item.anti_stereotype,), 0)]
        if item.unrelated is not None:
            refs.append(SideRef("unrelated", (item.unrelated,), 0))
        return refs

    def method(self, scorer: Scorer) -> Callable[..., Sequence[Any]]:
        return scorer.score_sentences

    def inputs(self, batch: Sequence[tuple[str, ...]]) -> list[Any]:
        return [t[0] for t in batch]

    def entry(self, score: Any) -> Entry:
        return (score,)


class PairInput(ScorerInput):
    shape: ScorerShape = "pair"

    def sides(self, item: Item, chat: ChatFormat | None = None) -> list[SideRef]:
        pair = self._pair_only(item)
        texts = (pair.stereotype, pair.anti_stereotype)
        return [SideRef("st", texts, 0), SideRef("at", texts, 1)]

    def method(self, scorer: Scorer) -> Callable[..., Sequence[Any]]:
        return scorer.score_pairs

    def inputs(self, batch: Sequence[tuple[str, ...]]) -> list[Any]:
        return [(t[0], t[1]) for t in batch]


class TemplateInput(ScorerInput):
    shape: ScorerShape = "template"

    def sides(self, item: Item, chat: ChatFormat | None = None) -> list[SideRef]:
        pair = self._pair_only(item)
        if pair.probe is None:
            raise ValueError(f"item {pair.item_id} has no template slots")
        probe = pair.probe
        texts = (TEMPLATE_MARK, probe.attribute, probe.target_st, probe.target_at)
        return [SideRef("st", texts, 0), SideRef("at", texts, 1)]

    def work(self, texts: tuple[str, ...]) -> int:
        """The two targets: progress counts template x item combinations."""
        return 2

    def method(self, scorer: Scorer) -> Callable[..., Sequence[Any]]:
        return scorer.score_slots

    def inputs(self, batch: Sequence[tuple[str, ...]]) -> list[Any]:
        return [TemplateSlots(*t[1:]) for t in batch]


class ChoiceInput(ScorerInput):
    shape: ScorerShape = "choice"

    def sides(self, item: Item, chat: ChatFormat | None = None) -> list[SideRef]:
        if not isinstance(item, ChoiceItem):
            raise TypeError(f"a choice scorer cannot score the item {item.item_id}")
        if len(item.answers) > len(ANSWER_SIDES):
            raise ValueError(
                f"item {item.item_id} has {len(item.answers)} answers; at most "
                f"{len(ANSWER_SIDES)} are scored"
            )
        prompt = choice_prompt(item.context, item.question)
        if chat is not None:
            prompt = chat.render(prompt)
        texts = (CHOICE_MARK, prompt, *item.answers)
        return [SideRef(ANSWER_SIDES[i], texts, i) for i in range(len(item.answers))]

    def work(self, texts: tuple[str, ...]) -> int:
        """The answers: progress counts answers scored."""
        return len(texts) - 2

    def method(self, scorer: Scorer) -> Callable[..., Sequence[Any]]:
        return scorer.score_choices

    def inputs(self, batch: Sequence[tuple[str, ...]]) -> list[Any]:
        return [(t[1], tuple(t[2:])) for t in batch]


INPUTS: Mapping[ScorerShape, ScorerInput] = {
    "sentence": SentenceInput(),
    "pair": PairInput(),
    "template": TemplateInput(),
    "choice": ChoiceInput(),
}


def scorer_input(shape: ScorerShape) -> ScorerInput:
    """The input of scorers of `shape`."""
    return INPUTS[shape]


def side_scores(
    sides: Sequence[SideRef], entries: Mapping[str, Entry]
) -> list[tuple[Side, SentenceScore]]:
    """Each side's score, read from the entries."""
    return [(ref.side, entries[ref.key][ref.index]) for ref in sides]
