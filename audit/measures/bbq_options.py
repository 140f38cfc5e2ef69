"""Options of the BBQ measures (pydantic only, so the catalog imports no numerics)."""

from __future__ import annotations

from pydantic import Field

from audit.measures.options import FormulaOnlyOptions


class BbqOptions(FormulaOnlyOptions):
    """How an answer is predicted from the answers' scores."""

    length_normalised: bool = Field(
        default=False,
        description="Predict the answer with the highest score per answer token (score / "
        "n_tokens) instead of the highest summed score.",
    )
