"""Chat templates (`chat_template: auto | <path>`): rendered as transformers renders them,
the BOS the scorers put in front removed from the rendered text, read from a model's
files, and refused clearly when a model has none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.data.items import ChoiceItem
from audit.errors import ModelSourceError
from audit.models.chat_template import ChatFormat, template_file, tokenizer_chat
from audit.scoring.inputs import CHOICE_MARK, ChoiceInput

#: SmolLM2-135M-Instruct's template, as its GGUF file carries it.
SMOLLM2 = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}"
)
LLAMA_LIKE = (
    "{{ bos_token }}{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}{{ eos_token }}"
    "{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}"
)


def _transformers_render(template: str, prompt: str, system: str | None, bos: str) -> str:
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]")),
        bos_token=bos,
        eos_token="</s>",
    )
    messages = [{"role": "user", "content": prompt}]
    if system is not None:
        messages.insert(0, {"role": "system", "content": system})
    text = tokenizer.apply_chat_template(
        messages, chat_template=template, tokenize=False, add_generation_prompt=True
    )
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("system", [None, "Answer in one word."])
@pytest.mark.parametrize(("template", "bos"), [(SMOLLM2, "<|im_start|>"), (LLAMA_LIKE, "<s>")])
def test_rendering_is_transformers_without_the_leading_bos(
    template: str, bos: str, system: str | None
) -> None:
    prompt = "Two friends met.\nQuestion: Who was late?\nAnswer:"
    chat = ChatFormat("test", template, system, bos, "</s>")
    expected = _transformers_render(template, prompt, system, bos)
    assert expected.startswith(bos)
    assert chat.render(prompt) == expected[len(bos) :]


def test_a_choice_items_prompt_is_wrapped_and_keyed_apart() -> None:
    item = ChoiceItem(
        item_id="q1",
        bias_type="Age",
        context="Two friends met.",
        question="Who was late?",
        answers=("The old one", "The young one", "Unknown"),
        label=2,
        unknown=2,
        biased=0,
        condition="ambig",
        polarity="neg",
    )
    chat = ChatFormat("test", SMOLLM2, None, "<|im_start|>", "<|im_end|>")
    raw = ChoiceInput().sides(item)
    wrapped = ChoiceInput().sides(item, chat)
    assert raw[0].texts[0] == wrapped[0].texts[0] == CHOICE_MARK
    assert wrapped[0].texts[1] == chat.render(raw[0].texts[1])
    assert wrapped[0].texts[1].endswith("<|im_start|>assistant\n")
    assert wrapped[0].texts[2:] == raw[0].texts[2:]
    assert raw[0].key != wrapped[0].key


def test_a_folder_template_and_its_special_tokens_are_read(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "chat_template": SMOLLM2,
                "bos_token": {"content": "<|im_start|>"},
                "eos_token": "<|im_end|>",
            }
        )
    )
    found = tokenizer_chat(tmp_path)
    assert (found.template, found.bos_text, found.eos_text) == (
        SMOLLM2,
        "<|im_start|>",
        "<|im_end|>",
    )
    (tmp_path / "chat_template.jinja").write_text(LLAMA_LIKE)
    assert tokenizer_chat(tmp_path).template == LLAMA_LIKE  # the .jinja file wins


def test_a_model_without_a_template_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"bos_token": "<s>"}))
    found = tokenizer_chat(tmp_path)
    with pytest.raises(ModelSourceError, match=r"model 'm': .* holds no chat template"):
        found.required_template(tmp_path, "m")
    with pytest.raises(ModelSourceError, match=r"chat_template file .* cannot be read"):
        template_file(tmp_path / "missing.jinja", "m")


def test_a_broken_template_is_an_error_naming_its_source() -> None:
    chat = ChatFormat("file /x/broken.jinja", "{% for m in messages %}", None, "", "")
    with pytest.raises(ModelSourceError, match=r"/x/broken.jinja cannot render"):
        chat.render("Q?")
