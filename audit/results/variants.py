"""Result records of variants: how each variant was trained, the corpora it was trained
on (Kaneko et al. 2022 Table 1), the he/she probe and the meta-evaluation of measures
(Kaneko et al. 2023). Plain pydantic, JSON-safe, embedded in results.json; readers need
no torch and no registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from audit.ids import PluginId
from audit.results.detection import DetectionLimit
from audit.results.record import Record


class LossPoint(Record):
    step: int
    loss: float
    terms: dict[str, float] = Field(
        default_factory=dict, description="Loss terms, e.g. AT's debias and regulariser."
    )


class TrainingSummary(Record):
    """What one training did (written to the variant's cache folder, copied to results)."""

    objective: str = Field(
        description="The training objective's name: masked_lm, causal_lm, at or a plug-in's own."
    )
    steps: int
    examples: int = Field(description="Training examples (sentences) available.")
    tokens: int = Field(description="Non-padding tokens processed over all steps.")
    seconds: float = Field(description="Wall time of the training itself (all sessions).")
    device: str
    resumed_from_step: int | None = Field(
        None, description="The checkpoint step an interrupted training resumed from."
    )
    first_loss: float | None = None
    last_loss: float | None = None
    curve: list[LossPoint] = Field(
        default_factory=list, description="Mean loss of every logged window of steps."
    )
    trainable_parameters: int | None = None


class ProbeOccupation(Record):
    occupation: str
    p_he: float
    p_she: float


class ProbeRecord(Record):
    """P(he) vs P(she) on "[MASK] is a/an <occupation>." (masked LMs) or P("He is a/an
    <occupation>.") vs P("She ...") (causal LMs): the check that a bias control worked."""

    template: str
    he: str = Field(description="The male token or word compared, e.g. 'he'.")
    she: str
    occupations: list[ProbeOccupation]
    mean_p_he: float
    mean_p_she: float
    he_share: float = Field(description="Mean over occupations of p_he / (p_he + p_she).")


class VariantRecord(Record):
    """One trained variant model, audited like any model (its id is in `models`)."""

    id: str
    base: str
    method: PluginId = Field(description="The method and its options.")
    entry: str = Field(description="The spec's variant id (the ratio models share it).")
    ratio: float | None = Field(None, description="bias_controlled: the male share r.")
    corpus: str
    corpus_sha256: str
    training_examples: int = Field(description="Sentences the method trained on.")
    training: dict[str, Any] = Field(description="The training settings, seed filled in.")
    key: str = Field(
        description="Cache key: base fingerprint, method, options, training, corpus hash, seed."
    )
    cached: bool = Field(description="True when this run reused a trained model.")
    summary: TrainingSummary
    probe: ProbeRecord | None = None


class CorpusRecord(Record):
    """A training corpus as Kaneko et al. 2022 Table 1 describes one."""

    name: str
    source: str
    sha256: str
    sentences: int
    female_only: int
    male_only: int
    mixed: int
    neutral: int
    ilps: float | None = Field(None, description="log(P_f / P_m); negative = male-skewed.")
    ilps_ci_low: float | None = None
    ilps_ci_high: float | None = None
    ilps_note: str = ""
    used_by: list[str] = Field(default_factory=list, description="Variant entries using it.")


class CorrelationWithRatio(Record):
    """One measure's values across the ratio models and its correlation with r."""

    measure: PluginId
    dataset: str
    scorer: PluginId
    label: str
    values: list[float | None] = Field(description="One per ratio, in `ratios` order.")
    n: int = Field(description="Ratio models with a value.")
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    spearman_p_corrected: float | None = Field(
        default=None,
        description="`spearman_p` corrected over the table's series (one per set of rows with "
        "identical values) by the meta-evaluation's `correction` (4.0).",
    )
    spearman_ci_low: float | None = Field(
        None,
        description="Bootstrap CI of Spearman's rho: over the ratio models, and since 4.0 "
        "also over the items within each ratio model's data when `items_resampled`.",
    )
    spearman_ci_high: float | None = None
    items_resampled: bool = Field(
        default=False,
        description="The intervals (rho's and the gap's) come from a two-level bootstrap: "
        "the ratio models resampled, and within each the benchmark items (4.0). False: the "
        "ratio models only, and the interval leaves the item noise out.",
    )
    rank: int | None = Field(
        None,
        description="1 = strongest |Spearman|; rows with the same values on every ratio "
        "model are one series and share a rank (from version 3.0); None when not ranked "
        "(control failed, or no Spearman).",
    )
    gap_to_first: float | None = Field(
        default=None,
        description="|Spearman| of rank 1 minus this row's; None for rank 1 and unranked.",
    )
    gap_to_first_ci_low: float | None = Field(
        default=None,
        description="Paired bootstrap CI of the gap (the ratio models both series have, "
        "resampled together).",
    )
    gap_to_first_ci_high: float | None = None
    ties_first: bool | None = Field(
        default=None,
        description="True when not told apart from rank 1 (the gap's CI reaches 0, or no CI); "
        "False when the CI lies above 0; None for rank 1, unranked rows and files before 3.0.",
    )
    note: str = ""


class ControlCheck(Record):
    """Did the bias control work? The probe's he-share should rise with r."""

    he_share: list[float | None] = Field(description="Probe he-share per ratio.")
    spearman: float | None = None
    spearman_p: float | None = None
    pearson: float | None = None
    worked: bool
    reason: str


class MetaEvaluation(Record):
    """Kaneko et al. 2023: rank measures by how well they follow a controlled bias."""

    entry: str
    base: str
    ratios: list[float]
    models: list[str] = Field(description="The ratio models, in `ratios` order.")
    control: ControlCheck
    rows: list[CorrelationWithRatio] = Field(
        description="Ranked by |Spearman| when the control worked, else in measure order."
    )
    correction: Literal["holm", "bh"] | None = Field(
        default=None,
        description="How `spearman_p_corrected` is corrected over the series (4.0).",
    )
    detection: DetectionLimit | None = Field(
        default=None,
        description="The smallest |rho| the corrected Spearman test can call significant "
        "with these ratio models, and its power (4.0); None in older files.",
    )


def same_series(rows: Sequence[CorrelationWithRatio]) -> list[list[CorrelationWithRatio]]:
    """The rows grouped by identical values on every ratio model, in first-seen order (one
    series of a meta-evaluation per group: its ranking and its report count them once)."""
    groups: list[list[CorrelationWithRatio]] = []
    for row in rows:
        group = next((g for g in groups if g[0].values == row.values), None)
        if group is None:
            groups.append([row])
        else:
            group.append(row)
    return groups
