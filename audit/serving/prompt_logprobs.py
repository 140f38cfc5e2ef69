"""Sentence log-likelihoods from a completions endpoint's prompt log-probabilities,
never trusted before they are checked.

A server is asked in one of two ways (`EndpointSettings.logprobs_request`):

- `echo`: `echo: true, logprobs: 1, max_tokens: 1` (the OpenAI completions way; vLLM,
  llama.cpp servers): one entry per prompt token, then the one generated token;
- `prompt_logprobs`: `prompt_logprobs: 1, max_tokens: 1` (vLLM's extension): per prompt
  position a map from token id to its log-probability, rank and text, which holds the
  prompt's own token and the top-1 prediction (one entry when they are the same token).

Both answers become the same `EchoedTokens`. Three things are checked or worked around:

1. **Alignment.** llama-cpp-python's server pairs each prompt token with the distribution
   that predicts the *next* token when the prompt does not start with the BOS token (its
   issues #1983 and #1276): entry i then holds log p(t_i | t_0 .. t_i), which is no
   likelihood at all. With the BOS it is right. The prompt therefore starts with the
   model's BOS text (`bos_text`, e.g. SmolLM2's "<|im_start|>", which the server reads as
   the special token), and a canary probe (`probe_alignment`) tells an aligned server from
   a shifted one before any score is kept: on "1, 2, 3, ...", the top-1 prediction of an
   aligned entry is its own token, of a shifted one the token after it.
2. **The first token.** Servers that leave the BOS out of the echo (llama-cpp-python)
   report no log-probability for the first sentence token, as the OpenAI format has it
   for the first echoed entry. Every sentence's first token is predicted from the BOS
   alone, one distribution for the whole run: `first_token_table` asks for it once, in
   full (`logprobs` = the vocabulary), and the first token's value is looked up by its
   text. Servers that echo the BOS itself (vLLM, both ways of asking) give it the empty
   entry and the first sentence token its value; the BOS entry is dropped
   (`_without_bos`) and no table is needed (`AlignmentProbe.first_scored`).
3. **Tokenisation.** The echoed tokens must spell the sentence exactly; the entries up to
   that point are its tokens. Anything else is an error naming the sentence (a drift is
   never a silent shift). Where the server returns the prompt's token ids
   (`prompt_logprobs` with `return_token_ids`), there must be one entry per id.

The value is the formula's log-likelihood of METHODS.md section 2 for a model whose
tokenizer adds no BOS: sum over every token of log p(t_i | BOS, t_<i). A multiple-choice
answer (`served_choice_log_likelihoods`) is scored as `choice_ll` scores it: the tokens of
`prompt + " " + answer` after their longest common prefix with the prompt's tokens.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from audit.scoring.base import SentenceScore
from audit.scoring.choice import common_prefix, regroup
from audit.scoring.choice_prompt import ANSWER_SEPARATOR
from audit.serving.client import CompletionClient, EndpointError, EndpointSettings

#: A text whose next tokens a language model predicts almost surely: an aligned server's
#: top-1 prediction at entry i is token i, a shifted server's is token i + 1.
CANARY = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20"

#: Asked for as `logprobs` to receive the whole next-token distribution after the BOS.
WHOLE_VOCABULARY = 1_000_000


@dataclass(frozen=True)
class EchoedTokens:
    """One prompt's echoed entries: token texts and their log-probabilities (None for the
    first, as the OpenAI format has it), and each entry's top predictions."""

    tokens: list[str]
    logprobs: list[float | None]
    top: list[dict[str, float] | None]


@dataclass(frozen=True)
class AlignmentProbe:
    """What the canary showed: how many entries' top-1 prediction is their own token
    (aligned) or the next one (shifted by one), and a digest of the canary's values."""

    aligned: int
    shifted: int
    entries: int
    digest: str
    first_scored: bool = False  # the first token after the BOS has its own value

    @property
    def verdict(self) -> str:
        if self.aligned > self.shifted and self.aligned * 2 >= self.entries:
            return "aligned"
        if self.shifted > self.aligned and self.shifted * 2 >= self.entries:
            return "shifted by one"
        return "undetermined"


