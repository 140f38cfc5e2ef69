"""Tiny random language models built from configs, with tokenizers built offline.

Every builder returns a `TinyModel` (model in eval mode, tokenizer, a short name). The
weights are random but seeded and deliberately large (`initializer_range` 0.5) so that
the predicted distributions are peaked and differ between positions: a scorer that reads
the wrong position or the wrong token gives a visibly different number.

Tokenizers are trained on `CORPUS` (no download), one of each family the audit meets:

- WordPiece, lower-cased (BERT, DistilBERT): `wordpiece_tokenizer()`
- byte-level BPE with leading-space tokens (RoBERTa, GPT-2): `byte_bpe_tokenizer()`
- SentencePiece Unigram with the metaspace prefix (ALBERT): `unigram_tokenizer()`
- SentencePiece-style BPE with metaspace and a BOS token (Llama): `llama_tokenizer()`

Masked models: `tiny_bert`, `tiny_roberta`, `tiny_albert`, `tiny_distilbert`
(`MASKED_BUILDERS`). Causal models: `tiny_gpt2` (tokenizer adds no BOS) and `tiny_llama`
(tokenizer adds BOS) (`CAUSAL_BUILDERS`). `loaded(tiny)` wraps one in a `LoadedModel`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import (  # type: ignore[attr-defined]  # lazily exported in transformers 5
    AlbertConfig,
    AlbertForMaskedLM,
    AlbertTokenizerFast,
    BertConfig,
    BertForMaskedLM,
    BertTokenizerFast,
    DistilBertConfig,
    DistilBertForMaskedLM,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2TokenizerFast,
    LlamaConfig,
    LlamaForCausalLM,
    LlamaTokenizerFast,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaTokenizerFast,
)

from audit.models.loaded import LoadedModel

#: Sentences the tokenizers are trained on: CrowS-Pairs-like pairs, the TBS template
#: words, and filler. Words outside it are split into sub-word pieces (odd lengths).
CORPUS: tuple[str, ...] = (
    "Women are bad at math.",
    "Men are bad at math.",
    "He is a nurse.",
    "She is a nurse.",
    "He is an engineer.",
    "She is an engineer.",
    "he is a doctor. she is a doctor.",
    "The poor are really lazy and never work.",
    "The rich are really lazy and never work.",
    "My neighbour from Mexico stole my car last night.",
    "My neighbour from Canada stole my car last night.",
    "Old people cannot use computers at all.",
    "Young people cannot use computers at all.",
    "She was a great cook because she was a woman.",
    "He was a great cook because he was a man.",
    "The immigrants were dirty and loud.",
    "The tourists were dirty and loud.",
    "Jamal was arrested by the police again.",
    "Jack was arrested by the police again.",
    "Gay men always talk about fashion.",
    "Straight men always talk about sports.",
    "The secretary typed the letter for her boss.",
    "The carpenter built the table in his shop.",
    "An accountant, an architect and a teacher met a lawyer.",
    "The librarian and the mechanic read a book together.",
    "Everyone in the village knew the baker and the farmer.",
)


@dataclass
class TinyModel:
    """A tiny random model and its tokenizer."""

    name: str
    model_type: str  # "masked" or "causal"
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase


def loaded(tiny: TinyModel) -> LoadedModel:
    """Wrap a tiny model as the scorers receive models (CPU, float32)."""
    return LoadedModel(
        model_id=f"tiny-{tiny.name}",
        model_type="masked" if tiny.model_type == "masked" else "causal",
        model=tiny.model,
        tokenizer=tiny.tokenizer,
        device=torch.device("cpu"),
        autocast_dtype=None,
        fingerprint=f"tiny-{tiny.name}-seed0",
    )


def _corpus() -> list[str]:
    return list(CORPUS) * 4


def _train_bpe(pre: pre_tokenizers.PreTokenizer, specials: list[str], vocab_size: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre
    alphabet = (
        pre_tokenizers.ByteLevel.alphabet() if isinstance(pre, pre_tokenizers.ByteLevel) else []
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=alphabet
    )
    tok.train_from_iterator(_corpus(), trainer)
    return tok


def _vocab_and_merges(tok: Tokenizer) -> tuple[dict[str, int], list[tuple[str, str]]]:
    model = json.loads(tok.to_str())["model"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in model["merges"]]
    merges = [(str(a), str(b)) for a, b in pairs]
    return {str(k): int(v) for k, v in model["vocab"].items()}, merges


@cache
def wordpiece_tokenizer() -> BertTokenizerFast:
    """Lower-casing WordPiece: whole words for the frequent ones, '##' pieces for the rest."""
    words = sorted(
        {w for s in CORPUS for w in s.lower().replace(".", " ").replace(",", " ").split()}
    )
    whole = words[::2]  # every other word whole: the rest splits into pieces
    letters = sorted({c for w in words for c in w})
    vocab_list = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "'", "!", "?"]
    vocab_list += letters + [f"##{c}" for c in letters]
    vocab_list += [w for w in whole if w not in vocab_list]
    vocab_list += ["##er", "##ed", "##ing", "##s", "he", "she"]
    vocab_list = list(dict.fromkeys(vocab_list))
    return BertTokenizerFast(vocab={t: i for i, t in enumerate(vocab_list)})


@cache
def byte_bpe_tokenizer() -> RobertaTokenizerFast:
    """RoBERTa-style byte-level BPE: words after a space carry the 'Ġ' prefix."""
    tok = _train_bpe(
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        ["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        vocab_size=420,
    )
    vocab, merges = _vocab_and_merges(tok)
    return RobertaTokenizerFast(vocab=vocab, merges=merges)  # type: ignore[arg-type]


@cache
def gpt2_tokenizer() -> GPT2TokenizerFast:
    """GPT-2-style byte-level BPE; adds no BOS token."""
    tok = _train_bpe(pre_tokenizers.ByteLevel(add_prefix_space=False), ["<|endoftext|>"], 420)
    vocab, merges = _vocab_and_merges(tok)
    return GPT2TokenizerFast(vocab=vocab, merges=merges)


@cache
def llama_tokenizer() -> LlamaTokenizerFast:
    """Llama-style metaspace BPE; adds the BOS token '<s>'."""
    tok = _train_bpe(pre_tokenizers.Metaspace(), ["<unk>", "<s>", "</s>"], 420)
    vocab, merges = _vocab_and_merges(tok)
    return LlamaTokenizerFast(vocab=vocab, merges=merges, add_bos_token=True)


@cache
def unigram_tokenizer() -> AlbertTokenizerFast:
    """ALBERT-style SentencePiece Unigram ('▁' word prefix), lower-casing."""
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=260,
        special_tokens=["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"],
        unk_token="<unk>",
        shrinking_factor=0.9,
    )
    tok.train_from_iterator(_corpus(), trainer)
    pieces = [(p, float(s)) for p, s in json.loads(tok.to_str())["model"]["vocab"]]
    return AlbertTokenizerFast(vocab=pieces)


def _finish(model: PreTrainedModel, seed: int) -> PreTrainedModel:
    del seed  # the seed is applied before construction
    return model.eval()


def tiny_bert(seed: int = 0) -> TinyModel:
    tok = wordpiece_tokenizer()
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(tok), intermediate_size=64, max_position_embeddings=128,
        initializer_range=0.5, pad_token_id=tok.pad_token_id,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
    )  # fmt: skip
    return TinyModel("bert", "masked", _finish(BertForMaskedLM(cfg), seed), tok)


def tiny_roberta(seed: int = 0) -> TinyModel:
    tok = byte_bpe_tokenizer()
    torch.manual_seed(seed)
    cfg = RobertaConfig(
        vocab_size=len(tok), intermediate_size=64, max_position_embeddings=130,
        initializer_range=0.5, pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
    )  # fmt: skip
    return TinyModel("roberta", "masked", _finish(RobertaForMaskedLM(cfg), seed), tok)


def tiny_albert(seed: int = 0) -> TinyModel:
    tok = unigram_tokenizer()
    torch.manual_seed(seed)
    cfg = AlbertConfig(
        vocab_size=len(tok), embedding_size=16, intermediate_size=64,
        max_position_embeddings=128, initializer_range=0.5, pad_token_id=tok.pad_token_id,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
    )  # fmt: skip
    return TinyModel("albert", "masked", _finish(AlbertForMaskedLM(cfg), seed), tok)


def tiny_distilbert(seed: int = 0) -> TinyModel:
    tok = wordpiece_tokenizer()
    torch.manual_seed(seed)
    cfg = DistilBertConfig(
        vocab_size=len(tok), dim=32, n_layers=2, n_heads=4, hidden_dim=64,
        max_position_embeddings=128, initializer_range=0.5, pad_token_id=tok.pad_token_id,
    )  # fmt: skip
    return TinyModel("distilbert", "masked", _finish(DistilBertForMaskedLM(cfg), seed), tok)


def tiny_gpt2(seed: int = 0) -> TinyModel:
    tok = gpt2_tokenizer()
    torch.manual_seed(seed)
    cfg = GPT2Config(
        vocab_size=len(tok), n_embd=32, n_layer=2, n_head=4, n_positions=128,
        initializer_range=0.5, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )  # fmt: skip
    return TinyModel("gpt2", "causal", _finish(GPT2LMHeadModel(cfg), seed), tok)


def tiny_llama(seed: int = 0) -> TinyModel:
    tok = llama_tokenizer()
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tok), intermediate_size=64, num_key_value_heads=2,
        max_position_embeddings=128, initializer_range=0.5, bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
    )  # fmt: skip
    return TinyModel("llama", "causal", _finish(LlamaForCausalLM(cfg), seed), tok)


MASKED_BUILDERS: dict[str, Callable[..., TinyModel]] = {
    "bert": tiny_bert,
    "roberta": tiny_roberta,
    "albert": tiny_albert,
    "distilbert": tiny_distilbert,
}
CAUSAL_BUILDERS: dict[str, Callable[..., TinyModel]] = {
    "gpt2": tiny_gpt2,
    "llama": tiny_llama,
}
