"""A multiple-choice item's facts as one text, for the score table's `group` column.

The measures of a choice set (BBQ) need, beside each answer's score, what the item says
about its answers: the context condition, the question polarity, the correct answer, the
unknown answer and the biased one. The score table keeps them in the `group` column of
each of the item's rows as `condition=disambig;polarity=neg;label=1;unknown=2;biased=0`
(`biased=none` when the item has no biased answer), so that `scores.parquet` alone is
enough to compute the measures again.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.data.items import ChoiceItem
from audit.errors import DataError

_KEYS = ("condition", "polarity", "label", "unknown", "biased")


@dataclass(frozen=True)
class ChoiceFacts:
    """What an item says about its answers (see `ChoiceItem`)."""

    condition: str
    polarity: str
    label: int
    unknown: int
    biased: int | None


def encode_facts(item: ChoiceItem) -> str:
    """The item's facts as the `group` text."""
    biased = "none" if item.biased is None else str(item.biased)
    return (
        f"condition={item.condition};polarity={item.polarity};label={item.label};"
        f"unknown={item.unknown};biased={biased}"
    )


def decode_facts(text: str) -> ChoiceFacts:
    """The facts of a `group` text written by `encode_facts`."""
    parts = dict(part.split("=", 1) for part in text.split(";") if "=" in part)
    if set(parts) != set(_KEYS):
        raise DataError(f"choice facts {text!r} name {sorted(parts)}; expected {', '.join(_KEYS)}")
    if parts["condition"] not in ("ambig", "disambig") or parts["polarity"] not in (
        "neg",
        "nonneg",
    ):
        raise DataError(f"choice facts {text!r}: condition ambig/disambig, polarity neg/nonneg")
    try:
        label, unknown = int(parts["label"]), int(parts["unknown"])
        biased = None if parts["biased"] == "none" else int(parts["biased"])
    except ValueError:
        raise DataError(f"choice facts {text!r}: label, unknown, biased must be indices") from None
    return ChoiceFacts(parts["condition"], parts["polarity"], label, unknown, biased)
