"""The language-modelling cost of the variants (results_version 3.0): the held-out text,
the units that scored it, and per variant its (pseudo-)perplexity against its base's
with the ratio's paired bootstrap interval and the damage verdict. Plain pydantic; the
numbers are computed by `audit.lm_quality.statistics`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from audit.ids import PluginId
from audit.results.record import Record
from audit.results.run import UnitRecord


class HeldOutTextRecord(Record):
    """The held-out text as used: where it came from and how its sentences were chosen."""

    label: str = Field(description="The built-in name (sts_b_test) or the user file.")
    source: str = Field(description="The file read.")
    description: str = Field(description="What the text is, in words (the report's caveat).")
    sha256: str = Field(description="sha256 of the sentences used, '\\n'-joined UTF-8.")
    read: int = Field(description="Unique sentences in the text.")
    overlap_removed: int = Field(
        description="Of those, sentences a variant of the spec trains on (removed)."
    )
    available: int = Field(description="Sentences left to draw from (read - overlap_removed).")
    sentences: int = Field(description="Sentences drawn (seeded) and scored.")
    seed: int


class PerplexityRecord(Record):
    """One model's perplexity on the held-out sentences."""

    model: str
    value: float
    ci_low: float | None = None
    ci_high: float | None = None
    tokens: int = Field(description="Scored tokens over all sentences.")


class LmQualityRecord(Record):
    """A variant's (pseudo-)perplexity against its base's on the same sentences."""

    variant: str
    base: str
    kind: Literal["pseudo-perplexity", "perplexity"] = Field(
        description="pseudo-perplexity (masked LMs, from `pll`) or perplexity (causal, `ll`)."
    )
    scorer: PluginId
    sentences: int
    base_perplexity: PerplexityRecord
    variant_perplexity: PerplexityRecord
    ratio: float = Field(description="Variant / base perplexity.")
    ratio_ci_low: float | None = None
    ratio_ci_high: float | None = None
    damage: Literal["damaged", "not damaged", "unclear"] = Field(
        description="The ratio against 1 + damage_threshold: its interval above (damaged), "
        "at or below (not damaged), or across it (unclear); the point without an interval."
    )
    note: str = ""


class LmQualitySection(Record):
    """Every variant's language-modelling cost, on one held-out text."""

    text: HeldOutTextRecord
    damage_threshold: float = Field(
        description="A variant is damaged when its perplexity is above (1 + this) x its base's."
    )
    units: list[UnitRecord] = Field(
        default_factory=list, description="The score units of the held-out text, as run."
    )
    records: list[LmQualityRecord] = Field(default_factory=list)
