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
from audit.testing.models import HEADS, bert_style_sizes, seeded_save
from audit.testing.tokenizers import LLAMA_SPECIALS, build_wordpiece_tokenizer, byte_bpe

if TYPE_CHECKING:
    from audit.models.loaded import LoadedModel

#: The probe models' context (the tiny models' sizes otherwise).
POSITIONS = 64


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
    from transformers import BertConfig, BertForMaskedLM

    tokenizer = _wordpiece(out_dir)
    config = BertConfig(vocab_size=len(tokenizer), pad_token_id=0, **bert_style_sizes(POSITIONS))
    return seeded_save(BertForMaskedLM, config, out_dir, seed)


def save_probe_llama(out_dir: Path, *, seed: int = 0) -> Path:
    """A random LlamaForCausalLM and its tokenizer, saved into `out_dir` (returned)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _byte_bpe(out_dir)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        num_key_value_heads=HEADS,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=None,
        **bert_style_sizes(POSITIONS),
    )
    return seeded_save(LlamaForCausalLM, config, out_dir, seed)


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
