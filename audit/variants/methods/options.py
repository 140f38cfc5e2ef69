"""Options of each variant method (pydantic, light: validated by `audit validate`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

DEFAULT_RATIOS = tuple(round(0.1 * i, 1) for i in range(11))


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WordListOption(_Options):
    word_lists: str | None = Field(
        None,
        description="Folder with gn_glove_male.txt and gn_glove_female.txt (line i of one "
        "pairs with line i of the other); default: <data dir>/wordlists.",
    )


class CdaOptions(WordListOption):
    """Counterfactual data augmentation: original + gender-swapped sentences."""

    only_gendered: bool = Field(
        False,
        description="Train only on sentences with a gendered word (and their swaps) "
        "instead of the whole corpus plus swaps.",
    )


class DropoutOptions(_Options):
    """Dropout debiasing (Webster et al. 2020)."""

    attention_dropout: float = Field(0.15, ge=0, lt=1, description="Attention dropout.")
    hidden_dropout: float = Field(0.2, ge=0, lt=1, description="Hidden-state dropout.")


class AtOptions(WordListOption):
    """All-layer token-level debiasing (Kaneko & Bollegala 2021)."""

    alpha: float = Field(0.2, ge=0, description="Weight of the debias term.")
    beta: float = Field(0.8, ge=0, description="Weight of the regulariser.")
    target_words: str | None = Field(
        None,
        description="A file of target (stereotype) words, one per line, or a JSON list "
        "(debiaswe's professions.json: the words with |definitional| < 0.5); default: the "
        "168 stereotype words of the reference code (kanekomasahiro/context-debias).",
    )
    layers: Literal["all", "first", "last"] = Field("all", description="Layers debiased.")
    level: Literal["token", "sentence"] = Field("token", description="Token or sentence level.")
    compat: Literal["formula", "reference"] = Field(
        "formula",
        description="'formula': METHODS.md; 'reference': the arithmetic of "
        "kanekomasahiro/context-debias where it differs.",
    )
    max_sentences: int | None = Field(
        None, ge=1, description="Cap on target and on attribute sentences (first N each)."
    )


class BiasControlledOptions(WordListOption):
    """Bias-controlled fine-tuning (Kaneko et al. 2023)."""

    ratios: list[float] = Field(
        default_factory=lambda: list(DEFAULT_RATIOS),
        min_length=2,
        description="Male shares r; one model per r, trained on r*N male + (1-r)*N female "
        "sentences.",
    )
    n: int | None = Field(
        None,
        ge=1,
        description="Sentences per ratio model (N); default: the smaller of the female-only "
        "and male-only counts.",
    )

    @field_validator("ratios")
    @classmethod
    def _in_unit_interval(cls, value: list[float]) -> list[float]:
        for r in value:
            if not 0 <= r <= 1:
                raise PydanticCustomError(
                    "ratio_range",
                    "must lie in [0, 1] (a ratio is the share of male sentences)",
                    {"got": str(r), "expected": "numbers from 0 to 1, e.g. [0, 0.5, 1]"},
                )
        if len(set(value)) != len(value):
            raise PydanticCustomError(
                "ratio_repeated",
                "must list each ratio once",
                {"got": str(value), "expected": "distinct ratios"},
            )
        return value


class _ProjectionOptions(_Options):
    bias_type: Literal["gender", "race", "religion"] = Field(
        "gender", description="Which word tuples of the attribute word file are used."
    )
    attribute_words: str | None = Field(
        None,
        description='bias-bench\'s bias_attribute_words.json ({"gender": [[male, female], '
        '...], "race": [[w1, w2, w3], ...], "religion": ...}); default: <data '
        "dir>/seat/bias_attribute_words.json.",
    )


class SentenceDebiasOptions(_ProjectionOptions):
    """SentenceDebias (Liang et al. 2020), as bias-bench runs it."""

    components: int = Field(
        1, ge=1, description="Principal components of the bias subspace removed (bias-bench: 1)."
    )
    max_sets: int | None = Field(
        None, ge=2, description="Cap on counterfactual sets (first N in corpus order)."
    )


class InlpOptions(_ProjectionOptions):
    """Iterative nullspace projection (Ravfogel et al. 2020), as bias-bench runs it."""

    iterations: int = Field(
        80, ge=1, description="Classifiers trained, each removing its row space (bias-bench: 80)."
    )
    max_sentences: int = Field(
        10000, ge=2, description="Sentences per class at most (bias-bench: 10000)."
    )
    compat: Literal["formula", "reference"] = Field(
        "formula",
        description="'formula': LinearSVC's objective minimised exactly (L-BFGS in torch), "
        "the rows split by the audit's seed; 'reference': bias-bench's code, scikit-learn's "
        "LinearSVC (tolerance 1e-4) and train_test_split (random_state 0), needs "
        "scikit-learn (pip install 'bias-audit[reference]').",
    )


#: bias-bench's DEBIASING_PREFIXES (benchmark/crows/crows.py, stereoset.py), verbatim
#: (its "orientiation" included): one prefix per bias type, keyed as bias-bench's command
#: line names them ("race" is its "race-color").
SELF_DEBIAS_PREFIXES: dict[str, str] = {
    "gender": "The following text discriminates against people because of their gender: ",
    "race": "The following text discriminates against people because of their race/color: ",
    "religion": "The following text discriminates against people because of their religion: ",
    "socioeconomic": "The following text discriminates against people because of their "
    "socioeconomic status/occupation: ",
    "sexual-orientation": "The following text discriminates against people because of their "
    "sexual orientiation: ",
    "age": "The following text discriminates against people because of their age: ",
    "nationality": "The following text discriminates against people because of their nationality: ",
    "disability": "The following text discriminates against people because of their disability: ",
    "physical-appearance": "The following text discriminates against people because of "
    "their physical appearance: ",
}

#: bias-bench's epsilon: the least factor a probability is multiplied by (`compat: reference`).
SELF_DEBIAS_REFERENCE_EPSILON = 0.01

SelfDebiasBiasType = Literal[
    "gender",
    "race",
    "religion",
    "socioeconomic",
    "sexual-orientation",
    "age",
    "nationality",
    "disability",
    "physical-appearance",
]


class SelfDebiasOptions(_Options):
    """Self-Debias (Schick et al. 2021), as bias-bench applies it to likelihood scoring."""

    bias_types: list[SelfDebiasBiasType] = Field(
        default_factory=lambda: list[SelfDebiasBiasType](["gender"]),
        description="Whose debiasing prefixes are used: bias-bench's one prefix per bias "
        "type ('The following text discriminates against people because of their gender: '). "
        "bias-bench uses the one of the bias type it evaluates.",
    )
    prefixes: list[str] | None = Field(
        None,
        description="Your own debiasing prefixes instead of the bias types' (each is "
        "tokenised alone and put before the text).",
    )
    decay: float = Field(
        50.0,
        ge=0,
        description="The decay constant lambda of alpha(x) = exp(lambda x) for x < 0 "
        "(bias-bench: 50); 0 leaves the distribution unchanged.",
    )
    compat: Literal["formula", "reference"] = Field(
        "formula",
        description="'formula': the paper's alpha; 'reference': bias-bench's arithmetic, "
        "alpha floored at epsilon = 0.01.",
    )

    @field_validator("bias_types")
    @classmethod
    def _distinct_types(cls, value: list[str]) -> list[str]:
        if not value:
            raise PydanticCustomError(
                "bias_types_empty",
                "no bias type given",
                {"expected": f"one or more of {', '.join(SELF_DEBIAS_PREFIXES)}"},
            )
        if len(set(value)) != len(value):
            raise PydanticCustomError(
                "bias_types_repeated",
                "a bias type is listed twice",
                {"got": ", ".join(value), "expected": "distinct bias types"},
            )
        return value

    @field_validator("prefixes")
    @classmethod
    def _usable_prefixes(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return value
        if not value:
            raise PydanticCustomError(
                "prefixes_empty",
                "`prefixes` is empty",
                {"expected": "at least one prefix, or leave `prefixes` out for the bias types'"},
            )
        blank = [i for i, p in enumerate(value) if not p.strip()]
        if blank:
            raise PydanticCustomError(
                "prefix_blank",
                "prefix {index} is blank",
                {"index": blank[0], "expected": "text such as 'The following text is biased: '"},
            )
        if len(set(value)) != len(value):
            raise PydanticCustomError(
                "prefixes_repeated",
                "a prefix is listed twice",
                {"expected": "distinct prefixes"},
            )
        return value

    @model_validator(mode="after")
    def _types_or_prefixes(self) -> SelfDebiasOptions:
        if self.prefixes is not None and "bias_types" in self.model_fields_set:
            raise PydanticCustomError(
                "prefixes_or_bias_types",
                "give `bias_types` or `prefixes`, not both",
                {"expected": "`bias_types: [gender]` (bias-bench's) or your own `prefixes`"},
            )
        return self

    def prefix_texts(self) -> tuple[str, ...]:
        """The debiasing prefixes: `prefixes`, else the bias types' in the order given."""
        if self.prefixes is not None:
            return tuple(self.prefixes)
        return tuple(SELF_DEBIAS_PREFIXES[t] for t in self.bias_types)

    def epsilon(self) -> float:
        """The floor of alpha: 0 for the paper's formula, bias-bench's 0.01 for reference."""
        return SELF_DEBIAS_REFERENCE_EPSILON if self.compat == "reference" else 0.0
