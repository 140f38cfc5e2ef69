"""Tiny random LMs whose tokenizers know the probe's words ("he", "she", "doctor", ...) as
single tokens, for tests that train a variant and probe it. No network.

`save_probe_bert(out)`: BertForMaskedLM (2 layers x 32) with a lower-casing WordPiece
tokenizer. `save_probe_llama(out)`: LlamaForCausalLM with a byte-level BPE tokenizer that
adds no BOS although it has one (like SmolLM2's). `load(folder, model_type)` reads either
back as (model, tokenizer); `loaded_model(folder, model_type)` as the `LoadedModel` a
scorer receives.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from audit.testing.corpus import CORPUS, probe_sentences
from audit.testing.tokenizers import LLAMA_SPECIALS, build_wordpiece_tokenizer, byte_bpe

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

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
    """A random BertForMaskedLM and its tokenizer, saved into `out_dir` (returned)."""
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
    """A random LlamaForCausalLM and its tokenizer, saved into `out_dir` (returned)."""
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


def loaded_model(path: Path, model_type: Literal["masked", "causal"]) -> LoadedModel:
    """A saved folder as the `LoadedModel` a scorer receives (CPU, float32)."""
    import torch

    from audit.models.loaded import LoadedModel

    model, tokenizer = load(path, model_type)
    return LoadedModel(
        model_id=f"tiny-{path.name}",
        model_type=model_type,
        model=model,
        tokenizer=tokenizer,
        device=torch.device("cpu"),
        autocast_dtype=None,
        fingerprint=f"tiny-{path.name}",
    )
