"""What a run read and did: the models and datasets as read, the scoring units (and the
combinations left out) and the environment."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from audit.ids import PluginId
from audit.results.record import Record


class EndpointRecord(Record):
    """A served model as audited (results_version 4.1): where it was reached (never with
    credentials), what the server said it was, and the probe that fingerprints it."""

    url: str = Field(description="The endpoint, without user, password or query.")
    model: str = Field(description="The model name the requests used.")
    server_model: str = Field(description="The id the server listed for it.")
    revision: str | None = Field(default=None, description="The revision the spec stated.")
    bos_text: str = ""
    probe_digest: str = Field(
        description="sha256 of the canary's echoed tokens and log-probabilities."
    )
    probe_verdict: str = Field(description="'aligned': prompt log-probabilities line up.")
    probe_changed_from: str | None = Field(
        default=None,
        description="The digest the previous run on the same cache saw, when it differed "
        "(then no cached score was reused).",
    )
    logprobs_request: str = Field(
        default="echo",
        description="How prompt log-probabilities were asked for (4.2): 'echo' (echo with "
        "logprobs) or 'prompt_logprobs' (vLLM's extension).",
    )


class ChatTemplateRecord(Record):
    """The chat template a model's multiple-choice prompts were wrapped in (4.1)."""

    source: str = Field(
        description="'auto: the model's own, from <file>' (', applied client-side' for a "
        "served model) or 'file <path>'."
    )
    sha256: str = Field(description="Of the template, system prompt, BOS and EOS texts.")
    system_prompt: str | None = None


class ModelRecord(Record):
    """A model as audited: where it came from and what exactly it was."""

    id: str
    source: str
    model_type: Literal["masked", "causal"]
    fingerprint: str
    n_parameters: int | None = None
    device: str = "cpu"
    precision: str = "float32"
    endpoint: EndpointRecord | None = Field(
        default=None, description="A served model's endpoint and probe (4.1)."
    )
    chat_template: ChatTemplateRecord | None = Field(
        default=None,
        description="The chat template its multiple-choice prompts were wrapped in; none: "
        "raw text, as the published protocols score them (4.1).",
    )


class DatasetChatRecord(Record):
    """A dataset's own chat template (spec `datasets[].chat_template`, 4.1): the setting
    and the template each model's prompts of the dataset were wrapped in (it wins over
    the model's own, `models[].chat_template`, on this dataset)."""

    setting: str = Field(description="'none', 'auto' or the template file, as the spec says.")
    system_prompt: str | None = None
    models: dict[str, ChatTemplateRecord | None] = Field(
        description="Model id -> the template its prompts of this dataset were wrapped "
        "in; null: raw text."
    )


class DatasetRecord(Record):
    """A dataset as read: file, checksum and an account of every row."""

    name: str
    shape: Literal["pairs", "labelled", "choices"]
    source: str
    sha256: str
    rows_read: int
    rows_kept: int
    skipped: dict[str, int] = Field(default_factory=dict)
    filtered: dict[str, int] = Field(default_factory=dict)
    groups: dict[str, int] = Field(
        default_factory=dict, description="Items per bias type (pairs) or target group."
    )
    chat_template: DatasetChatRecord | None = Field(
        default=None,
        description="The dataset's own chat template, when the spec gives one (4.1); absent "
        "from the file otherwise (the models' own apply).",
    )

    @model_serializer(mode="wrap")
    def _absent_without_own_template(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A dataset without its own chat template is written as before it existed."""
        data = handler(self)
        if self.chat_template is None and isinstance(data, dict):
            data.pop("chat_template", None)
        return data


class UnitRecord(Record):
    """One scoring unit (model x dataset x scorer) and how it ran."""

    model: str
    dataset: str
    scorer: PluginId
    sentences: int
    computed: int = Field(description="Cache entries computed in this run.")
    cached: int = Field(description="Cache entries reused from earlier runs.")
    corrupt: int = Field(default=0, description="Cache entries found corrupt and recomputed.")
    set_aside: list[str] = Field(
        default_factory=list,
        description="Cache database files an integrity check proved corrupt, set aside "
        "(renamed) and recomputed (results_version 2.2).",
    )
    seconds: float


class SkippedUnit(Record):
    """A combination the plan left out, and why."""

    model: str
    dataset: str
    scorer: PluginId
    reason: str


class Environment(Record):
    python: str
    platform: str
    device: str
    packages: dict[str, str]
