"""Against a real llama-cpp-python server (slow): started here on 127.0.0.1 with the
pip-packaged SmolLM2-135M-Instruct GGUF, the one the demo audits. `.ci/run` installs
llama-cpp-python[server] (built from its source distribution; scripts/install.sh).

- The canary probe tells the server's two behaviours apart: with the BOS text in front
  the echoed entries are aligned; without it they are shifted by one position
  (llama-cpp-python issues #1983 and #1276), and no score may be kept.
- Sentence log-likelihoods through the server agree with the local PyTorch path on the
  same GGUF within a stated tolerance, not exactly: the server computes with the Q4_1
  weights themselves (and 8-bit quantised activations in its dot products), the local
  path with the weights dequantised to float32. Measured on 100 CrowS-Pairs pairs
  (2026-11-29): largest |difference| 0.124 nats per token, mean 0.028; 6 of the 100
  pairs flip their preference. The tolerance, 0.25 per token and 0.05 on average, is
  about twice what was measured. BBQ answers (`choice_ll`: the answer's 1 to 4 tokens
  after a prompt of some 60) differ more per token, the prompt's differences carried
  into a few answer tokens: on the first 20 religion questions largest 0.269 nats per
  answer token, mean 0.068, 2 of 20 chosen answers flip; held to 0.5 and 0.15.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.models.resolve import resolve_model
from audit.scoring.base import ScorerOptions, ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.choice import CHOICE_LL
from audit.serving.client import CompletionClient, EndpointSettings
from audit.serving.prompt_logprobs import (
    first_token_table,
    probe_alignment,
    served_choice_log_likelihoods,
    served_log_likelihoods,
)
from tests.serving.smollm2 import (
    BOS,
    SMOLLM2,
    answer_flips,
    bbq_questions,
    crows_texts,
    flat,
    per_token,
    preference_flips,
    quiet,
    smollm2_server,
)

pytestmark = pytest.mark.slow

PAIRS = 30
QUESTIONS = 20


@pytest.fixture(scope="module")
def server(real_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with smollm2_server(real_cache, tmp_path_factory.mktemp("llama-server")) as url:
        yield url


@pytest.fixture(scope="module")
def client(server: str) -> CompletionClient:
    return CompletionClient(EndpointSettings(server, "smollm2", in_flight=2))


@pytest.fixture(scope="module")
def local(real_cache: Path) -> LoadedModel:
    return load_model(SMOLLM2, cache_dir=real_cache, device="cpu")


def test_the_probe_tells_an_aligned_server_from_a_shifted_one(client: CompletionClient) -> None:
    with_bos = probe_alignment(client, BOS)
    plain = probe_alignment(client, "")
    assert with_bos.verdict == "aligned", with_bos
    assert plain.verdict == "shifted by one", plain
    assert with_bos.digest != plain.digest
    # the probe is a fingerprint: the same server, model and text give the same digest
    assert probe_alignment(client, BOS).digest == with_bos.digest


def test_served_log_likelihoods_agree_with_the_local_path(
    client: CompletionClient, local: LoadedModel, shared_data: Path
) -> None:
    texts = crows_texts(shared_data, PAIRS)
    first = first_token_table(client, BOS)
    assert len(first) > 40_000  # the whole distribution after the BOS, by token text
    served = served_log_likelihoods(client, texts, bos_text=BOS, first=first)
    mine = LL_SCORER.score_sentences(local, texts, ScoringCall(ScorerOptions(), quiet))
    gaps, flips = per_token(served, mine), preference_flips(served, mine)
    print(
        f"served vs local on {PAIRS} CrowS-Pairs pairs: largest {gaps.max():.3f} nats per "
        f"token, mean {gaps.mean():.3f}; {flips} preference(s) flipped"
    )
    assert gaps.max() < 0.25 and gaps.mean() < 0.05
    assert flips <= PAIRS // 5


def test_served_bbq_answers_agree_with_the_local_choice_scorer(
    client: CompletionClient, local: LoadedModel, shared_data: Path
) -> None:
    questions = bbq_questions(shared_data, QUESTIONS)
    served = served_choice_log_likelihoods(client, questions, bos_text=BOS)
    mine = CHOICE_LL.score_choices(local, questions, ScoringCall(ScorerOptions(), quiet))
    gaps, flips = per_token(flat(served), flat(mine)), answer_flips(served, mine)
    print(
        f"served vs local on {QUESTIONS} BBQ questions: largest {gaps.max():.3f} nats per "
        f"answer token, mean {gaps.mean():.3f}; {flips} answer(s) flipped"
    )
    assert gaps.max() < 0.5 and gaps.mean() < 0.15
    assert flips <= QUESTIONS // 5


def test_chat_templated_answers_through_the_server_agree_with_the_local_path(
    client: CompletionClient, local: LoadedModel, shared_data: Path, real_cache: Path
) -> None:
    """The model's own chat template (from the GGUF file), applied client-side to a served
    model's prompts: the answers' log-likelihoods agree with the local path scoring the
    same rendered prompts, within the BBQ tolerance above."""
    from audit.models.chat_template import ChatFormat, tokenizer_chat

    resolved = resolve_model(SMOLLM2, cache_dir=real_cache)
    assert resolved.gguf_file is not None
    files = tokenizer_chat(resolved.directory / resolved.gguf_file)
    assert files.template is not None and files.bos_text == BOS
    chat = ChatFormat("auto", files.template, None, files.bos_text, files.eos_text)
    questions = bbq_questions(shared_data, 4, chat.render)
    assert all(
        p.startswith("system\n") and p.endswith("<|im_start|>assistant\n") for p, _ in questions
    )
    served = served_choice_log_likelihoods(client, questions, bos_text=BOS)
    mine = CHOICE_LL.score_choices(local, questions, ScoringCall(ScorerOptions(), quiet))
    gaps = per_token(flat(served), flat(mine))
    assert gaps.max() < 0.5 and gaps.mean() < 0.15
