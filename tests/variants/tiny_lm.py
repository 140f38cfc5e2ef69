"""The probe's tiny LMs and corpus: `audit.testing`'s (re-exported here, where the
variant tests have always imported them from)."""

from audit.testing.corpus import (
    CORPUS,
    NEUTRAL,
    OCCUPATIONS,
    article,
    gendered_sentences,
    probe_sentences,
)
from audit.testing.models import HEADS, HIDDEN, INTERMEDIATE, LAYERS
from audit.testing.probe_models import (
    POSITIONS,
    load,
    save_probe_bert,
    save_probe_llama,
)

__all__ = [
    "CORPUS",
    "HEADS",
    "HIDDEN",
    "INTERMEDIATE",
    "LAYERS",
    "NEUTRAL",
    "OCCUPATIONS",
    "POSITIONS",
    "article",
    "gendered_sentences",
    "load",
    "probe_sentences",
    "save_probe_bert",
    "save_probe_llama",
]
