"""A model's chat template, applied to the prompts of multiple-choice items (BBQ) when the
spec asks for it (`chat_template: auto | <path>`, with an optional `system_prompt`).

The published protocols score raw text, so `none` is the default. With a template, an
item's prompt becomes the user message (after the system prompt, if any) rendered with
`add_generation_prompt`, and each answer is scored after it as without one. The
template comes from the model's own files (`auto`: a GGUF file's
`tokenizer.chat_template`, a folder's `chat_template.jinja` or `tokenizer_config.json`;
for a served model, the files the spec names with `tokenizer:`) or from a Jinja file.
A dataset may give its own (`datasets[].chat_template`), which wins over the model's
for that dataset's prompts (`DatasetChats`).

Rendering is Jinja in a sandbox, with `raise_exception` and the BOS and EOS texts, as
transformers' `apply_chat_template` renders. A rendered prompt that begins with the
BOS token's text loses it there: every scorer puts the BOS in front of each text itself
(locally by token id, through an endpoint as `bos_text`), so the token sequence is the
template's, with one BOS.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import ModelSourceError


@dataclass(frozen=True)
class ChatFormat:
    """How a model's prompts are wrapped: the template text, where it came from, the
    system prompt and the BOS / EOS texts the template may use."""

    source: str  # "auto (<where>)" or the template file's path
    template: str
    system_prompt: str | None
    bos_text: str
    eos_text: str

    @property
    def sha256(self) -> str:
        """Identity of the rendering: template, system prompt, BOS and EOS texts."""
        data = [self.template, self.system_prompt, self.bos_text, self.eos_text]
        return hashlib.sha256(json.dumps(data).encode("utf-8")).hexdigest()

    def render(self, prompt: str) -> str:
        """`prompt` as the user's message, ready for the answer (generation prompt added)."""
        from jinja2.exceptions import TemplateError

        messages = [{"role": "user", "content": prompt}]
        if self.system_prompt is not None:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        try:
            text = str(
                _compiled(self.template).render(
                    messages=messages,
                    add_generation_prompt=True,
                    bos_token=self.bos_text,
                    eos_token=self.eos_text,
                )
            )
        except TemplateError as error:
            raise ModelSourceError(
                f"chat template from {self.source} cannot render a prompt: {error}"
            ) from error
        if self.bos_text and text.startswith(self.bos_text):
            text = text[len(self.bos_text) :]
        return text


@dataclass(frozen=True)
class DatasetChats:
    """The chat templates of a model's prompts on the datasets that give their own
    (`datasets[].chat_template`): (dataset name, template; None: raw text) pairs. They
    win over the model's own template on those datasets."""

    chats: tuple[tuple[str, ChatFormat | None], ...] = ()

    def pick(self, dataset: str, model_chat: ChatFormat | None) -> ChatFormat | None:
        """The template `dataset`'s prompts are wrapped in: its own, else the model's."""
        for name, chat in self.chats:
            if name == dataset:
                return chat
        return model_chat

    def names(self) -> tuple[str, ...]:
        """The datasets that give their own chat template."""
        return tuple(name for name, _ in self.chats)


@functools.lru_cache(maxsize=16)
def _compiled(template: str) -> Any:
    """A template compiled once per process (a ChatFormat stays plain, picklable data)."""
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(template)


def template_file(path: Path, model_id: str) -> str:
    """A chat template from a Jinja file (or a tokenizer_config.json holding one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ModelSourceError(
            f"model '{model_id}': chat_template file {path} cannot be read ({error}); "
            "expected a Jinja template file"
        ) from error
    if path.suffix == ".json":
        return TokenizerChat(_from_tokenizer_config(json.loads(text)), "", "").required_template(
            path, model_id
        )
    return text


def _from_tokenizer_config(config: dict[str, Any]) -> str | None:
    template = config.get("chat_template")
    if isinstance(template, list):  # named templates: the default one
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    return template if isinstance(template, str) and template else None


def _special_text(config: dict[str, Any], key: str) -> str:
    value = config.get(key)
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class TokenizerChat:
    """What a model's files say about chat: its template (None: it has none) and the
    texts of its BOS and EOS tokens ('' when unknown)."""

    template: str | None
    bos_text: str
    eos_text: str

    def required_template(self, location: Path, model_id: str) -> str:
        """The template, or an error for `chat_template: auto` without one."""
        if self.template is None:
            raise ModelSourceError(
                f"model '{model_id}': {location} holds no chat template (chat_template: "
                "auto); give a Jinja file as chat_template, or use chat_template: none"
            )
        return self.template


def tokenizer_chat(location: Path) -> TokenizerChat:
    """A model's chat template and BOS / EOS texts from its files: a GGUF file's metadata,
    or a transformers folder's chat_template.jinja / tokenizer_config.json."""
    if location.suffix == ".gguf":
        return _gguf_chat(location)
    config_path = location / "tokenizer_config.json"
    config: dict[str, Any] = {}
    if config_path.is_file():
        config = json.loads(config_path.read_text(encoding="utf-8"))
    jinja = location / "chat_template.jinja"
    template = (
        jinja.read_text(encoding="utf-8") if jinja.is_file() else _from_tokenizer_config(config)
    )
    return TokenizerChat(
        template, _special_text(config, "bos_token"), _special_text(config, "eos_token")
    )


def _gguf_chat(path: Path) -> TokenizerChat:
    from gguf import GGUFReader

    reader = GGUFReader(str(path))

    def field(name: str) -> Any:
        found = reader.fields.get(name)
        return None if found is None else found.contents()

    template = field("tokenizer.chat_template")
    tokens = field("tokenizer.ggml.tokens") or []

    def token(name: str) -> str:
        index = field(name)
        return str(tokens[index]) if isinstance(index, int) and 0 <= index < len(tokens) else ""

    return TokenizerChat(
        template if isinstance(template, str) and template else None,
        token("tokenizer.ggml.bos_token_id"),
        token("tokenizer.ggml.eos_token_id"),
    )
