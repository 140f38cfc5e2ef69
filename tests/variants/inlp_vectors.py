"""Hand-made sentence vectors for INLP's `fit` (no model): a projection setup whose
vectors are given, and small problems with one planted direction per class; plus the
tiny corpus and word list its planning tests read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from audit.scoring.sentence_vectors import SentenceVectors
from audit.variants.corpus import Corpus
from audit.variants.labelled_data import labelled_data
from audit.variants.methods.base import MethodContext
from audit.variants.methods.inlp import fit
from audit.variants.methods.options import InlpOptions
from audit.variants.posthoc import ProjectionFit, ProjectionSetup

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

GENDER_SIZES = {"male": 50, "female": 40, "neutral": 60}
BINARY_SIZES = {"bias": 45, "neutral": 70}


def planted(sizes: dict[str, int], dim: int, seed: int = 1) -> dict[str, np.ndarray]:
    """float32 vectors per class, class k shifted by 1.5 along axis k."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, (name, n) in enumerate(sizes.items()):
        x = rng.normal(size=(n, dim)).astype(np.float32)
        x[:, k] += 1.5
        out[name] = x
    return out


@dataclass(frozen=True)
class VectorSetup(ProjectionSetup):
    """A projection setup whose sentence vectors are given (no model): the sentences of
    class c are 'c 0', 'c 1', ..., and their vectors come back as the encoder returns
    them (float64 rows holding float32 values)."""

    rows: dict[str, np.ndarray] = field(default_factory=dict)

    def vectors(self, sentences: Sequence[str]) -> SentenceVectors:
        values = self.rows[sentences[0].split()[0]].astype(np.float64)
        return SentenceVectors(values, tuple(range(len(values))), 3 * len(values))


def run_fit(
    bias_type: str, sizes: dict[str, int], *, iterations: int, dim: int, **options: Any
) -> ProjectionFit:
    data = labelled_data(
        {name: tuple(f"{name} {i}" for i in range(n)) for name, n in sizes.items()}
    )
    setup = VectorSetup(
        loaded=cast("LoadedModel", None),
        data=data,
        options=InlpOptions(bias_type=bias_type, iterations=iterations, **options),
        seed=5,
        batch_size=8,
        max_length=16,
        loc="variants[0]",
        rows=planted(sizes, dim),
    )
    return fit(setup)


def tiny_corpus() -> Corpus:
    sentences = tuple(
        [f"the church of saint number {i} stood there" for i in range(6)]
        + [f"the river number {i} ran past the town" for i in range(6)]
    )
    return Corpus(name="tiny", source="test", sha256="0" * 64, sentences=sentences)


def religion_context(tmp_path: Path) -> MethodContext:
    (tmp_path / "words.json").write_text('{"religion": [["church", "mosque"]]}')
    return MethodContext(data_dir=None, base_dir=tmp_path, seed=0, loc="variants[2]")
