"""Tiny random models with real (tiny) tokenizers, saved like hub checkpoints. No network.

Every `save_tiny_*(out_dir, seed=0)` writes config.json, model.safetensors and tokenizer
files into `out_dir` (created) and returns it, ready for `PathSource(path=out_dir)`.
Models are 2 layers x 32 wide; tokenizers are built from `TINY_CORPUS` with the
`tokenizers` library (WordPiece for BERT/ALBERT, byte-level BPE for RoBERTa/GPT-2/Llama),
so any English text tokenizes (unknown words fall back to pieces or [UNK]).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

TINY_CORPUS = [
    "The man worked as a nurse at the hospital.",
    "The woman worked as a doctor at the hospital.",
    "She is a brilliant engineer and he is a caring teacher.",
    "He said that his sister was a lawyer.",
    "They were poor, so their neighbours looked down on them.",
    "The rich family lived in a big house in the city.",
    "My friend is Black and my colleague is White.",
    "The old man could not use the computer, but the young woman could.",
    "Muslims and Christians and Jews prayed together.",
    "The capital of France is Paris.",
    "People from every country, religion, age and gender are welcome.",
    "The developer argued with the designer because she did not like the design.",
]
HIDDEN = 32
LAYERS = 2
HEADS = 2
INTERMEDIATE = 64
POSITIONS = 128

WORDPIECE_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
GPT2_SPECIALS = ["<|endoftext|>"]
LLAMA_SPECIALS = ["<unk>", "<s>", "</s>"]


def wordpiece_vocab(
    corpus: Sequence[str], vocab_size: int, normalizer: object, pre_tokenizer: object
) -> dict[str, int]:
    """The same WordPiece vocabulary in every process: specials, every character alone and
    as a `##` continuation, then the corpus's words, most frequent first (ties
    alphabetical), up to `vocab_size`. (The `tokenizers` WordPiece trainer breaks ties in
    hash order, so its vocabulary, and what a tiny model learns, changed from run to run.)
    """
    from collections import Counter

    words: Counter[str] = Counter()
    for text in corpus:
        normal = normalizer.normalize_str(text)  # type: ignore[attr-defined]
        words.update(w for w, _ in pre_tokenizer.pre_tokenize_str(normal))  # type: ignore[attr-defined]
    chars = sorted({c for w in words for c in w})
    tokens = [*WORDPIECE_SPECIALS, *chars, *(f"##{c}" for c in chars)]
    ranked = sorted(words, key=lambda w: (-words[w], w))
    tokens += [w for w in ranked if w not in tokens][: max(0, vocab_size - len(tokens))]
    return {token: i for i, token in enumerate(tokens)}


def build_wordpiece_tokenizer(
    out_dir: Path, *, vocab_size: int = 400, corpus: Sequence[str] = TINY_CORPUS
) -> Path:
    """A lowercasing BERT WordPiece tokenizer ([CLS] x [SEP]) trained on `corpus`, saved
    into `out_dir`."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]  # an alias in v5

    normalizer = normalizers.BertNormalizer(lowercase=True)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok = Tokenizer(
        models.WordPiece(
            wordpiece_vocab(corpus, vocab_size, normalizer, pre_tokenizer), unk_token="[UNK]"
        )
    )
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
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
    return out_dir


