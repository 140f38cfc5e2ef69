"""The spec's settings of the cross-model studies: the subsampling robustness study, the
correlation tests and the paired comparisons."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from audit.models.sources import Strict
from audit.spec.problems import format_number


def _sampling_rate(value: float) -> float:
    if not 0 < value <= 1:
        raise PydanticCustomError(
            "sampling_rate",
            "a sampling rate is the share of items drawn, so it must lie in (0, 1]",
            {"got": format_number(value), "expected": "a number above 0 and at most 1, e.g. 0.5"},
        )
    return value


SamplingRate = Annotated[
    float,
    AfterValidator(_sampling_rate),
    Field(json_schema_extra={"exclusiveMinimum": 0, "maximum": 1}),
]


class RobustnessSpec(Strict):
    """The subsampling study of Liu 2024 (METHODS.md section 4)."""

    rates: list[SamplingRate] = Field(
        default_factory=lambda: [0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        min_length=1,
        description="Sampling rates in (0, 1].",
    )
    repeats: int = Field(20, ge=1, le=10_000, description="Seeded draws per rate.")
    agreement: float = Field(
        0.95, gt=0, le=1, description="Share of draws that must agree for 'robust'."
    )
    seed: int | None = Field(None, description="Seed of the draws; default: the spec's seed.")


class CorrelationSpec(Strict):
    """How the correlation between measures across models is tested (METHODS.md section 4)."""

    correction: Literal["holm", "bh"] = Field(
        default="holm",
        description="Multiple-comparison correction of each family of correlation tests: "
        "'holm' (Holm step-down, family-wise error rate) or 'bh' (Benjamini-Hochberg, false "
        "discovery rate).",
    )
    failed_dev_check: Literal["exclude", "keep"] = Field(
        default="exclude",
        description="Extrinsic values of models whose fine-tuning failed the task's dev check: "
        "'exclude' leaves them out of the correlations (and the report names them); 'keep' "
        "correlates them too (they measure an unlearned task).",
    )
    effect_size: float = Field(
        default=0.5,
        gt=0,
        lt=1,
        description="The correlation a study must be able to detect to be called conclusive, "
        "as a population Kendall tau (0.5: a strong association, Pearson about 0.71 for "
        "normal data; Kaneko et al. 2022 report tau up to 0.53). A table whose test has "
        "less than `power` at this tau says it could not have detected it.",
    )
    power: float = Field(
        default=0.8,
        gt=0,
        lt=1,
        description="The power at `effect_size` a conclusive correlation table needs.",
    )


class ComparisonSpec(Strict):
    """How paired comparisons (a variant against its base, two models) are judged."""

    correction: Literal["holm", "bh"] = Field(
        default="holm",
        description="Multiple-comparison correction over each family of comparisons (the "
        "variants against their base; the ratio models against theirs; the models against "
        "each other): 'holm' (family-wise error rate) or 'bh' (Benjamini-Hochberg, false "
        "discovery rate). Page 1 counts the verdicts after it.",
    )
    power: float = Field(
        default=0.8,
        gt=0,
        lt=1,
        description="The power at which each comparison's smallest detectable difference "
        "is stated.",
    )
