"""Fixtures of the scoring tests: the tiny masked models, built once per session."""

from __future__ import annotations

import pytest

from tests.scoring.tiny_models import MASKED_BUILDERS, TinyModel


@pytest.fixture(scope="session", params=sorted(MASKED_BUILDERS))
def masked_tiny(request: pytest.FixtureRequest) -> TinyModel:
    """Each tiny masked LM in turn: BERT, RoBERTa, ALBERT, DistilBERT."""
    return MASKED_BUILDERS[request.param]()
