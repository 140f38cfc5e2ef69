"""The one sentence encoder keeps both of its callers' numbers: SEAT's unit-length
vectors (errors on too-long input) and the projections' raw pooled states (cut at
`max_length`, sentences with no content token left out, BOS on causal LMs). Each caller's
options are compared bit for bit with a frozen copy of the encoder it used before the
two were merged, and a few values are pinned as they were computed before the merge."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import torch

from audit.models.loaded import LoadedModel
from audit.models.sequence_limit import sequence_limit
from audit.scoring.base import ScoringInputError
from audit.scoring.sentence_vectors import sentence_vectors
from audit.training.encode import collate, encode_sentences, pad_token_id
from tests.scoring.tiny_models import (
    TinyModel,
    loaded,
    tiny_bert,
    tiny_gpt2,
    tiny_llama,
    tiny_roberta,
)

TEXTS = ["He is a nurse.", "The librarian and the mechanic read a book together.", "She"]
#: Projection inputs: one cut at max_length (16), one with no token to pool.
PROJECTION_TEXTS = [*TEXTS, "nurse " * 40, ""]
BUILDERS: dict[str, Callable[[], TinyModel]] = {
    "bert": tiny_bert,
    "roberta": tiny_roberta,
    "gpt2": tiny_gpt2,
    "llama": tiny_llama,
}


def _posthoc_before(
    model: LoadedModel, sentences: Sequence[str], *, batch_size: int, max_length: int
) -> tuple[torch.Tensor, tuple[int, ...], int]:
    """`audit.variants.posthoc.sentence_vectors` before the merge, as it was."""
    rows = encode_sentences(
        model.tokenizer,
        model.model,
        sentences,
        model_type=model.model_type,
        max_length=max_length,
        what="projection sentences",
    )
    pad = pad_token_id(model.tokenizer)
    body: Any = model.model.base_model
    out: list[torch.Tensor] = []
    tokens = 0
    with torch.no_grad():
        for start in range(0, len(rows), batch_size):
            batch = collate(rows[start : start + batch_size], pad).to(model.device)
            hidden = body(input_ids=batch.input_ids, attention_mask=batch.attention_mask)[0]
            mask = batch.attention_mask.unsqueeze(-1).float()
            out.append(((hidden.float() * mask).sum(1) / mask.sum(1)).cpu())
            tokens += batch.tokens
    values = torch.cat(out) if out else torch.zeros(0, 0)
    return values, tuple(row.index for row in rows), tokens


def _seat_before(model: LoadedModel, texts: Sequence[str], *, batch_size: int) -> np.ndarray:
    """`audit.scoring.sentence_vectors.sentence_vectors` (mean pooling) before the merge."""
    tokenizer = model.tokenizer
    size = batch_size if tokenizer.pad_token is not None else 1
    limit = sequence_limit(model.model, tokenizer)
    rows: list[np.ndarray] = []
    with torch.inference_mode():
        for start in range(0, len(texts), size):
            encoded = tokenizer(
                list(texts[start : start + size]), return_tensors="pt", padding=size > 1
            )
            assert limit is None or int(encoded["attention_mask"].sum(dim=1).max()) <= limit
            hidden = model.model.base_model(**encoded).last_hidden_state.float()
            weights = encoded["attention_mask"].unsqueeze(-1).float()
            rows.append(((hidden * weights).sum(dim=1) / weights.sum(dim=1)).double().numpy())
    vectors = np.concatenate(rows, axis=0)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _projection_vectors(model: LoadedModel) -> Any:
    """The options `audit.variants.posthoc.ProjectionSetup.vectors` passes."""
    return sentence_vectors(
        model,
        PROJECTION_TEXTS,
        batch_size=2,
        too_long="truncate",
        max_length=16,
        empty="skip",
        bos=model.model_type == "causal",
        normalise=False,
    )


@pytest.mark.parametrize("name", list(BUILDERS))
def test_the_projections_vectors_are_what_they_were(name: str) -> None:
    model = loaded(BUILDERS[name]())
    got = _projection_vectors(model)
    values, kept, tokens = _posthoc_before(model, PROJECTION_TEXTS, batch_size=2, max_length=16)
    assert got.kept == kept == (0, 1, 2, 3) and got.tokens == tokens
    assert got.values.dtype == np.float64
    assert torch.equal(torch.from_numpy(got.values).float(), values)


@pytest.mark.parametrize("name", list(BUILDERS))
def test_seats_vectors_are_what_they_were(name: str) -> None:
    model = loaded(BUILDERS[name]())
    got = sentence_vectors(model, TEXTS, batch_size=2)
    size = 2 if model.tokenizer.pad_token is not None else 1  # seat_run's rule
    assert np.array_equal(
        sentence_vectors(model, TEXTS, batch_size=size).values,
        _seat_before(model, TEXTS, batch_size=2),
    )
    assert got.kept == (0, 1, 2)
    assert np.linalg.norm(got.values, axis=1) == pytest.approx(np.ones(len(TEXTS)))


#: (model, row, column) -> value, computed with the two encoders before the merge
#: (projection: PROJECTION_TEXTS, batch 2, max_length 16; SEAT: TEXTS, batch 2).
PINNED_PROJECTION = {
    "bert": (42, [-0.796044647693634, -0.37613990902900696, 1.1226650476455688]),
    "roberta": (42, [0.1756574958562851, -1.3983577489852905, -0.08144190907478333]),
    "gpt2": (40, [0.4713473320007324, 0.06939975917339325, -0.15750211477279663]),
    "llama": (33, [-0.6528179049491882, 0.17318323254585266, -0.765407145023346]),
}
PINNED_SEAT = {
    "bert": [-0.16200445808372654, -0.04538755694535401, -0.029502735011356942],
    "roberta": [0.04214200444590968, -0.251462373031488, 0.09064316474308193],
    "gpt2": [0.2063380255620339, 0.07548775464987391, -0.20032457185562236],
    "llama": [-0.17491990679422179, 0.06198922545079963, -0.2723820750293488],
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_pinned_values(name: str) -> None:
    model = loaded(BUILDERS[name]())
    projection = _projection_vectors(model)
    tokens, values = PINNED_PROJECTION[name]
    assert projection.tokens == tokens
    got = [projection.values[i, j] for i, j in ((0, 0), (1, 5), (3, 7))]
    assert got == pytest.approx(values, rel=1e-6, abs=1e-7)
    size = 2 if model.tokenizer.pad_token is not None else 1
    seat = sentence_vectors(model, TEXTS, batch_size=size).values
    got = [seat[i, j] for i, j in ((0, 0), (1, 5), (2, 7))]
    assert got == pytest.approx(PINNED_SEAT[name], rel=1e-6, abs=1e-7)


def test_the_options_change_what_they_name() -> None:
    model = loaded(tiny_bert())
    with pytest.raises(
        ScoringInputError, match=r"sentence 3 has \d+ tokens; max_length allows at most 32"
    ):
        sentence_vectors(model, PROJECTION_TEXTS[:4], max_length=32)
    with pytest.raises(ScoringInputError, match="sentence 4 is empty"):
        sentence_vectors(model, PROJECTION_TEXTS, too_long="truncate", max_length=16)
    cut = sentence_vectors(
        model, PROJECTION_TEXTS, too_long="truncate", max_length=16, empty="skip"
    )
    assert cut.kept == (0, 1, 2, 3)
    raw = sentence_vectors(model, TEXTS, normalise=False).values
    unit = sentence_vectors(model, TEXTS).values
    assert unit == pytest.approx(raw / np.linalg.norm(raw, axis=1, keepdims=True))
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1.0)
