"""The two ways of asking a completions endpoint for prompt log-probabilities, and their
answers read into one form (`EchoedTokens`), as `audit.serving.prompt_logprobs` uses them.

- `echo` (`echo: true, logprobs: 1, max_tokens: 1`, the OpenAI completions way; vLLM,
  llama.cpp servers): one entry per prompt token, then the one generated token; the first
  entry has no log-probability.
- `prompt_logprobs` (`prompt_logprobs: 1, return_token_ids: true`, vLLM's extension): per
  prompt position a map from token id to {logprob, rank, decoded_token}, which holds the
  prompt's own token and the top-1 prediction (one entry when they are the same token);
  position 0 is empty. With the prompt's token ids there must be one entry per id.

A server that echoes the BOS itself (vLLM, both ways) gives it the empty first entry,
which is dropped: the entries then start with the first sentence token, with its value.
One that leaves the BOS out (llama-cpp-python) starts with the first sentence token, with
none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.serving.client import CompletionClient, EndpointError, EndpointSettings


@dataclass(frozen=True)
class EchoedTokens:
    """One prompt's entries after the BOS: token texts and their log-probabilities (the
    first None where the server gives the first token no value, as llama-cpp-python's
    echo does), and each entry's top predictions."""

    tokens: list[str]
    logprobs: list[float | None]
    top: list[dict[str, float] | None]


def request_body(
    settings: EndpointSettings, prompt: str, *, prompt_entries: bool, logprobs: int
) -> dict[str, Any]:
    """A completions request for `prompt`: with its prompt's entries (as
    `settings.logprobs_request` asks for them) or, without them, for the top `logprobs`
    predictions of the token after it."""
    body: dict[str, Any] = {
        "model": settings.model,
        "prompt": prompt,
        "max_tokens": 1,
        "temperature": 0.0,
    }
    if prompt_entries and settings.logprobs_request == "prompt_logprobs":
        body |= {"prompt_logprobs": logprobs, "return_token_ids": True}
    else:
        body |= {"echo": prompt_entries, "logprobs": logprobs}
    return body


def _no_entries(client: CompletionClient, prompt: str, missing: str) -> EndpointError:
    asked = (
        "prompt_logprobs"
        if client.settings.logprobs_request == "prompt_logprobs"
        else "echo + logprobs"
    )
    other = "echo" if asked == "prompt_logprobs" else "prompt_logprobs"
    return EndpointError(
        f"endpoint {client.where}: no prompt log-probabilities for {prompt[:60]!r} (asked "
        f"{asked}; the answer has no {missing}): this server cannot score given text this "
        f"way; if it offers the other way, set `logprobs_request: {other}`"
    )


def read_entries(
    client: CompletionClient, answer: dict[str, Any], prompt: str, bos_text: str
) -> EchoedTokens:
    if client.settings.logprobs_request == "prompt_logprobs":
        echoed = _from_prompt_logprobs(client, answer, prompt, bos_text)
    else:
        echoed = from_echo(client, answer, prompt)
    return _without_bos(echoed, bos_text)


def from_echo(client: CompletionClient, answer: dict[str, Any], prompt: str) -> EchoedTokens:
    try:
        logprobs = answer["choices"][0]["logprobs"]
        tokens = list(logprobs["tokens"])
        values = list(logprobs["token_logprobs"])
        top = list(logprobs.get("top_logprobs") or [None] * len(tokens))
    except (KeyError, IndexError, TypeError) as error:
        raise _no_entries(client, prompt, f"choices[0].logprobs.{error}") from error
    if not (len(values) == len(tokens) == len(top)):
        raise EndpointError(
            f"endpoint {client.where}: {len(tokens)} echoed tokens but {len(values)} "
            f"log-probabilities and {len(top)} top lists for {prompt[:60]!r}: the server "
            "must return one log-probability per prompt token"
        )
    return EchoedTokens(tokens, values, top)


def _from_prompt_logprobs(
    client: CompletionClient, answer: dict[str, Any], prompt: str, bos_text: str
) -> EchoedTokens:
    """vLLM's `prompt_logprobs`: position 0 is empty (nothing predicts it); every other
    position maps token ids to {logprob, rank, decoded_token}, the prompt's own token among
    them (the one whose rank is not 1 when there are two entries)."""
    try:
        choice = answer["choices"][0]
        positions = list(choice["prompt_logprobs"])
    except (KeyError, IndexError, TypeError) as error:
        raise _no_entries(client, prompt, f"choices[0].{error}") from error
    ids = choice.get("prompt_token_ids")
    if isinstance(ids, list) and len(ids) != len(positions):
        raise EndpointError(
            f"endpoint {client.where}: {len(ids)} prompt token ids but {len(positions)} "
            f"prompt log-probability entries for {prompt[:60]!r}: the server must return "
            "one log-probability per prompt token"
        )
    tokens: list[str] = []
    values: list[float | None] = []
    top: list[dict[str, float] | None] = []
    for i, position in enumerate(positions):
        if position is None:
            tokens.append("")
            values.append(None)
            top.append(None)
            continue
        own_id = str(ids[i]) if isinstance(ids, list) else None
        try:
            own, text, table = _own_entry(position, own_id)
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise EndpointError(
                f"endpoint {client.where}: prompt_logprobs entry {i} of {prompt[:60]!r} is "
                f"not {{token id: {{logprob, rank, decoded_token}}}} ({error!r}); the server's "
                "answer cannot be read"
            ) from error
        tokens.append(text)
        values.append(own)
        top.append(table)
    if tokens and values[0] is None:
        # Nothing names the first position's text: it is what the later ones leave of the
        # prompt (the BOS text, or '' for a BOS the server added itself).
        rest = "".join(tokens[1:])
        if prompt.endswith(rest):
            tokens[0] = prompt[: len(prompt) - len(rest)]
        elif bos_text and prompt.startswith(bos_text):
            tokens[0] = bos_text
        if tokens[0] == "" and len(tokens) > 1:  # a BOS the server added: no sentence token
            return EchoedTokens(tokens[1:], values[1:], top[1:])
    return EchoedTokens(tokens, values, top)


def _own_entry(position: dict[str, Any], own_id: str | None) -> tuple[float, str, dict[str, float]]:
    """(the prompt token's log-probability, its text, {text: log-probability} of the
    entries) of one `prompt_logprobs` position."""
    entries = {str(k): v for k, v in position.items()}
    if own_id is not None:
        own = entries[own_id]
    elif len(entries) == 1:
        (own,) = entries.values()
    else:
        others = [v for v in entries.values() if int(v["rank"]) != 1]
        if len(others) != 1:
            raise ValueError(f"{len(entries)} entries and no token ids to tell the prompt's")
        (own,) = others
    text = own["decoded_token"]
    if not isinstance(text, str):
        raise ValueError("no decoded_token (the server runs without detokenising)")
    table = {str(v["decoded_token"]): float(v["logprob"]) for v in entries.values()}
    return float(own["logprob"]), text, table


def _without_bos(echoed: EchoedTokens, bos_text: str) -> EchoedTokens:
    """The entries after the BOS: a server that echoes the BOS (vLLM) gives it the empty
    first entry, which no sentence token owns; one that leaves it out (llama-cpp-python)
    starts with the first sentence token."""
    if (
        bos_text
        and len(echoed.tokens) > 1
        and echoed.tokens[0] == bos_text
        and echoed.logprobs[0] is None
    ):
        return EchoedTokens(echoed.tokens[1:], echoed.logprobs[1:], echoed.top[1:])
    return echoed
