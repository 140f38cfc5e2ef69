"""The examples a task head is fine-tuned on, and the hash of a training set (for the
checkpoint identity and the cache key). No torch, no numpy."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from audit.extrinsic.biasbios import Bio
    from audit.extrinsic.nli_bias import NliExample


class ScoredPair(Protocol):
    """A sentence pair with a gold similarity, e.g. `audit.extrinsic.sts_data.StsRow`."""

    @property
    def sentence1(self) -> str: ...

    @property
    def sentence2(self) -> str: ...

    @property
    def score(self) -> float: ...


@dataclass(frozen=True)
class LabelledText:
    """A text (or a text pair) and its class."""

    text: str
    label: str
    text_pair: str | None = None

    @property
    def inputs(self) -> str | tuple[str, str]:
        return self.text if self.text_pair is None else (self.text, self.text_pair)


#: The model's input: one text, or a pair of texts.
TextInput = str | tuple[str, str]


def nli_examples(rows: Iterable[NliExample]) -> list[LabelledText]:
    """NLI training pairs (`audit.extrinsic.nli_bias.load_nli_training`) as pair examples:
    premise first, hypothesis second."""
    return [LabelledText(text=r.premise, text_pair=r.hypothesis, label=r.label) for r in rows]


def bios_examples(bios: Iterable[Bio]) -> list[LabelledText]:
    """BiasBios biographies as single-text examples labelled with their title."""
    return [LabelledText(text=b.text, label=b.title) for b in bios]


def _digest(kind: str, lines: Iterable[list[object]]) -> str:
    digest = hashlib.sha256(f"{kind}\n".encode())
    for cells in lines:
        digest.update(json.dumps(cells, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def scored_pairs_sha256(rows: Sequence[ScoredPair]) -> str:
    """A hash of sentence pairs and their scores, in order."""
    return _digest("scored_pairs", ([r.sentence1, r.sentence2, float(r.score)] for r in rows))


def labelled_sha256(rows: Sequence[LabelledText]) -> str:
    """A hash of labelled texts, in order."""
    return _digest("labelled", ([r.text, r.text_pair, r.label] for r in rows))


def regression_data_sha256(train: Sequence[ScoredPair], dev: Sequence[ScoredPair]) -> str:
    """The hash of a regression fine-tuning's data: training and dev pairs."""
    return _digest("regression", [[scored_pairs_sha256(train), scored_pairs_sha256(dev)]])


def classification_data_sha256(
    train: Sequence[LabelledText], dev: Sequence[LabelledText], labels: Sequence[str]
) -> str:
    """The hash of a classifier's data: training and dev examples and the label order."""
    return _digest("classification", [[labelled_sha256(train), labelled_sha256(dev), list(labels)]])
