"""The float32 check of a run scored in reduced precision (`PrecisionCheck`)."""

from __future__ import annotations

from pydantic import Field

from audit.ids import PluginId
from audit.results.record import Record


class PrecisionCheck(Record):
    """What a reduced precision (a model's `dtype: bfloat16 | float16`) changed on a seeded
    sample of one dataset's items, scored again in float32 (`audit/precision_check.py`)."""

    model: str
    dataset: str
    scorer: PluginId
    dtype: str = Field(description="The reduced dtype the run scored in, e.g. 'bfloat16'.")
    precision: str = Field(description="The run's precision, e.g. 'cuda/bfloat16'.")
    reference: str = Field(description="The float32 precision checked against.")
    seed: int = Field(description="Seed of the sample (the same items for every model).")
    items: int = Field(description="Items checked (the sample, at most the dataset).")
    verdicts: int = Field(description="Item verdicts compared (pairs: st vs at); 0 if none.")
    flipped: int | None = Field(
        description="Verdicts that differ from float32's; None when the items have no verdict "
        "of their own (labelled statements)."
    )
    max_abs_diff: float | None = Field(
        description="Largest |score - float32 score| over every side; None if no score is finite."
    )
    max_diff_item: str | None = Field(default=None, description="The item where it occurs.")