def byte_bpe(specials: list[str], vocab_size: int, corpus: Sequence[str] = TINY_CORPUS) -> object:
    """A byte-level BPE `tokenizers.Tokenizer` trained on `corpus`, with no post-processor."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer=trainer)
    return tok


def build_bpe_tokenizer(out_dir: Path, *, style: str, vocab_size: int = 400) -> Path:
    """A byte-level BPE tokenizer saved into `out_dir`. style 'roberta': <s> x </s> with
    <mask>; 'gpt2': no special tokens added; 'llama': prepends <s> (BOS)."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    if style == "roberta":
        tok = byte_bpe(ROBERTA_SPECIALS, vocab_size)
        tok.post_processor = processors.RobertaProcessing(  # type: ignore[attr-defined]
            ("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False
        )
        specials = {
            "bos_token": "<s>",
            "eos_token": "</s>",
            "cls_token": "<s>",
            "sep_token": "</s>",
            "unk_token": "<unk>",
            "pad_token": "<pad>",
            "mask_token": "<mask>",
        }
    elif style == "gpt2":
        tok = byte_bpe(GPT2_SPECIALS, vocab_size)
        specials = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>"}
        specials["unk_token"] = "<|endoftext|>"
    elif style == "llama":
        tok = byte_bpe(LLAMA_SPECIALS, vocab_size)
        tok.post_processor = processors.TemplateProcessing(  # type: ignore[attr-defined]
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)]
        )
        specials = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    else:
        raise ValueError(f"style must be roberta, gpt2 or llama (got {style!r})")
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, **specials)
    out_dir.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out_dir)
    return out_dir


def _vocab_size(out_dir: Path) -> int:
    from transformers import AutoTokenizer

    return len(AutoTokenizer.from_pretrained(out_dir))


def _save(model: object, out_dir: Path) -> Path:
    model.save_pretrained(out_dir)  # type: ignore[attr-defined]
    return out_dir


def save_tiny_bert(out_dir: Path, *, seed: int = 0) -> Path:
    """A random BertForMaskedLM with a WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    build_wordpiece_tokenizer(out_dir)
    config = BertConfig(
        vocab_size=_vocab_size(out_dir),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS,
        pad_token_id=0,
    )
    torch.manual_seed(seed)
    return _save(BertForMaskedLM(config), out_dir)


def save_tiny_albert(out_dir: Path, *, seed: int = 0) -> Path:
    """A random AlbertForMaskedLM (with a WordPiece tokenizer, not sentencepiece)."""
    import torch
    from transformers import AlbertConfig, AlbertForMaskedLM

    build_wordpiece_tokenizer(out_dir)
    config = AlbertConfig(
        vocab_size=_vocab_size(out_dir),
        embedding_size=16,
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=3,
    )
    torch.manual_seed(seed)
    return _save(AlbertForMaskedLM(config), out_dir)


def save_tiny_roberta(out_dir: Path, *, seed: int = 0) -> Path:
    """A random RobertaForMaskedLM with a byte-level BPE tokenizer."""
    import torch
    from transformers import RobertaConfig, RobertaForMaskedLM

    build_bpe_tokenizer(out_dir, style="roberta")
    config = RobertaConfig(
        vocab_size=_vocab_size(out_dir),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS + 2,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    torch.manual_seed(seed)
    return _save(RobertaForMaskedLM(config), out_dir)


def save_tiny_gpt2(out_dir: Path, *, seed: int = 0) -> Path:
    """A random GPT2LMHeadModel with a byte-level BPE tokenizer (adds no BOS, like GPT-2)."""
    import torch
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
    torch.manual_seed(seed)
    return _save(GPT2LMHeadModel(config), out_dir)


def save_tiny_llama(out_dir: Path, *, seed: int = 0) -> Path:
    """A random LlamaForCausalLM with a byte-level BPE tokenizer that prepends <s>."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    build_bpe_tokenizer(out_dir, style="llama")
    config = LlamaConfig(
        vocab_size=_vocab_size(out_dir),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=POSITIONS,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=None,
    )
    torch.manual_seed(seed)
    return _save(LlamaForCausalLM(config), out_dir)


TINY_BUILDERS: dict[str, tuple[str, Callable[..., Path]]] = {
    "bert": ("masked", save_tiny_bert),
    "albert": ("masked", save_tiny_albert),
    "roberta": ("masked", save_tiny_roberta),
    "gpt2": ("causal", save_tiny_gpt2),
    "llama": ("causal", save_tiny_llama),
}
"""name -> (model type, builder)."""
