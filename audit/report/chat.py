"""Page 1 and the model table on chat templates: which models' multiple-choice prompts
were wrapped in a chat template, which template and with what system prompt
(results.json `models[].chat_template`). Without one, prompts are raw text, as the
published protocols score them, and nothing is said."""

from __future__ import annotations

from audit.report.formatting import join_words
from audit.report.index import MeasurementIndex
from audit.report.model import SummaryBlock
from audit.results import ChatTemplateRecord

#: Hex digits of a template's sha256 shown in reports (all 64 are in results.json).
TEMPLATE_DIGITS = 12


def template_words(chat: ChatTemplateRecord) -> str:
    """'auto: the model's own, from x.gguf (sha256 abc), with a system prompt'."""
    system = ", with a system prompt" if chat.system_prompt is not None else ""
    return f"{chat.source} (sha256 {chat.sha256[:TEMPLATE_DIGITS]}){system}"


def chat_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: the models whose multiple-choice prompts were wrapped in a chat template
    (empty when none was)."""
    wrapped = [m for m in index.result.models if m.chat_template is not None]
    if not wrapped:
        return []
    lines = [
        (f"{m.id}: " if len(wrapped) > 1 else "") + template_words(m.chat_template)
        for m in wrapped
        if m.chat_template is not None
    ]
    raw = [m.id for m in index.result.models if m.chat_template is None]
    text = (
        f"The multiple-choice prompts of {join_words([m.id for m in wrapped])} were wrapped in "
        "a chat template, each answer scored after the assistant's turn begins: "
        + "; ".join(lines)
        + ". The published protocols score raw text"
        + (f", as this run did for {join_words(raw)}" if raw else "")
        + "; sentence datasets are never wrapped."
    )
    return [SummaryBlock(heading="Chat templates.", text=text, items=[])]
