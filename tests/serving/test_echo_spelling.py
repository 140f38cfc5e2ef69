"""How echoed tokens are matched to the text they spell, on echoes shaped as llama-cpp-python's
server returns them (its response code detokenises each token without `special` and skips
every BOS token): special tokens inside a chat-templated prompt come back as '', a BOS
token inside the text not at all. tests/serving/test_llama_cpp_server.py checks it live."""

from __future__ import annotations

import pytest

from audit.serving.client import CompletionClient, EndpointError, EndpointSettings
from audit.serving.prompt_entries import EchoedTokens
from audit.serving.prompt_logprobs import _prompt_length

CLIENT = CompletionClient(EndpointSettings("http://127.0.0.1:9/v1", "m"))
BOS = "<|im_start|>"


def _echo(*tokens: str) -> EchoedTokens:
    return EchoedTokens(list(tokens), [None] * len(tokens), [None] * len(tokens))


def test_plain_text_is_spelled_token_by_token() -> None:
    echoed = _echo("The", " cat", " sat", ".", " extra")
    assert _prompt_length(CLIENT, echoed, "The cat sat.", BOS) == 4


def test_a_templated_prompt_with_special_tokens_and_a_bos_inside() -> None:
    text = "system\nBe brief.<|im_end|>\n<|im_start|>user\nHi?<|im_end|>\n<|im_start|>assistant\n"
    # as the server echoes it: <|im_end|> as '', each inner <|im_start|> (the BOS) left out
    echoed = _echo(
        "system", "\n", "Be", " brief", ".", "", "\n", "user", "\n", "Hi", "?", "", "\n",
        "assistant", "\n", "The",
    )  # fmt: skip
    assert _prompt_length(CLIENT, echoed, text, BOS) == 15


def test_a_drift_is_an_error_naming_the_text() -> None:
    with pytest.raises(EndpointError, match=r"spell 'The' and then \[' dog'\]"):
        _prompt_length(CLIENT, _echo("The", " dog"), "The cat", BOS)
    with pytest.raises(EndpointError, match="tokenised it differently"):
        _prompt_length(CLIENT, _echo(), "The cat", BOS)
