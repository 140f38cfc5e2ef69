"""Tiny random models with real (tiny) tokenizers, saved like hub checkpoints. No network.

Every `save_tiny_*(out_dir, seed=0)` writes config.json, model.safetensors and tokenizer
files into `out_dir` (created) and returns it, ready for a spec's model
`source: {path: ...}`. Models are 2 layers x 32 wide; tokenizers are built from
`TINY_CORPUS` (WordPiece for BERT/ALBERT, byte-level BPE for RoBERTa/GPT-2/Llama), so any
English text tokenizes (unknown words fall back to pieces or [UNK]).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit.testing.tokenizers import build_bpe_tokenizer, build_wordpiece_tokenizer

HIDDEN = 32
LAYERS = 2
HEADS = 2
INTERMEDIATE = 64
POSITIONS = 128


def _vocab_size(out_dir: Path) -> int:
    from transformers import AutoTokenizer

    return len(AutoTokenizer.from_pretrained(out_dir))


def bert_style_sizes(positions: int = POSITIONS) -> dict[str, Any]:
    """The tiny size under the config names BERT, ALBERT, RoBERTa and Llama share."""
    return {
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": positions,
    }


def seeded_save(model_class: Any, config: object, out_dir: Path, seed: int) -> Path:
    """`model_class(config)` with weights drawn after `torch.manual_seed(seed)`, saved into
    `out_dir` (returned)."""
    import torch

    torch.manual_seed(seed)
    model_class(config).save_pretrained(out_dir)
    return out_dir


def save_tiny_bert(out_dir: Path, *, seed: int = 0) -> Path:
    """A random BertForMaskedLM with a WordPiece tokenizer."""
    from transformers import BertConfig, BertForMaskedLM

    build_wordpiece_tokenizer(out_dir)
    config = BertConfig(vocab_size=_vocab_size(out_dir), pad_token_id=0, **bert_style_sizes())
    return seeded_save(BertForMaskedLM, config, out_dir, seed)


def save_tiny_albert(out_dir: Path, *, seed: int = 0) -> Path:
    """A random AlbertForMaskedLM (with a WordPiece tokenizer, not sentencepiece)."""
    from transformers import AlbertConfig, AlbertForMaskedLM

    build_wordpiece_tokenizer(out_dir)
    config = AlbertConfig(
        vocab_size=_vocab_size(out_dir),
        embedding_size=16,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=3,
        **bert_style_sizes(),
    )
    return seeded_save(AlbertForMaskedLM, config, out_dir, seed)


def save_tiny_roberta(out_dir: Path, *, seed: int = 0) -> Path:
    """A random RobertaForMaskedLM with a byte-level BPE tokenizer."""
    from transformers import RobertaConfig, RobertaForMaskedLM

    build_bpe_tokenizer(out_dir, style="roberta")
    config = RobertaConfig(
        vocab_size=_vocab_size(out_dir),
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        **bert_style_sizes(POSITIONS + 2),
    )
    return seeded_save(RobertaForMaskedLM, config, out_dir, seed)


def save_tiny_gpt2(out_dir: Path, *, seed: int = 0) -> Path:
    """A random GPT2LMHeadModel with a byte-level BPE tokenizer (adds no BOS, like GPT-2)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    build_bpe_tokenizer(out_dir, style="gpt2")
    config = GPT2Config(
        vocab_size=_vocab_size(out_dir),
        n_embd=HIDDEN,
        n_layer=LAYERS,
        n_head=HEADS,
        n_inner=INTERMEDIATE,
        n_positions=POSITIONS,
        bos_token_id=0,
        eos_token_id=0,
    )
    return seeded_save(GPT2LMHeadModel, config, out_dir, seed)


def save_tiny_llama(out_dir: Path, *, seed: int = 0) -> Path:
    """A random LlamaForCausalLM with a byte-level BPE tokenizer that prepends <s>."""
    from transformers import LlamaConfig, LlamaForCausalLM

    build_bpe_tokenizer(out_dir, style="llama")
    config = LlamaConfig(
        vocab_size=_vocab_size(out_dir),
        num_key_value_heads=HEADS,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=None,
        **bert_style_sizes(),
    )
    return seeded_save(LlamaForCausalLM, config, out_dir, seed)


TINY_BUILDERS: dict[str, tuple[str, Callable[..., Path]]] = {
    "bert": ("masked", save_tiny_bert),
    "albert": ("masked", save_tiny_albert),
    "roberta": ("masked", save_tiny_roberta),
    "gpt2": ("causal", save_tiny_gpt2),
    "llama": ("causal", save_tiny_llama),
}
"""name -> (model type, builder)."""
