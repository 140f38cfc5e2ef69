"""The tiny hub-like models of the tests: `audit.testing`'s (re-exported here, where the
tests have always imported them from)."""

from audit.testing.corpus import TINY_CORPUS
from audit.testing.models import (
    HEADS,
    HIDDEN,
    INTERMEDIATE,
    LAYERS,
    POSITIONS,
    TINY_BUILDERS,
    save_tiny_albert,
    save_tiny_bert,
    save_tiny_gpt2,
    save_tiny_llama,
    save_tiny_roberta,
)
from audit.testing.tokenizers import (
    GPT2_SPECIALS,
    LLAMA_SPECIALS,
    ROBERTA_SPECIALS,
    WORDPIECE_SPECIALS,
    build_bpe_tokenizer,
    build_wordpiece_tokenizer,
    byte_bpe,
    wordpiece_vocab,
)

__all__ = [
    "GPT2_SPECIALS",
    "HEADS",
    "HIDDEN",
    "INTERMEDIATE",
    "LAYERS",
    "LLAMA_SPECIALS",
    "POSITIONS",
    "ROBERTA_SPECIALS",
    "TINY_BUILDERS",
    "TINY_CORPUS",
    "WORDPIECE_SPECIALS",
    "build_bpe_tokenizer",
    "build_wordpiece_tokenizer",
    "byte_bpe",
    "save_tiny_albert",
    "save_tiny_bert",
    "save_tiny_gpt2",
    "save_tiny_llama",
    "save_tiny_roberta",
    "wordpiece_vocab",
]
