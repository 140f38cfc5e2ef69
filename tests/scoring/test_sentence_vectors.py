"""Sentence vectors as bias-bench's SEAT takes them, and a SEAT run end to end on a tiny
masked LM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from audit.data.seat_tests import load_seat_tests
from audit.measures.seat import seat_statistic
from audit.measures.seat_options import SeatOptions
from audit.measures.seat_run import run_seat, seed_of_test
from audit.scoring.base import ScoringInputError
from audit.scoring.sentence_vectors import sentence_vectors
from tests.scoring.tiny_models import TinyModel, loaded, tiny_bert, tiny_gpt2

TEXTS = ["He is a nurse.", "The librarian and the mechanic read a book together.", "She"]


def _one_at_a_time(tiny: TinyModel, texts: list[str], first: bool = False) -> np.ndarray:
    """bias-bench's `_encode`: each text alone, mean of the last hidden state over all its
    tokens (or the first token's state), scaled to length 1."""
    rows = []
    with torch.no_grad():
        for text in texts:
            state = tiny.model.base_model(**tiny.tokenizer(text, return_tensors="pt"))
            hidden = state.last_hidden_state[0]
            row = (hidden[0] if first else hidden.mean(dim=0)).double().numpy()
            rows.append(row / np.linalg.norm(row))
    return np.stack(rows)


def test_batched_mean_is_each_sentence_alone(masked_tiny: TinyModel) -> None:
    got = sentence_vectors(loaded(masked_tiny), TEXTS, pooling="mean", batch_size=2).values
    assert got == pytest.approx(_one_at_a_time(masked_tiny, TEXTS), abs=1e-5)
    assert np.linalg.norm(got, axis=1) == pytest.approx(np.ones(len(TEXTS)))


def test_first_pooling_is_the_first_token(masked_tiny: TinyModel) -> None:
    got = sentence_vectors(loaded(masked_tiny), TEXTS, pooling="first", batch_size=3).values
    assert got == pytest.approx(_one_at_a_time(masked_tiny, TEXTS, first=True), abs=1e-5)
    mean = sentence_vectors(loaded(masked_tiny), TEXTS, pooling="mean").values
    assert not np.allclose(got, mean)


def test_a_model_without_padding_token_is_padded_and_masked() -> None:
    tiny = tiny_gpt2()
    assert tiny.tokenizer.pad_token is None
    got = sentence_vectors(loaded(tiny), TEXTS, batch_size=8).values
    assert got == pytest.approx(_one_at_a_time(tiny, TEXTS), abs=1e-5)


def test_too_long_and_empty_sentences_are_named() -> None:
    model = loaded(tiny_bert())
    with pytest.raises(ScoringInputError, match=r"sentence 1 has \d+ tokens; .* at most 128"):
        sentence_vectors(model, ["short.", "nurse " * 200])
    with pytest.raises(ScoringInputError, match="sentence 0 is empty"):
        sentence_vectors(model, [" "])


def test_seat_end_to_end_on_a_tiny_masked_lm(shared_data: Path) -> None:
    tiny = tiny_bert()
    tests = load_seat_tests(shared_data / "seat", ["weat6", "sent-weat9"])
    options = SeatOptions(tests=("weat6", "sent-weat9"), n_samples=2_000)
    results = run_seat(loaded(tiny), tests, options, seed=7)
    assert [r.test for r in results] == ["weat6", "sent-weat9"]
    weat6, sent9 = results
    assert weat6.categories == ("MaleNames", "FemaleNames", "Career", "Family")
    assert weat6.bias_type is None and weat6.verified
    # 8 words a set: C(16, 8) = 12,870 partitions, more than n_samples: sampled
    assert not weat6.statistic.exact and weat6.statistic.n_partitions == 2_000
    assert (sent9.statistic.n_x, sent9.statistic.n_a, sent9.statistic.n_b) == (18, 21, 23)
    for test, result in zip(tests, results, strict=True):
        x, y, a, b = (_one_at_a_time(tiny, list(one.examples)) for one in test.sets)
        expected = seat_statistic(x, y, a, b, n_samples=2_000, seed=seed_of_test(7, test.name))
        assert result.statistic.effect_size == pytest.approx(expected.effect_size, abs=1e-4)
        assert result.statistic.p_value == pytest.approx(expected.p_value, abs=2e-3)
    again = run_seat(loaded(tiny), tests[:1], options, seed=7)
    assert again[0] == weat6  # the same p-value alone as beside another test


def test_seat_exact_on_word_tests(shared_data: Path) -> None:
    tests = load_seat_tests(shared_data / "seat", ["weat6"])
    (result,) = run_seat(loaded(tiny_bert()), tests, SeatOptions(tests=("weat6",)), seed=0)
    assert result.statistic.exact and result.statistic.n_partitions == 12_870
    assert result.statistic.p_value * 12_870 == pytest.approx(
        round(result.statistic.p_value * 12_870)
    )
