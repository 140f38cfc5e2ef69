"""Tokenizers trained offline on a few sentences: a lower-casing WordPiece (BERT-style)
and byte-level BPE (RoBERTa-, GPT-2- and Llama-style). Deterministic: the same files in
every process."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from audit.testing.corpus import TINY_CORPUS

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
