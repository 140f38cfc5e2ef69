"""Self-Debias on CUDA: the causal (ll) and masked (pll, cps, aula) scores of tiny random
models with Self-Debias equal the CPU's in float32 (exact by default), and stay close
under bfloat16 autocast (an option that changes numbers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.models.self_debias import SelfDebiasSettings, prepare_self_debias
from audit.scoring.base import ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.masked.scorers import AULA_SCORER, CPS_SCORER, PLL_SCORER
from audit.scoring.options import CausalOptions, MaskedOptions
from tests.scoring.tiny_models import TinyModel, loaded, tiny_bert, tiny_gpt2, tiny_llama

pytestmark = pytest.mark.gpu

PREFIXES = (
    "The following text discriminates against people because of their gender: ",
    "The following text is rude: ",
)
TEXTS = [
    "The nurse said she was tired.",
    "He is an engineer.",
    "Old people cannot use computers at all.",
    "The poor are really lazy and never work.",
]
PAIRS = [(TEXTS[0], "The nurse said he was tired."), (TEXTS[1], "She is an engineer.")]
FLOAT32_TOLERANCE = 2e-3  # summed log-probs of a sentence, float32 on two devices
BF16_TOLERANCE = 1.0


def _on(model: LoadedModel, device: str, autocast: torch.dtype | None = None) -> LoadedModel:
    moved = replace(
        model, model=model.model.to(device), device=torch.device(device), autocast_dtype=autocast
    )
    settings = SelfDebiasSettings(PREFIXES, 50.0, 0.0)
    return replace(
        moved,
        self_debias=prepare_self_debias(settings, moved.tokenizer, moved.model, "sd"),
    )


def _ll(model: LoadedModel) -> list[float]:
    scores = LL_SCORER.score_sentences(model, TEXTS, ScoringCall(CausalOptions(), lambda n: None))
    return [s.score for s in scores]


@pytest.mark.parametrize("build", [tiny_gpt2, tiny_llama], ids=["gpt2", "llama"])
def test_causal_self_debias_on_cuda_equals_cpu(build: Callable[[], TinyModel]) -> None:
    base = loaded(build())
    cpu = _ll(_on(base, "cpu"))
    cuda = _ll(_on(base, "cuda"))
    bf16 = _ll(_on(base, "cuda", torch.bfloat16))
    assert max(abs(a - b) for a, b in zip(cpu, cuda, strict=True)) < FLOAT32_TOLERANCE
    assert max(abs(a - b) for a, b in zip(cpu, bf16, strict=True)) < BF16_TOLERANCE


def test_masked_self_debias_on_cuda_equals_cpu() -> None:
    bert = loaded(tiny_bert())

    def scores(device: str) -> dict[str, list[float]]:
        model = _on(bert, device)
        out = {
            "pll": [
                s.score
                for s in PLL_SCORER.score_sentences(
                    model, TEXTS, ScoringCall(MaskedOptions(), lambda n: None)
                )
            ]
        }
        for scorer in (CPS_SCORER, AULA_SCORER):
            pairs = scorer.score_pairs(model, PAIRS, ScoringCall(MaskedOptions(), lambda n: None))
            out[scorer.name] = [s.score for pair in pairs for s in pair]
        return out

    cpu, cuda = scores("cpu"), scores("cuda")
    for name, values in cpu.items():
        worst = max(abs(a - b) for a, b in zip(values, cuda[name], strict=True))
        assert worst < FLOAT32_TOLERANCE, (name, worst)