def _body(
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


def _echoed(
    client: CompletionClient, answer: dict[str, Any], prompt: str, bos_text: str
) -> EchoedTokens:
    if client.settings.logprobs_request == "prompt_logprobs":
        echoed = _from_prompt_logprobs(client, answer, prompt, bos_text)
    else:
        echoed = _from_echo(client, answer, prompt)
    return _without_bos(echoed, bos_text)


def _from_echo(client: CompletionClient, answer: dict[str, Any], prompt: str) -> EchoedTokens:
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


def echo_prompts(
    client: CompletionClient,
    prompts: Sequence[str],
    *,
    bos_text: str = "",
    progress: Callable[[int], None] | None = None,
) -> list[EchoedTokens]:
    """Each prompt's entries (after the BOS), `in_flight` requests at a time. The prompts
    start with `bos_text` already."""
    settings = client.settings
    bodies = [_body(settings, p, prompt_entries=True, logprobs=1) for p in prompts]
    answers = client.post_many("completions", bodies, progress=progress)
    return [_echoed(client, a, p, bos_text) for a, p in zip(answers, prompts, strict=True)]


def _top1(top: dict[str, float] | None) -> str | None:
    return None if not top else max(top.items(), key=lambda kv: kv[1])[0]


def probe_alignment(client: CompletionClient, bos_text: str) -> AlignmentProbe:
    """The canary scored with the BOS in front: which way the server pairs tokens and
    distributions, and a digest of its values (the probe's fingerprint)."""
    (echoed,) = echo_prompts(client, [bos_text + CANARY], bos_text=bos_text)
    n = _prompt_length(client, echoed, CANARY, bos_text)
    aligned = sum(_top1(echoed.top[i]) == echoed.tokens[i] for i in range(1, n))
    shifted = sum(_top1(echoed.top[i]) == echoed.tokens[i + 1] for i in range(1, n - 1))
    values = [None if v is None else round(v, 4) for v in echoed.logprobs[:n]]
    digest = hashlib.sha256(json.dumps([echoed.tokens[:n], values]).encode()).hexdigest()
    return AlignmentProbe(
        aligned=aligned,
        shifted=shifted,
        entries=n - 1,
        digest=digest,
        first_scored=echoed.logprobs[0] is not None,
    )


def first_token_table(client: CompletionClient, bos_text: str) -> dict[str, float]:
    """log p(token | BOS) for every token, keyed by its text: the distribution every
    sentence's first token is drawn from."""
    body = _body(client.settings, bos_text, prompt_entries=False, logprobs=WHOLE_VOCABULARY)
    answer = client.post("completions", body)
    echoed = _from_echo(client, answer, bos_text)
    table = echoed.top[0] if echoed.top else None
    if not table:
        raise EndpointError(
            f"endpoint {client.where}: no next-token distribution after the BOS "
            f"({bos_text!r}); the first token of each sentence cannot be scored"
        )
    return dict(table)


#: How special tokens are written in a text (a chat template's `<|im_end|>`,
#: `<end_of_turn>`, `</s>`, `[INST]`): llama-cpp-python echoes such a token as '', so an
#: empty echoed token spells one of these at the place it stands.
SPECIAL_TOKEN_TEXT = re.compile(
    r"<\|[^<>|\s]{1,40}\|>|</?[A-Za-z_][A-Za-z0-9_]{0,40}>|\[/?[A-Z_]{2,12}\]"
)


def _prompt_length(
    client: CompletionClient, echoed: EchoedTokens, text: str, bos_text: str = ""
) -> int:
    """How many entries spell `text`: the echoed tokens must reproduce it exactly, except
    that an empty one stands for a special token written in the text
    (`SPECIAL_TOKEN_TEXT`: llama-cpp-python echoes those as '') and that a BOS token
    inside the text (a chat template's `<|im_start|>` when that is the BOS) has no entry
    (llama-cpp-python leaves every BOS token out of the echo)."""
    position = i = 0
    for i, token in enumerate(echoed.tokens):
        while (
            bos_text
            and token
            and text.startswith(bos_text, position)
            and not text.startswith(token, position)
        ):
            position += len(bos_text)
        if token == "" and (special := SPECIAL_TOKEN_TEXT.match(text, position)):
            token = special.group(0)
        if not text.startswith(token, position):
            break
        position += len(token)
        if position == len(text):
            return i + 1
    raise EndpointError(
        f"endpoint {client.where}: the echoed tokens spell {text[:position][:80]!r} and then "
        f"{echoed.tokens[i : i + 3] if echoed.tokens else []!r}, not the text {text[:80]!r}: "
        "the server tokenised it differently (a BOS text it does not read as one token, or "
        "a tokenizer drift)"
    )


def served_log_likelihoods(
    client: CompletionClient,
    texts: Sequence[str],
    *,
    bos_text: str,
    first: dict[str, float] | None,
    progress: Callable[[int], None] | None = None,
) -> list[SentenceScore]:
    """Sum over every token of log p(t_i | BOS, t_<i), from the echoed entries after the
    BOS; the first token's from the first-token table (`first_token_table`) where the
    server gives it none (None: the server gives every one, `AlignmentProbe.first_scored`).
    The server must have passed `probe_alignment`: the caller checks its verdict first."""
    prompts = [bos_text + t for t in texts]
    out: list[SentenceScore] = []
    for text, echoed in zip(
        texts, echo_prompts(client, prompts, bos_text=bos_text, progress=progress), strict=True
    ):
        n = _prompt_length(client, echoed, text, bos_text)
        head = echoed.logprobs[0]
        if head is None:
            token = echoed.tokens[0]
            if first is None or token not in first:
                raise EndpointError(
                    f"endpoint {client.where}: no log-probability for the first token "
                    f"{token!r} of {text[:60]!r}, and it is not in the distribution after the "
                    "BOS the server returned"
                )
            head = first[token]
        rest = echoed.logprobs[1:n]
        if not math.isfinite(head) or any(v is None or not math.isfinite(v) for v in rest):
            raise EndpointError(
                f"endpoint {client.where}: a missing log-probability inside {text[:60]!r}"
            )
        total = math.fsum([head, *(float(v) for v in rest if v is not None)])
        out.append(SentenceScore(total, n))
    return out


def served_choice_log_likelihoods(
    client: CompletionClient,
    questions: Sequence[tuple[str, Sequence[str]]],
    *,
    bos_text: str,
    progress: Callable[[int], None] | None = None,
) -> list[tuple[SentenceScore, ...]]:
    """Each answer's log P(answer | prompt): the echoed entries of `prompt + " " +
    answer` from the first token that differs from the prompt's own tokens (a token
    straddling the boundary counts as the answer's), as `choice_ll` sums them locally."""
    prompts = list(dict.fromkeys(prompt for prompt, _ in questions))
    fulls = [p + ANSWER_SEPARATOR + a for p, answers in questions for a in answers]
    echoed = echo_prompts(
        client, [bos_text + t for t in [*prompts, *fulls]], bos_text=bos_text, progress=progress
    )
    prompt_tokens = {
        p: e.tokens[: _prompt_length(client, e, p, bos_text)]
        for p, e in zip(prompts, echoed[: len(prompts)], strict=True)
    }
    owners = [p for p, answers in questions for _ in answers]
    scores: list[SentenceScore] = []
    for prompt, full, e in zip(owners, fulls, echoed[len(prompts) :], strict=True):
        n = _prompt_length(client, e, full, bos_text)
        start = max(1, common_prefix(prompt_tokens[prompt], e.tokens[:n]))
        values = e.logprobs[start:n]
        if start >= n or any(v is None or not math.isfinite(v) for v in values):
            raise EndpointError(
                f"endpoint {client.where}: no log-probability for the answer of {full[-60:]!r}"
            )
        total = math.fsum(float(v) for v in values if v is not None)
        scores.append(SentenceScore(total, n - start))
    return regroup(scores, [len(answers) for _, answers in questions])
