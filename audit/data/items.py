"""The two shapes of probe data (METHODS.md section 1) and a loaded dataset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DatasetShape = Literal["pairs", "labelled"]
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


@dataclass
class LoadedDataset:
    """A dataset after loading and filtering, with an account of every row read."""

    name: str
    shape: DatasetShape
    items: list[PairItem] | list[LabelledItem]
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
            raise TypeError(f"dataset '{self.name}' holds labelled sentences, not pairs")
        return self.items  # type: ignore[return-value]

    def labelled_items(self) -> list[LabelledItem]:
        if self.shape != "labelled":
            raise TypeError(f"dataset '{self.name}' holds pairs, not labelled sentences")
        return self.items  # type: ignore[return-value]
