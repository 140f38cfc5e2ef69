"""Page 1 and the model table on chat templates: which models' multiple-choice prompts
were wrapped in a chat template, which template and with what system prompt
(results.json `models[].chat_template`), and the datasets that give their prompts a
chat template of their own, which wins over the models' there
(`datasets[].chat_template`). Without any, prompts are raw text, as the published
protocols score them, and nothing is said."""

from __future__ import annotations

from audit.report.formatting import join_words
from audit.report.index import MeasurementIndex
from audit.report.model import SummaryBlock
from audit.results import ChatTemplateRecord, DatasetRecord, ModelRecord

#: Hex digits of a template's sha256 shown in reports (all 64 are in results.json).
TEMPLATE_DIGITS = 12


def template_words(chat: ChatTemplateRecord) -> str:
    """'auto: the model's own, from x.gguf (sha256 abc), with a system prompt'."""
    system = ", with a system prompt" if chat.system_prompt is not None else ""
    return f"{chat.source} (sha256 {chat.sha256[:TEMPLATE_DIGITS]}){system}"


def chat_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: the models whose multiple-choice prompts were wrapped in a chat template,
    and the datasets that gave their own (empty when there was none)."""
    own = [d for d in index.result.datasets if d.chat_template is not None]
    wrapped = [m for m in index.result.models if m.chat_template is not None]
    if not wrapped and not own:
        return []
    sentences = [_dataset_sentence(d) for d in own]
    if wrapped:
        sentences.insert(0, _models_sentence(index, wrapped, [d.name for d in own]))
    else:
        sentences.append("The published protocols score raw text.")
    return [SummaryBlock(heading="Chat templates.", text=" ".join(sentences), items=[])]


def _models_sentence(index: MeasurementIndex, wrapped: list[ModelRecord], own: list[str]) -> str:
    lines = [
        (f"{m.id}: " if len(wrapped) > 1 else "") + template_words(m.chat_template)
        for m in wrapped
        if m.chat_template is not None
    ]
    raw = [m.id for m in index.result.models if m.chat_template is None]
    return (
        f"The multiple-choice prompts of {join_words([m.id for m in wrapped])} were wrapped in "
        "a chat template"
        + (f" (except on {join_words(own)}, below)" if own else "")
        + ", each answer scored after the assistant's turn begins: "
        + "; ".join(lines)
        + ". The published protocols score raw text"
        + (f", as this run did for {join_words(raw)}" if raw else "")
        + "; sentence datasets are never wrapped."
    )


def _dataset_sentence(dataset: DatasetRecord) -> str:
    """'bbq gives its prompts its own chat template (chat_template: auto), which wins
    over the models' own: a: ...; b: raw text.'"""
    own = dataset.chat_template
    assert own is not None
    per_model = [
        f"{model_id}: " + ("raw text" if chat is None else template_words(chat))
        for model_id, chat in own.models.items()
    ]
    return (
        f"{dataset.name} gives its prompts its own chat template (chat_template: "
        f"{own.setting}), which wins over the models' own: "
        + ("; ".join(per_model) if per_model else "no model scored it")
        + "."
    )
