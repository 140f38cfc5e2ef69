"""A SEAT run on one model: the tests' distinct sentences encoded once
(`audit.scoring.sentence_vectors`), then each test's effect size and p-value
(`audit.measures.seat`), with the summary bias-bench reports per bias type (the mean
absolute effect size over its tests)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.data.seat_tests import SeatTest, bias_type_of
from audit.measures.seat import SeatStatistic, seat_statistic
from audit.measures.seat_options import SeatOptions

if TYPE_CHECKING:
    import numpy as np

    from audit.models.loaded import LoadedModel


@dataclass(frozen=True)
class SeatTestResult:
    """One test's statistic with what it was computed from."""

    test: str
    bias_type: str | None  # the bias-bench list holding the test, None if none does
    categories: tuple[str, str, str, str]  # X, Y, A, B
    statistic: SeatStatistic
    pooling: str
    seed: int  # the test's own seed (derived from the run's seed and the test's name)
    verified: bool  # the file matched the pinned release


def seed_of_test(seed: int, test: str) -> int:
    """A test's permutation seed: fixed by the run's seed and the test's name, so a test
    gets the same p-value whichever other tests run beside it."""
    digest = hashlib.sha256(f"{seed}:{test}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def seat_texts(tests: Sequence[SeatTest]) -> list[str]:
    """The distinct sentences of `tests`, each encoded once, in order."""
    return list(dict.fromkeys(text for test in tests for text in test.texts()))


def seat_vectors(model: LoadedModel, texts: Sequence[str], options: SeatOptions) -> np.ndarray:
    """The texts' unit-length sentence vectors as SEAT takes them."""
    from audit.scoring.sentence_vectors import sentence_vectors

    # bias-bench encodes each sentence alone: a tokenizer without a pad token keeps that
    # (its batches would be padded with another token)
    size = options.batch_size if model.tokenizer.pad_token is not None else 1
    return sentence_vectors(model, texts, pooling=options.pooling, batch_size=size).values


def run_seat(
    model: LoadedModel, tests: Sequence[SeatTest], options: SeatOptions, *, seed: int
) -> list[SeatTestResult]:
    """Every test's result, in the order of `tests`."""
    texts = seat_texts(tests)
    vectors = seat_vectors(model, texts, options)
    row = {text: index for index, text in enumerate(texts)}
    results = []
    for test in tests:
        x, y, a, b = (vectors[[row[t] for t in one.examples]] for one in test.sets)
        own_seed = seed_of_test(seed, test.name)
        results.append(
            SeatTestResult(
                test=test.name,
                bias_type=bias_type_of(test.name),
                categories=(
                    test.targ1.category,
                    test.targ2.category,
                    test.attr1.category,
                    test.attr2.category,
                ),
                statistic=seat_statistic(x, y, a, b, n_samples=options.n_samples, seed=own_seed),
                pooling=options.pooling,
                seed=own_seed,
                verified=test.verified,
            )
        )
    return results


def mean_absolute_effect(results: Sequence[SeatTestResult], bias_type: str) -> float | None:
    """bias-bench's summary of a bias type: the mean |effect size| over its tests that
    ran (None when none ran or none has an effect size)."""
    sizes = [
        abs(result.statistic.effect_size)
        for result in results
        if result.bias_type == bias_type and result.statistic.effect_size is not None
    ]
    return sum(sizes) / len(sizes) if sizes else None


class SeatMeasure:
    """The registered `seat` measure (shape `sentence_sets`): a model and SEAT tests in,
    one result per test out."""

    def compute_seat(
        self, model: LoadedModel, tests: Sequence[SeatTest], options: SeatOptions, *, seed: int
    ) -> list[SeatTestResult]:
        return run_seat(model, tests, options, seed=seed)


SEAT = SeatMeasure()
