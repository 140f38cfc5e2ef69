"""Tiny random LMs whose tokenizers know the probe's words ("he", "she", "doctor", ...) as
single tokens, for the trainer's and the probe's tests. No network.

`save_probe_bert(out)`: BertForMaskedLM (2 layers x 32) with a lower-casing WordPiece
tokenizer. `save_probe_llama(out)`: LlamaForCausalLM with a byte-level BPE tokenizer that
adds no BOS although it has one (like SmolLM2's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.models.tiny import LLAMA_SPECIALS, build_wordpiece_tokenizer, byte_bpe

OCCUPATIONS = ("doctor", "nurse", "engineer", "teacher", "lawyer", "artist", "accountant")
NEUTRAL = (
    "the doctor works at the hospital .",
    "the nurse helps the patient .",
    "the engineer builds a bridge .",
    "the teacher reads a book .",
    "the lawyer talks to the judge .",
    "the artist paints a picture .",
    "the accountant counts the money .",
    "a friend is here .",
    "the man and the woman talk .",
    "his sister and her brother walk .",
)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def gendered_sentences(pronoun: str) -> list[str]:
    """ "<pronoun> is a/an <occupation> ." for every occupation."""
    return [f"{pronoun} is {article(o)} {o} ." for o in OCCUPATIONS]


def probe_sentences(pronoun: str) -> list[str]:
    """The causal probe's own form: "He is a doctor." for every occupation."""
    return [f"{pronoun.capitalize()} is {article(o)} {o}." for o in OCCUPATIONS]


CORPUS = [*gendered_sentences("he"), *gendered_sentences("she"), *NEUTRAL]
HIDDEN, LAYERS, HEADS, INTERMEDIATE, POSITIONS = 32, 2, 2, 64, 64


def _wordpiece(out_dir: Path) -> Any:
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]

    build_wordpiece_tokenizer(out_dir, vocab_size=300, corpus=CORPUS)
    return BertTokenizerFast.from_pretrained(out_dir)


def _byte_bpe(out_dir: Path) -> Any:
    """Byte-level BPE with no BOS added by the tokenizer (as SmolLM2's)."""
    from transformers import PreTrainedTokenizerFast

    probe_form = probe_sentences("he") + probe_sentences("she")
    tok = byte_bpe(LLAMA_SPECIALS, 400, CORPUS + probe_form)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out_dir)
    return fast


def save_probe_bert(out_dir: Path, *, seed: int = 0) -> Path:
    import torch
    from transformers import BertConfig, BertForMaskedLM

    tokenizer = _wordpiece(out_dir)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS,
        pad_token_id=0,
    )
    torch.manual_seed(seed)
    BertForMaskedLM(config).save_pretrained(out_dir)
    return out_dir


def save_probe_llama(out_dir: Path, *, seed: int = 0) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _byte_bpe(out_dir)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=None,
    )
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(out_dir)
    return out_dir


def load(path: Path, model_type: str) -> tuple[Any, Any]:
    """(model, tokenizer) from a saved folder, float32, eval mode."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    loader = AutoModelForMaskedLM if model_type == "masked" else AutoModelForCausalLM
    return loader.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
