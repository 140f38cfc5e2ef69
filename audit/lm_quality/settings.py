"""The spec's `lm_quality:` section: which held-out text the variants' language-modelling
quality is measured on, how many of its sentences, and the rise in perplexity above which
a variant is called damaged. Plain pydantic (no torch, no registry)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from audit.models.sources import Strict

#: The built-in held-out texts (`audit.lm_quality.heldout` reads them).
STS_B_TEST = "sts_b_test"
HELD_OUT_BUILTINS: dict[str, str] = {
    STS_B_TEST: (
        "the sentences of the STS Benchmark test split (sts-test.tsv in the data folder's "
        "sts_b/), which the built-in training corpus sts_b leaves out"
    ),
}
#: The largest damage threshold accepted: a rise of 1000% (perplexity x 11).
MAX_THRESHOLD = 10.0


class HeldOutTextSpec(Strict):
    """The held-out text: a built-in (`sts_b_test`) or a user file (one sentence per line,
    or CSV/TSV/JSONL with `column`), read as a training corpus is."""

    name: str | None = Field(
        None, description=f"A built-in held-out text: {', '.join(HELD_OUT_BUILTINS)}."
    )
    path: str | None = Field(
        None,
        description="A user file: .txt (one sentence per line), .csv/.tsv or .jsonl (with "
        "`column`); relative paths are read from the spec file's folder.",
    )
    column: str | None = Field(None, description="CSV/TSV/JSONL: the column with the text.")

    @field_validator("name")
    @classmethod
    def _known_name(cls, value: str | None) -> str | None:
        if value is not None and value not in HELD_OUT_BUILTINS:
            raise PydanticCustomError(
                "heldout_name",
                "'{got}' is not a built-in held-out text",
                {"got": value, "expected": ", ".join(HELD_OUT_BUILTINS) + ", or a `path:`"},
            )
        return value

    @model_validator(mode="after")
    def _one_source(self) -> HeldOutTextSpec:
        if (self.name is None) == (self.path is None):
            raise PydanticCustomError(
                "heldout_source",
                "the held-out text is either a built-in `name` or a user file `path`",
                {"expected": f"e.g. `text: {STS_B_TEST}` or `text: {{path: heldout.txt}}`"},
            )
        return self

    @property
    def label(self) -> str:
        return self.name if self.name is not None else str(self.path)


def _text_schema(schema: dict[str, Any]) -> None:
    """The JSON Schema of `text`: a built-in's name, or the mapping."""
    ref = dict(schema)
    description = ref.pop("description", None)
    schema.clear()
    schema["anyOf"] = [{"type": "string", "enum": list(HELD_OUT_BUILTINS)}, ref]
    if description is not None:
        schema["description"] = description


def heldout_item(value: Any) -> Any:
    """The shorthand `text: sts_b_test` -> `{name: sts_b_test}`."""
    return {"name": value} if isinstance(value, str) else value


def _no_percent(value: Any) -> Any:
    if isinstance(value, str) and value.strip().endswith("%"):
        raise PydanticCustomError(
            "damage_threshold",
            "write the damage threshold as a fraction, not a percentage",
            {"got": value, "expected": "e.g. 0.1 for 10%"},
        )
    return value


def _threshold(value: float) -> float:
    if not 0 < value <= MAX_THRESHOLD:
        raise PydanticCustomError(
            "damage_threshold",
            "the damage threshold is the relative rise in perplexity, a fraction (0.1 = 10%)",
            {
                "got": str(int(value)) if float(value).is_integer() else str(value),
                "expected": f"a number above 0 and at most {MAX_THRESHOLD:g}, e.g. 0.1 for 10%",
            },
        )
    return value


DamageThreshold = Annotated[
    float,
    BeforeValidator(_no_percent),
    AfterValidator(_threshold),
    Field(json_schema_extra={"exclusiveMinimum": 0, "maximum": MAX_THRESHOLD}),
]


class LmQualitySpec(Strict):
    """The language-modelling cost of each variant: its (pseudo-)perplexity on held-out
    text against its base's, with a paired bootstrap interval of their ratio. Measured
    whenever the spec has variants (set `enabled: false` to leave it out)."""

    enabled: bool = Field(
        True, description="Measure every variant's and its base's perplexity on held-out text."
    )
    text: HeldOutTextSpec = Field(
        default_factory=lambda: HeldOutTextSpec.model_validate({"name": STS_B_TEST}),
        description=f"The held-out text: a built-in ({', '.join(HELD_OUT_BUILTINS)}) or "
        "{path: ..., column: ...}. Sentences that any variant trains on are removed from it.",
        json_schema_extra=_text_schema,
    )
    sentences: int = Field(
        500,
        ge=1,
        le=100_000,
        strict=True,
        description="Sentences drawn from the held-out text (seeded with the spec's `seed`, "
        "kept in file order); all of them when the text has fewer.",
    )
    damage_threshold: DamageThreshold = Field(
        0.10,
        description="A variant whose perplexity rose by more than this fraction of its "
        "base's (0.1 = 10%) is flagged as damaged on page 1.",
    )

    @field_validator("text", mode="before")
    @classmethod
    def _text_shorthand(cls, value: Any) -> Any:
        return heldout_item(value)
