"""What was audited, by whom, and with which statistical settings (`AuditInfo`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from audit.results.record import Record


class BootstrapSettings(Record):
    """How the confidence intervals were drawn."""

    resamples: int = Field(description="Bootstrap resamples per interval; 0 = no intervals.")
    method: Literal["percentile"] = "percentile"
    level: float = Field(description="Confidence level, 1 - alpha.")


class RobustnessSettings(Record):
    """The subsampling study the spec asked for (Liu 2024)."""

    rates: list[float]
    repeats: int
    agreement: float
    seed: int | None = Field(default=None, description="None: the audit's seed.")


class CorrelationSettings(Record):
    """How the correlations between measures were tested (results_version 3.0)."""

    correction: Literal["holm", "bh"] = Field(
        description="Multiple-comparison correction: Holm or Benjamini-Hochberg."
    )
    failed_dev_check: Literal["exclude", "keep"] = Field(
        description="Extrinsic values of models that failed the task's dev check: left out "
        "of the correlations, or kept."
    )
    effect_size: float | None = Field(
        default=None,
        description="The population Kendall tau a conclusive correlation table must detect "
        "with `power` (4.0; None in older files).",
    )
    power: float | None = Field(default=None, description="The power asked for (4.0).")


class ComparisonSettings(Record):
    """How the paired comparisons were corrected (results_version 4.0)."""

    correction: Literal["holm", "bh"] = Field(
        description="Multiple-comparison correction over each family of paired comparisons."
    )
    power: float = Field(description="The power of each record's `detectable_difference`.")


class AuditInfo(Record):
    """What was audited, by whom, and with which statistical settings."""

    name: str
    owner: str | None = None
    description: str = ""
    spec_path: str
    spec_sha256: str
    seed: int
    alpha: float
    bootstrap: BootstrapSettings
    robustness: RobustnessSettings | None = Field(
        default=None, description="The subsampling study asked for; None when not asked."
    )
    correlations: CorrelationSettings | None = Field(
        default=None,
        description="How correlations were tested; None in files before 3.0 (raw values, no "
        "correction, every extrinsic value kept).",
    )
    comparisons: ComparisonSettings | None = Field(
        default=None,
        description="How paired comparisons were corrected; None in files before 4.0 (each "
        "verdict judged on its own, uncorrected).",
    )
    report_formats: list[Literal["html", "pdf"]] = Field(
        default_factory=lambda: list[Literal["html", "pdf"]](["html", "pdf"]),
        description="Report files `audit run` writes (and `audit render` redraws).",
    )
