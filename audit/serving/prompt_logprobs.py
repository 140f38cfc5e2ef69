"""Sentence log-likelihoods from a completions endpoint's prompt log-probabilities,
never trusted before they are checked.

A server is asked in one of two ways (`EndpointSettings.logprobs_request`: `echo` or
vLLM's `prompt_logprobs`; `audit.serving.prompt_entries` asks and reads the answers).
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
   (`audit.serving.prompt_entries`) and no table is needed (`AlignmentProbe.first_scored`).
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

from audit.scoring.base import SentenceScore
from audit.scoring.choice import common_prefix, regroup
from audit.scoring.choice_prompt import ANSWER_SEPARATOR
from audit.serving.client import CompletionClient, EndpointError
from audit.serving.prompt_entries import EchoedTokens, from_echo, read_entries, request_body

#: A text whose next tokens a language model predicts almost surely: an aligned server's
#: top-1 prediction at entry i is token i, a shifted server's is token i + 1.
CANARY = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20"

#: Asked for as `logprobs` to receive the whole next-token distribution after the BOS.
WHOLE_VOCABULARY = 1_000_000


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
    bodies = [request_body(settings, p, prompt_entries=True, logprobs=1) for p in prompts]
    answers = client.post_many("completions", bodies, progress=progress)
    return [read_entries(client, a, p, bos_text) for a, p in zip(answers, prompts, strict=True)]


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
    body = request_body(client.settings, bos_text, prompt_entries=False, logprobs=WHOLE_VOCABULARY)
    answer = client.post("completions", body)
    echoed = from_echo(client, answer, bos_text)
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
