"""The engine on the real minilm-mlm model and real CrowS-Pairs rows (slow tier)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.scoring.base import ScoringCall
from audit.scoring.masked.scorers import AUL_SCORER, AULA_SCORER, CPS_SCORER, PLL_SCORER, SSS_SCORER
from audit.scoring.masked.tbs import load_bolukbasi_professions, target_probabilities
from audit.scoring.options import MaskedOptions
from tests.scoring import reference

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm(minilm_dir: Path) -> LoadedModel:
    from transformers import AutoTokenizer, BertForMaskedLM

    model = BertForMaskedLM.from_pretrained(minilm_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(minilm_dir)
    return LoadedModel("minilm-mlm", "masked", model, tokenizer, torch.device("cpu"), None, "")


@pytest.fixture(scope="module")
def crows(shared_data: Path) -> list[tuple[str, str]]:
    path = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [(r["sent_more"], r["sent_less"]) for r in csv.DictReader(handle)]
    assert len(rows) == 1508
    return rows[:24]


def test_engine_equals_reference_on_crows_pairs(
    minilm: LoadedModel, crows: list[tuple[str, str]]
) -> None:
    m, t = minilm.model, minilm.tokenizer
    options = MaskedOptions(batch_tokens=512)
    checks: list[tuple[Any, Any]] = [
        (CPS_SCORER, lambda a, b: reference.cps_pair(m, t, a, b)),
        (SSS_SCORER, lambda a, b: reference.sss_pair(m, t, a, b)),
        (AUL_SCORER, lambda a, b: (reference.aul(m, t, a, attention=False),
                                   reference.aul(m, t, b, attention=False))),
        (AULA_SCORER, lambda a, b: (reference.aul(m, t, a, attention=True),
                                    reference.aul(m, t, b, attention=True))),
        (PLL_SCORER, lambda a, b: (reference.pll(m, t, a), reference.pll(m, t, b))),
    ]  # fmt: skip
    for scorer, ref in checks:
        got = scorer.score_pairs(minilm, crows, ScoringCall(options, lambda _n: None))
        for (g_st, g_at), (st_text, at_text) in zip(got, crows, strict=True):
            w_st, w_at = ref(st_text, at_text)
            assert g_st.score == pytest.approx(w_st, abs=1e-4), (scorer.name, st_text)
            assert g_at.score == pytest.approx(w_at, abs=1e-4), (scorer.name, at_text)


def test_he_she_probabilities_on_professions(minilm: LoadedModel, shared_data: Path) -> None:
    words = load_bolukbasi_professions(shared_data / "wordlists" / "professions.json")
    table = target_probabilities(minilm, words)
    assert len(table) == 320
    assert all(0 < row["he"] < 1 and 0 < row["she"] < 1 for row in table)
    assert len({round(row["he"], 6) for row in table}) > 100  # depends on the occupation
