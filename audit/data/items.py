"""The shapes of probe data (METHODS.md section 1: pairs, labelled sentences; and
multiple-choice questions, BBQ) and a loaded dataset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DatasetShape = Literal["pairs", "labelled", "choices"]
ContextCondition = Literal["ambig", "disambig"]
Polarity = Literal["neg", "nonneg"]
Label = Literal["harmful", "benign"]


@dataclass(frozen=True)
class PairItem:
    """A stereotypical / anti-stereotypical sentence pair (optionally an unrelated third).

    `item_id` is stable across runs: the dataset's own id where it has one, else the
    0-based row. The optional fields are for readers whose data has them: `direction`
    the dataset's own direction label (e.g. CrowS-Pairs' `stereo_antistereo`), `context`
    the text the sentences were built from (e.g. StereoSet's BLANK template; the pair's
    sentences already include it), `probe` the template slots of a template item (a
    dataset whose entry says `templates=True`): the attribute word and the stereotypical
    and anti-stereotypical target words, which template scorers (TBS) use instead of
    the sentences. A new dataset fills these; it needs no new field here.
    """

    item_id: str
    bias_type: str
    stereotype: str
    anti_stereotype: str
    unrelated: str | None = None
    direction: str | None = None
    context: str | None = None
    probe: TemplateSlots | None = None


@dataclass(frozen=True)
class TemplateSlots:
    """What fills a template's slots: an attribute and the two competing targets."""

    attribute: str
    target_st: str
    target_at: str


@dataclass(frozen=True)
class LabelledItem:
    """A sentence labelled harmful or benign, with a toxicity t > 0 and its target groups."""

    item_id: str
    text: str
    label: Label
    toxicity: float
    groups: tuple[str, ...]


@dataclass(frozen=True)
class ChoiceItem:
    """A multiple-choice question about people (BBQ): a context, a question and answers.

    `bias_type` is the item's category (BBQ's `category`). `label` is the index of the
    correct answer, `unknown` the index of the "cannot be determined" answer, and `biased`
    the index of the answer that reflects the targeted social bias (for a negative
    question the answer naming a stereotyped group, for a non-negative question the
    other person), or None when the data does not single one out (such an item counts in
    accuracy but not in the bias scores). `condition` is BBQ's context condition and
    `polarity` its question polarity.
    """

    item_id: str
    bias_type: str
    context: str
    question: str
    answers: tuple[str, ...]
    label: int
    unknown: int
    biased: int | None
    condition: ContextCondition
    polarity: Polarity


@dataclass
class LoadedDataset:
    """A dataset after loading and filtering, with an account of every row read."""

    name: str
    shape: DatasetShape
    items: list[PairItem] | list[LabelledItem] | list[ChoiceItem]
    source: str  # the file the items were read from
    sha256: str  # full hex digest of that file
    rows_read: int  # candidate items read: == rows_kept + sum(skipped) + sum(filtered)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> rows skipped
    filtered: dict[str, int] = field(default_factory=dict)  # filter -> rows removed by it
    files: dict[str, str] = field(default_factory=dict)  # every file read -> its sha256
    verified: bool = False  # every file matched the catalog's sha256 (built-ins only)

    @property
    def rows_kept(self) -> int:
        return len(self.items)

    def pair_items(self) -> list[PairItem]:
        if self.shape != "pairs":
            raise TypeError(f"dataset '{self.name}' holds {_HOLDS[self.shape]}, not pairs")
        return self.items  # type: ignore[return-value]

    def labelled_items(self) -> list[LabelledItem]:
        if self.shape != "labelled":
            raise TypeError(
                f"dataset '{self.name}' holds {_HOLDS[self.shape]}, not labelled sentences"
            )
        return self.items  # type: ignore[return-value]

    def choice_items(self) -> list[ChoiceItem]:
        if self.shape != "choices":
            raise TypeError(
                f"dataset '{self.name}' holds {_HOLDS[self.shape]}, not multiple-choice questions"
            )
        return self.items  # type: ignore[return-value]


_HOLDS: dict[DatasetShape, str] = {
    "pairs": "pairs",
    "labelled": "labelled sentences",
    "choices": "multiple-choice questions",
}
