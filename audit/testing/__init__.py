"""What a plug-in's tests need, from the installed package: tiny masked and causal models
built from a config (no download), tiny corpora, and a one-call audit run.

    from audit.testing import save_tiny_bert, run_spec

    model_dir = save_tiny_bert(tmp_path / "bert")
    run = run_spec({"models": [...], ...}, tmp_path / "run")
    run.result.measurements

Models (each `save_*(out_dir, seed=0)` writes a hub-like folder and returns it):
`save_tiny_bert`, `save_tiny_albert`, `save_tiny_roberta` (masked), `save_tiny_gpt2`,
`save_tiny_llama` (causal), `TINY_BUILDERS` (name -> (model type, builder));
`save_probe_bert` and `save_probe_llama`, whose tokenizers know "he", "she" (starting a
sentence) and each of `OCCUPATIONS` (inside one) as one token (for training a variant
and probing it). `load(folder, model_type)` gives (model, tokenizer);
`loaded_model(folder, model_type)` the `LoadedModel` a scorer takes.

Corpora: `TINY_CORPUS`, `CORPUS` (`gendered_sentences("he")`, `("she")` and `NEUTRAL`),
`OCCUPATIONS`, `probe_sentences`; `TINY_PAIRS` and `write_tiny_pairs(path)`, which writes
them as a CSV and returns the spec's `datasets` entry that reads it.
"""

from audit.testing.corpus import (
    CORPUS,
    NEUTRAL,
    OCCUPATIONS,
    TINY_CORPUS,
    TINY_PAIRS,
    article,
    gendered_sentences,
    probe_sentences,
    write_tiny_pairs,
)
from audit.testing.models import (
    TINY_BUILDERS,
    save_tiny_albert,
    save_tiny_bert,
    save_tiny_gpt2,
    save_tiny_llama,
    save_tiny_roberta,
)
from audit.testing.probe_models import load, loaded_model, save_probe_bert, save_probe_llama
from audit.testing.run import AuditRun, run_spec

__all__ = [
    "CORPUS",
    "NEUTRAL",
    "OCCUPATIONS",
    "TINY_BUILDERS",
    "TINY_CORPUS",
    "TINY_PAIRS",
    "AuditRun",
    "article",
    "gendered_sentences",
    "load",
    "loaded_model",
    "probe_sentences",
    "run_spec",
    "save_probe_bert",
    "save_probe_llama",
    "save_tiny_albert",
    "save_tiny_bert",
    "save_tiny_gpt2",
    "save_tiny_llama",
    "save_tiny_roberta",
    "write_tiny_pairs",
]
