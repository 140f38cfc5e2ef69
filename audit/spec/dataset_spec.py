"""The spec's `datasets:` entries: a built-in dataset by name, or a user file with its
column mapping, and the filters that keep part of it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from audit.data.request import DEFAULT_HARMFUL_LABELS
from audit.models.sources import Strict


class ColumnMap(Strict):
    """Which columns of a user file hold what. Pairs need stereotype and anti_stereotype;
    labelled sets need text and label (toxicity and group optional)."""

    id: str | None = Field(None, description="Item id column; default: the 0-based row.")
    stereotype: str | None = Field(None, description="Pairs: the more stereotypical sentence.")
    anti_stereotype: str | None = Field(
        None, description="Pairs: the less stereotypical (anti-stereotypical) sentence."
    )
    unrelated: str | None = Field(None, description="Pairs: an optional unrelated sentence.")
    bias_type: str | None = Field(
        None, description="Pairs: the bias type of each pair; default 'unspecified'."
    )
    text: str | None = Field(None, description="Labelled: the sentence.")
    label: str | None = Field(
        None, description="Labelled: harmful or benign (see `harmful_labels`)."
    )
    toxicity: str | None = Field(
        None, description="Labelled: toxicity score > 0; default 1 for every row."
    )
    group: str | None = Field(
        None, description="Labelled: target group(s), several separated by ';'."
    )


class DatasetSpec(Strict):
    """A built-in dataset by name, or a user file (`path` + `kind` + `columns`)."""

    name: str = Field(
        description="Built-in name (see `audit list datasets`) or a name of your own; "
        "unique within the spec."
    )
    kind: Literal["pairs", "labelled"] | None = Field(
        None, description="Shape of a user file; built-ins know their own."
    )
    path: str | None = Field(
        None,
        description="A user file, or an explicit copy of a built-in's file; relative paths "
        "are read from the spec file's folder, '~' is expanded.",
    )
    format: Literal["csv", "json", "jsonl", "tsv"] | None = Field(
        None, description="File format; inferred from the extension."
    )
    columns: ColumnMap | None = Field(None, description="Column mapping for a user file.")
    harmful_labels: list[str] = Field(
        default_factory=lambda: list(DEFAULT_HARMFUL_LABELS),
        description="Label values (case-insensitive) that mean harmful in a user labelled file.",
    )
    bias_types: list[str] | None = Field(None, description="Keep only these bias types.")
    groups: list[str] | None = Field(None, description="Keep only these target groups.")
    limit: int | None = Field(
        None, gt=0, strict=True, description="Keep the first N items (after the filters)."
    )
    sample: int | None = Field(
        None,
        gt=0,
        strict=True,
        description="Keep a random sample of N items (after the filters), drawn with the "
        "spec's `seed` and kept in file order; not with `limit`.",
    )
    options: dict[str, str | int | bool] = Field(
        default_factory=dict,
        description="Built-in specific options, e.g. stereoset {part: intersentence}, "
        "winobias {type: 1, split: test}.",
    )
    chat_template: str | None = Field(
        default=None,
        min_length=1,
        description="How this dataset's multiple-choice prompts (BBQ) are given to every "
        "model, overriding the models' own `chat_template` for this dataset. Not given "
        "(the default): each model's setting. 'none': raw text. 'auto': each model's own "
        "chat template. A path: a Jinja template file (relative to the spec's folder). "
        "Only for datasets of multiple-choice prompts.",
    )
    system_prompt: str | None = Field(
        default=None,
        description="A system message put before each of this dataset's prompts by its "
        "`chat_template` (needs chat_template auto or a path); the models' own "
        "system_prompt does not apply to a dataset that gives its chat_template.",
    )

    @model_validator(mode="after")
    def _system_prompt_needs_a_template(self) -> DatasetSpec:
        if self.system_prompt is not None and self.chat_template in (None, "none"):
            got = "no chat_template" if self.chat_template is None else "chat_template: none"
            raise PydanticCustomError(
                "system_prompt_without_template",
                "a dataset's system_prompt is put in place by its own chat template; "
                "the dataset gives {what}",
                {"what": got, "got": got, "expected": "chat_template: auto or a path"},
            )
        return self
