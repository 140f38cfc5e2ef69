"""SEAT, the sentence encoder association tests (results_version 3.0): per `seat` entry of
the spec, model and test, the sets' sizes, the effect size and its one-sided permutation
p-value (exact or from seeded partitions); per bias type, bias-bench's summary (the mean
|d| over its tests); the models a SEAT entry did not run on, with the reason. Plain
pydantic; the numbers come from `audit.measures.seat`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from audit.ids import PluginId
from audit.results.record import Record


class SeatTestRecord(Record):
    """One SEAT test on one model."""

    measure: PluginId = Field(description="The spec's `seat` entry (its options in the label).")
    model: str
    test: str = Field(description="The test's file name without .jsonl (e.g. sent-weat6).")
    bias_type: str | None = Field(
        description="The bias-bench list (gender, race, religion) holding the test; None if none."
    )
    categories: list[str] = Field(description="What X, Y, A and B stand for, in that order.")
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    effect_size: float | None = Field(
        description="d; None when every s(w, A, B) is equal (no spread)."
    )
    p_value: float = Field(description="One-sided permutation p-value, not corrected.")
    exact: bool = Field(description="True: over every partition of X u Y; False: sampled.")
    n_partitions: int = Field(description="Partitions counted (enumerated or drawn).")
    n_samples: int = Field(description="The option: exact when C(2n, n) is at most this.")
    pooling: Literal["mean", "first"]
    seed: int = Field(description="The test's permutation seed (audit seed and test name).")
    verified: bool = Field(description="The file matched the pinned release's sha256.")
    sha256: str = Field(description="sha256 of the test file read.")


class SeatBiasTypeRecord(Record):
    """bias-bench's summary of one bias type on one model: the mean |d| over its tests."""

    measure: PluginId
    model: str
    bias_type: str
    mean_abs_effect: float | None = Field(
        description="Mean |effect size| over the type's tests with one; None if none has."
    )
    n_tests: int = Field(description="The type's tests that ran.")


class SeatSkipRecord(Record):
    """A model a `seat` entry did not run on, and why."""

    measure: PluginId
    model: str
    reason: str


class SeatSection(Record):
    """Every SEAT result of the run."""

    folder: str = Field(description="The folder the test files were read from.")
    alpha: float = Field(description="The audit's alpha, below which a p-value is marked.")
    tests: list[SeatTestRecord] = Field(default_factory=list)
    bias_types: list[SeatBiasTypeRecord] = Field(default_factory=list)
    skipped: list[SeatSkipRecord] = Field(default_factory=list)
