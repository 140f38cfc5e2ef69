"""The causal scorer (ll, ppl) equals a naive one-sentence-at-a-time reference."""

from __future__ import annotations

import math
import random

import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.scoring import causal
from audit.scoring.base import ScoringCall, ScoringInputError
from audit.scoring.causal import LL_SCORER, PPL_SCORER
from audit.scoring.options import CausalOptions
from tests.scoring.tiny_models import CAUSAL_BUILDERS, CORPUS, loaded

SENTENCES = [
    *CORPUS[:12],
    "a",  # a one-word sentence: only the BOS gives it context
    "The librarian, the mechanic, the baker and the farmer met again at the old village.",
]


def naive_ll(model: LoadedModel, text: str, *, reference: bool) -> tuple[float, int]:
    """Textbook LL: one unpadded forward pass, full log-softmax, sum over scored tokens."""
    tok = model.tokenizer
    ids = tok(text, add_special_tokens=True)["input_ids"]
    bos = tok.bos_token_id
    if not reference and bos is not None and ids[0] != bos:
        ids = [bos, *ids]
    with torch.no_grad():
        logits = model.model(torch.tensor([ids])).logits[0].double()
    logp = torch.log_softmax(logits, dim=-1)
    total = sum(float(logp[t - 1, ids[t]]) for t in range(1, len(ids)))
    return total, len(ids) - 1


@pytest.fixture(scope="module", params=sorted(CAUSAL_BUILDERS))
def model(request: pytest.FixtureRequest) -> LoadedModel:
    return loaded(CAUSAL_BUILDERS[request.param]())


@pytest.mark.parametrize("compat", ["formula", "reference"])
def test_ll_equals_naive_reference(model: LoadedModel, compat: str) -> None:
    scores = LL_SCORER.score_sentences(
        model, SENTENCES, ScoringCall(CausalOptions(compat=compat), lambda n: None)
    )
    for text, got in zip(SENTENCES, scores, strict=True):
        want, n = naive_ll(model, text, reference=compat == "reference")
        assert got.n_tokens == n
        assert got.score == pytest.approx(want, abs=1e-4)
        assert isinstance(got.score, float)


def test_formula_scores_the_first_word_and_reference_does_not(model: LoadedModel) -> None:
    text = "Women are bad at math."
    ids = model.tokenizer(text)["input_ids"]
    adds_bos = ids[0] == model.tokenizer.bos_token_id
    (formula,) = LL_SCORER.score_sentences(model, [text], ScoringCall(CausalOptions(), print))
    (reference,) = LL_SCORER.score_sentences(
        model, [text], ScoringCall(CausalOptions(compat="reference"), print)
    )
    words = len(ids) - (1 if adds_bos else 0)
    assert formula.n_tokens == words
    # SafeNLP leaves the first token unscored: the BOS if the tokenizer adds one, else word 1
    assert reference.n_tokens == len(ids) - 1
    if not adds_bos:
        assert reference.score != pytest.approx(formula.score)


def test_scores_do_not_depend_on_batch_size_or_order(
    model: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = CausalOptions()
    baseline = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    monkeypatch.setattr(causal, "CPU_TOKEN_BUDGET", 24)  # many small, padding-heavy batches
    shuffled = list(range(len(SENTENCES)))
    random.Random(3).shuffle(shuffled)
    again = LL_SCORER.score_sentences(
        model, [SENTENCES[i] for i in shuffled], ScoringCall(options, print)
    )
    for position, index in enumerate(shuffled):
        assert again[position].score == pytest.approx(baseline[index].score, abs=1e-5)
        assert again[position].n_tokens == baseline[index].n_tokens


def test_ppl_is_exp_of_mean_negative_ll(model: LoadedModel) -> None:
    options = CausalOptions()
    lls = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    ppls = PPL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    for ll, ppl in zip(lls, ppls, strict=True):
        assert ppl.score == pytest.approx(math.exp(-ll.score / ll.n_tokens), rel=1e-12)
    assert PPL_SCORER.perplexity and not LL_SCORER.perplexity


def test_progress_counts_every_sentence_once(model: LoadedModel) -> None:
    seen: list[int] = []
    LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(CausalOptions(), seen.append))
    assert sum(seen) == len(SENTENCES)
    assert len(seen) < len(SENTENCES)  # reported per batch, not per sentence


def test_pairs_score_each_side_alone(model: LoadedModel) -> None:
    options = CausalOptions()
    pairs = [(SENTENCES[0], SENTENCES[1]), (SENTENCES[2], SENTENCES[3])]
    paired = LL_SCORER.score_pairs(model, pairs, ScoringCall(options, print))
    single = LL_SCORER.score_sentences(model, SENTENCES[:4], ScoringCall(options, print))
    assert [s for pair in paired for s in pair] == single


def test_masked_model_is_refused() -> None:
    from tests.scoring.tiny_models import tiny_bert

    with pytest.raises(ScoringInputError, match="needs a causal LM"):
        LL_SCORER.score_sentences(loaded(tiny_bert()), ["x"], ScoringCall(CausalOptions(), print))


def test_full_logits_path_equals_the_chunked_head(
    model: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Models whose logits are more than the output embedding (soft-capping, scaling)
    take the full-logits path; both paths give the naive reference's numbers."""
    options = CausalOptions()
    chunked = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    monkeypatch.setattr(causal, "HEAD_CHUNK_ROWS", 3)  # many chunks, ragged last one
    small_chunks = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    monkeypatch.setattr(causal, "_head_is_plain", lambda m: False)
    full = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
    for a, b, c in zip(chunked, small_chunks, full, strict=True):
        assert a.score == pytest.approx(c.score, abs=1e-5)
        assert b.score == pytest.approx(c.score, abs=1e-5)


def test_soft_capped_logits_are_not_taken_through_the_chunked_head(model: LoadedModel) -> None:
    assert causal._head_is_plain(model)
    model.model.config.final_logit_softcapping = 30.0
    try:
        assert not causal._head_is_plain(model)
    finally:
        model.model.config.final_logit_softcapping = None


def test_sentence_longer_than_the_positions_is_a_clear_error(model: LoadedModel) -> None:
    """Past the position embeddings a clear error names the sentence, its length and the
    limit (it was an IndexError from inside the model)."""
    from audit.models.sequence_limit import sequence_limit

    limit = sequence_limit(model.model, model.tokenizer)
    assert limit is not None
    long_text = " ".join(["word"] * (limit + 5))
    with pytest.raises(ScoringInputError, match=r"sentence 1 is \d+ tokens long, more than the"):
        LL_SCORER.score_sentences(
            model, ["short one", long_text], ScoringCall(CausalOptions(), print)
        )
