"""The batched engine equals the naive reference scorer to 1e-4 per sentence, for every
masked-LM score, on tiny BERT, RoBERTa, ALBERT and DistilBERT models, whatever the batch
size and the order of the input."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from audit.scoring.base import ScoringCall, SentenceScore
from audit.scoring.masked.scorers import (
    AUL_SCORER,
    AULA_SCORER,
    CPS_SCORER,
    PLL_SCORER,
    PPPL_SCORER,
    SSS_SCORER,
)
from audit.scoring.options import MaskedOptions
from tests.scoring import reference
from tests.scoring.pairs import PAIRS, SENTENCES
from tests.scoring.tiny_models import TinyModel, loaded

TOLERANCE = 1e-4

Reference = Callable[[TinyModel, str, str], tuple[float, float]]
REFERENCES_NAMES = ("aul", "aula", "cps", "pll", "pppl", "sss", "sss-reference")


def _sentencewise(score: Callable[[TinyModel, str], float]) -> Reference:
    return lambda tiny, st, at: (score(tiny, st), score(tiny, at))


REFERENCES: dict[str, tuple[object, Reference, str]] = {
    "pll": (PLL_SCORER, _sentencewise(lambda t, s: reference.pll(t.model, t.tokenizer, s)),
            "formula"),
    "pppl": (PPPL_SCORER, _sentencewise(lambda t, s: math.nan), "formula"),  # from pll
    "cps": (CPS_SCORER, lambda t, a, b: reference.cps_pair(t.model, t.tokenizer, a, b),
            "formula"),
    "sss": (SSS_SCORER, lambda t, a, b: reference.sss_pair(t.model, t.tokenizer, a, b),
            "formula"),
    "sss-reference": (
        SSS_SCORER,
        lambda t, a, b: reference.sss_pair(t.model, t.tokenizer, a, b, matrix=True),
        "reference",
    ),
    "aul": (AUL_SCORER,
            _sentencewise(lambda t, s: reference.aul(t.model, t.tokenizer, s, attention=False)),
            "formula"),
    "aula": (AULA_SCORER,
             _sentencewise(lambda t, s: reference.aul(t.model, t.tokenizer, s, attention=True)),
             "formula"),
}  # fmt: skip

# Budgets: one copy per batch, a few mixed lengths per batch, everything in one batch
# (padding-heavy). One copy per batch is slow, so two scorers cover it.
CASES = [(name, budget) for name in sorted(REFERENCES_NAMES) for budget in (90, 1_000_000)]
CASES += [("cps", 1), ("aula", 1), ("sss-reference", 1)]

_expected_cache: dict[tuple[str, str], list[tuple[float, float]]] = {}


def _expected(tiny: TinyModel, name: str) -> list[tuple[float, float]]:
    key = (tiny.name, name)
    if name == "pppl":  # exp(-PLL/n) on the reference PLL, n = tokens without specials
        n_tokens = [len(tiny.tokenizer.encode(t)) - 2 for t in SENTENCES]
        plls = [v for pair in _expected(tiny, "pll") for v in pair]
        values = [math.exp(-p / n) for p, n in zip(plls, n_tokens, strict=True)]
        return list(zip(values[::2], values[1::2], strict=True))
    if key not in _expected_cache:
        ref = REFERENCES[name][1]
        _expected_cache[key] = [ref(tiny, st, at) for st, at in PAIRS]
    return _expected_cache[key]


def _close(got: SentenceScore, want: float, *, relative: bool = False) -> bool:
    """Within 1e-4; pseudo-perplexity (an exponential) within 1e-4 relative."""
    if math.isnan(want):
        return math.isnan(got.score)
    return abs(got.score - want) <= TOLERANCE * (abs(want) if relative else 1.0)


@pytest.mark.parametrize(("name", "budget"), CASES)
def test_engine_equals_reference(masked_tiny: TinyModel, name: str, budget: int) -> None:
    scorer, _ref, compat = REFERENCES[name]
    options = MaskedOptions(batch_tokens=budget, compat=compat)  # type: ignore[arg-type]
    got = scorer.score_pairs(  # type: ignore[attr-defined]
        loaded(masked_tiny), PAIRS, ScoringCall(options, lambda _n: None)
    )
    want = _expected(masked_tiny, name)
    for (g_st, g_at), (w_st, w_at), pair in zip(got, want, PAIRS, strict=True):
        relative = name == "pppl"
        assert _close(g_st, w_st, relative=relative), (pair, g_st, w_st)
        assert _close(g_at, w_at, relative=relative), (pair, g_at, w_at)
        assert type(g_st.score) is float


def test_scores_are_informative(masked_tiny: TinyModel) -> None:
    """Guard against a vacuous comparison: the tiny models' scores vary a lot."""
    pll = [s for pair in _expected(masked_tiny, "pll") for s in pair]
    per_token = [s / len(t) for s, t in zip(pll, SENTENCES, strict=True)]
    assert np.std(per_token) > 0.05
    cps = _expected(masked_tiny, "cps")
    assert sum(abs(a - b) > 0.01 for a, b in cps) >= len(cps) // 2


