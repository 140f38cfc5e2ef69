"""Tiny random LMs whose tokenizers know the probe's words ("he", "she", "doctor", ...) as
single tokens, for the trainer's and the probe's tests. No network.

`save_probe_bert(out)`: BertForMaskedLM (2 layers x 32) with a lower-casing WordPiece
tokenizer. `save_probe_llama(out)`: LlamaForCausalLM with a byte-level BPE tokenizer that
adds no BOS although it has one (like SmolLM2's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        CORPUS, trainer=trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials)
    )
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    fast = BertTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        do_lower_case=True,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out_dir)
    return fast


def _byte_bpe(out_dir: Path) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    probe_form = probe_sentences("he") + probe_sentences("she")
    tok.train_from_iterator(CORPUS + probe_form, trainer=trainer)
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
