"""Options models of the measures (pydantic only, so the catalog imports no numerics).

Every model forbids unknown keys. `compat: reference` reproduces a published code's
arithmetic where it differs from the published formula (METHODS.md); measures whose
formula and reference code agree accept only `compat: formula`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from audit.measures.base import MeasureOptions


class FormulaOnlyOptions(MeasureOptions):
    """Options of a measure without a separate reference arithmetic."""

    compat: Literal["formula"] = Field(
        default="formula", description="Only 'formula': the reference code computes the same."
    )


class DivergenceOptions(MeasureOptions):
    """KLS / JSS: `compat: reference` = the published code (standard deviations with n-1;
    for JSS also the moment-matched mixture, KL in nats and the min/max folding)."""

    normality_level: float = Field(
        default=0.05,
        gt=0,
        lt=1,
        description="Shapiro-Wilk level below which a score set carries a 'not normal' caveat.",
    )


class NormalityOptions(FormulaOnlyOptions):
    """Shapiro-Wilk of the S_st and S_at score sets."""

    level: float = Field(default=0.05, gt=0, lt=1, description="Level of the 'normal' verdict.")


class SafetyScoreOptions(MeasureOptions):
    """`compat: reference` drops target groups whose Mann-Whitney p > 0.05 (SafeNLP);
    the default keeps them and flags those not significant at the audit's alpha."""


class IlpsOptions(FormulaOnlyOptions):
    """ILPS of a text corpus: the corpus file and the paired gender word lists."""

    corpus: str = Field(description="UTF-8 text file, one document or sentence per line.")
    male_words: str = Field(description="Male word list, one word per line (paired by line).")
    female_words: str = Field(description="Female word list, line i pairs with male line i.")
