"""What a spec says about an extrinsic task (pydantic only, no torch: `audit validate`
reads it). See docs/extrinsic.md."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from audit.extrinsic.finetune.settings import FineTuneSettings

ID_PATTERN = r"^[A-Za-z0-9_.-]+$"

#: Why an extrinsic task leaves out a variant whose method changes only the output
#: distribution (Self-Debias): `audit validate`, `audit plan` and the run's log say it.
OUTPUT_ONLY_REASON = (
    "a {method} variant changes only the output distribution at scoring time and its "
    "encoder is its base's, so fine-tuning it would measure its base again"
)


class ExtrinsicSpec(BaseModel):
    """One extrinsic task, fine-tuned and measured on each audited model and variant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(description="An extrinsic task (see `audit list extrinsic`).")
    options: dict[str, Any] = Field(
        default_factory=dict, description="The task's options (data files, pair building)."
    )
    finetune: FineTuneSettings = Field(
        default_factory=FineTuneSettings,
        description="How the task head and the model are fine-tuned; `checkpoint_every` "
        "(K) sets the points of the bias-over-fine-tuning curve.",
    )
    models: list[str] | None = Field(
        default=None,
        description="Model ids to fine-tune (a base id brings its variants); default: "
        "every model and variant.",
    )
