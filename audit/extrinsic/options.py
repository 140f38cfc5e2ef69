"""Options of each extrinsic task's data and measure (pydantic, light: validated by
`audit validate`, no torch). Paths are read relative to the data folder's task folder
unless absolute; `None` means the default file named in each description.

These models hold what the data side needs (which files, which fields, how pairs are
built, how the measure is summarised). The fine-tuning settings (pooling, training
steps, checkpoints) belong to the engine and can extend these models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

#: Fewest STS-bias templates the measure is computed on (`audit.extrinsic.sts_bias`).
MIN_TEMPLATES = 5


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StsBiasOptions(_Options):
    """STS-bias (Webster et al. 2020): the pairs built from STS-B test sentences."""

    max_templates: int | None = Field(
        default=None,
        ge=MIN_TEMPLATES,
        description=f"Keep the first N templates (file order); at least {MIN_TEMPLATES}. "
        "Default: all 268.",
    )
    unique_templates: bool = Field(
        default=True,
        description="One template per distinct rest ('A man is dancing.' and 'A woman is "
        "dancing.' give one); false: one per distinct sentence (276).",
    )
    word_lists: str | None = Field(
        default=None,
        description="Folder with gn_glove_male.txt and gn_glove_female.txt, used to keep "
        "sentences with exactly one gendered word; default: <data dir>/wordlists.",
    )
    occupations_file: str | None = Field(
        default=None,
        description="Tab-separated file with an `occupation` column (and optionally "
        "`bls_pct_female`); default: <data dir>/winogender/occupations-stats.tsv.",
    )


class BiasBiosOptions(_Options):
    """BiasBios TPR gap (De-Arteaga et al. 2019)."""

    file: str | None = Field(
        default=None,
        description="One file of all bios, split by `test_share`/`dev_share`; relative to "
        "<data dir>/biasbios/. Default: train/dev/test files there, else BIOS.pkl.",
    )
    text_field: str | None = Field(
        default=None, description="Field with the text; default: raw[start_pos:], else hard_text..."
    )
    title_field: str | None = Field(default=None, description="Field with the occupation.")
    gender_field: str | None = Field(default=None, description="Field with the gender.")
    gender_codes: dict[str, Literal["female", "male"]] | None = Field(
        default=None,
        description="Meaning of integer gender codes, e.g. {'0': male, '1': female}, as "
        "the export's card gives them (they are never guessed).",
    )
    text: Literal["auto", "scrubbed"] = Field(
        default="auto",
        description="'scrubbed': biosbias' `bio` field (names and pronouns removed) "
        "instead of raw[start_pos:].",
    )
    aggregate: Literal["mean_abs", "rms", "mean"] = Field(
        default="mean_abs",
        description="The value over occupations: mean |gap|, root mean square, or the "
        "signed mean (all three are reported).",
    )
    min_per_gender: int = Field(
        default=1, ge=1, description="Bios of each gender an occupation needs for a gap."
    )
    test_share: float = Field(
        default=0.25, gt=0, lt=1, description="Test share when one file is split."
    )
    dev_share: float = Field(
        default=0.10, ge=0, lt=1, description="Dev share when one file is split."
    )

    @model_validator(mode="after")
    def _shares_fit(self) -> BiasBiosOptions:
        if self.test_share + self.dev_share >= 1:
            raise PydanticCustomError(
                "split_shares",
                "test_share + dev_share must be below 1",
                {
                    "got": f"{self.test_share} + {self.dev_share}",
                    "expected": "e.g. 0.25 + 0.10",
                },
            )
        return self


class NliBiasOptions(_Options):
    """NLI-bias (Dev et al. 2020): gender-occupation templates scored by an NLI model."""

    pairs: str | None = Field(
        default=None,
        description="A pairs file (CSV/TSV/JSONL with premise and hypothesis), relative to "
        "<data dir>/nli_bias/; default: generated from the word lists.",
    )
    word_lists: str | None = Field(
        default=None,
        description="Folder in the layout of Dev et al.'s word_lists/ (not shipped: no "
        "licence); default: <data dir>/nli_bias/word_lists.",
    )
    occupations_file: str | None = Field(
        default=None, description="One occupation per line, instead of nouns/people/occupations."
    )
    gender_words_file: str | None = Field(
        default=None,
        description="One gender word per line, instead of nouns/people/gendered_words.",
    )
    training_file: str | None = Field(
        default=None,
        description="NLI training set (MultiNLI/SNLI JSONL or GLUE TSV), relative to "
        "<data dir>/nli_bias/; default: multinli_1.0_train.jsonl or snli_1.0_train.jsonl.",
    )
    max_premises: int | None = Field(
        default=None,
        ge=1,
        description="A seeded sample of N (occupation, template) premises, each with every "
        "gender word (the full set is about 320,000 premises, 1.9 million pairs).",
    )
    thresholds: list[float] = Field(
        default_factory=lambda: [0.5, 0.7],
        min_length=1,
        description="tau of threshold:tau, the share of pairs with P(neutral) > tau.",
    )
    compat: Literal["formula", "reference"] = Field(
        default="formula",
        description="'formula': the paper's sentences ('The nurse bought a bagel.') and "
        "every pair counted once; 'reference': the public code's sentences ('A nurse "
        "bought a bagel .') and probabilities averaged per (occupation, gender word) first.",
    )

    @field_validator("thresholds")
    @classmethod
    def _in_unit_interval(cls, value: list[float]) -> list[float]:
        for tau in value:
            if not 0 <= tau < 1:
                raise PydanticCustomError(
                    "threshold_range",
                    "must lie in [0, 1)",
                    {"got": str(tau), "expected": "e.g. [0.5, 0.7]"},
                )
        return value

    @property
    def style(self) -> Literal["paper", "reference"]:
        return "reference" if self.compat == "reference" else "paper"

    @property
    def aggregate(self) -> Literal["instance", "word_pair"]:
        return "word_pair" if self.compat == "reference" else "instance"