def test_cps_reference_rounds_to_three_decimals(masked_tiny: TinyModel) -> None:
    options = MaskedOptions(compat="reference")
    got = CPS_SCORER.score_pairs(loaded(masked_tiny), PAIRS, ScoringCall(options, lambda _n: None))
    for (st, at), (w_st, w_at) in zip(got, _expected(masked_tiny, "cps"), strict=True):
        assert st.score == round(st.score, 3) and at.score == round(at.score, 3)
        assert abs(st.score - w_st) <= 5e-4 + TOLERANCE
        assert abs(at.score - w_at) <= 5e-4 + TOLERANCE


@pytest.mark.parametrize("scorer", [PLL_SCORER, AUL_SCORER, AULA_SCORER, CPS_SCORER, SSS_SCORER])
def test_order_and_batch_size_do_not_matter(masked_tiny: TinyModel, scorer: object) -> None:
    model = loaded(masked_tiny)
    rng = np.random.default_rng(7)
    order = rng.permutation(len(PAIRS))
    shuffled = [PAIRS[i] for i in order]
    straight = scorer.score_pairs(  # type: ignore[attr-defined]
        model, PAIRS, ScoringCall(MaskedOptions(batch_tokens=64), lambda _n: None)
    )
    permuted = scorer.score_pairs(  # type: ignore[attr-defined]
        model, shuffled, ScoringCall(MaskedOptions(batch_tokens=5000), lambda _n: None)
    )
    for position, index in enumerate(order):
        for got, want in zip(permuted[position], straight[index], strict=True):
            assert got.n_tokens == want.n_tokens
            assert got.score == pytest.approx(want.score, abs=TOLERANCE, nan_ok=True)


@pytest.mark.parametrize("scorer", [PLL_SCORER, AUL_SCORER, AULA_SCORER])
def test_sentence_scorers_score_pairs_side_by_side(masked_tiny: TinyModel, scorer: object) -> None:
    model = loaded(masked_tiny)
    options = MaskedOptions()
    alone = scorer.score_sentences(model, SENTENCES, ScoringCall(options, lambda _n: None))  # type: ignore[attr-defined]
    paired = scorer.score_pairs(model, PAIRS, ScoringCall(options, lambda _n: None))  # type: ignore[attr-defined]
    assert [s for pair in paired for s in pair] == alone


@pytest.mark.parametrize("scorer", [PLL_SCORER, AULA_SCORER, SSS_SCORER])
@pytest.mark.parametrize("budget", [90, 1_000_000])
def test_progress_counts_every_sentence_once(
    masked_tiny: TinyModel, scorer: object, budget: int
) -> None:
    calls: list[int] = []
    call = ScoringCall(MaskedOptions(batch_tokens=budget), calls.append)
    scorer.score_pairs(loaded(masked_tiny), PAIRS, call)  # type: ignore[attr-defined]
    assert sum(calls) == 2 * len(PAIRS)
    assert all(n > 0 for n in calls)
    if budget == 1_000_000 and scorer is not SSS_SCORER:
        assert len(calls) == 1  # one batch, one call: not one per item
