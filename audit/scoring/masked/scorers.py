"""Masked-LM scorers (METHODS.md section 2): pll, pppl, cps, sss, aul, aula.

Each scorer builds its masked copies (or unmasked sentences) for the whole input and
hands them to the batched engine in one call; the engine returns float64
log-probabilities that the scorer sums or averages per sentence.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audit.models.loaded import LoadedModel
from audit.scoring.base import (
    PairScorer,
    ProgressCallback,
    ScorePair,
    ScorerOptions,
    ScoringCall,
    ScoringInputError,
    SentenceScore,
    SentenceScorer,
    interleave_pairs,
    regroup_pairs,
)
from audit.scoring.masked.alignment import PairAlignment, align_pair
from audit.scoring.masked.engine import MaskedCopy, run_masked_copies, run_unmasked
from audit.scoring.masked.inputs import (
    Encoded,
    encode_texts,
    mask_token_id,
    max_sequence_length,
)
from audit.scoring.options import MaskedOptions


def _check_options(name: str, options: ScorerOptions) -> MaskedOptions:
    if not isinstance(options, MaskedOptions):
        raise TypeError(f"scorer '{name}' needs MaskedOptions, got {type(options).__name__}")
    return options


def _encode(model: LoadedModel, name: str, texts: Sequence[str]) -> tuple[list[Encoded], int]:
    if model.model_type != "masked":
        raise ScoringInputError(
            f"scorer '{name}' needs a masked language model; '{model.model_id}' is "
            f"{model.model_type} (use ll or ppl for causal models)"
        )
    mask_id = mask_token_id(model.tokenizer, model.model_id)
    limit = max_sequence_length(model.model, model.tokenizer)
    return encode_texts(model.tokenizer, texts, max_length=limit, model_id=model.model_id), mask_id


def _encode_pairs(
    model: LoadedModel, name: str, pairs: Sequence[tuple[str, str]]
) -> tuple[list[Encoded], int, list[PairAlignment]]:
    """Both sides of every pair encoded, interleaved [st, at, st, at, ...], the mask id,
    and the token alignment of each pair."""
    encoded, mask_id = _encode(model, name, interleave_pairs(pairs))
    aligned = [
        align_pair(st.ids, at.ids, st.special, at.special)
        for st, at in zip(encoded[::2], encoded[1::2], strict=True)
    ]
    return encoded, mask_id, aligned


def single_token_copies(sentence: int, enc: Encoded, positions: Sequence[int]) -> list[MaskedCopy]:
    """One copy per position, that position masked and its own token read."""
    return [MaskedCopy(sentence, enc.ids, (i,), (i,), ((enc.ids[i],),)) for i in positions]


def single_token_sums(
    model: LoadedModel,
    encoded: Sequence[Encoded],
    positions: Sequence[Sequence[int]],
    *,
    mask_id: int,
    opts: MaskedOptions,
    progress: ProgressCallback,
) -> np.ndarray:
    """Per sentence, the float64 sum of log P(w_i | S with i masked) over `positions`."""
    copies = [
        c
        for s, (enc, pos) in enumerate(zip(encoded, positions, strict=True))
        for c in single_token_copies(s, enc, pos)
    ]
    results = run_masked_copies(
        model, copies, n_sentences=len(encoded), mask_id=mask_id,
        batch_tokens=opts.batch_tokens, autocast=opts.autocast, progress=progress,
    )  # fmt: skip
    sums = np.zeros(len(encoded), dtype=np.float64)
    np.add.at(sums, [c.sentence for c in copies], [r[0, 0] for r in results])
    return sums


@dataclass(frozen=True)
class PseudoLogLikelihood(SentenceScorer):
    """PLL(S) = sum over non-special i of log P(w_i | S with i masked) (Salazar et al. 2020).

    With `perplexity=True` the score is pseudo-perplexity exp(-PLL/n) instead.
    """

    name: str
    perplexity: bool = False

    def score_sentences(
        self, model: LoadedModel, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]:
        opts = _check_options(self.name, call.options)
        encoded, mask_id = _encode(model, self.name, texts)
        positions = [enc.scored_positions for enc in encoded]
        sums = single_token_sums(
            model, encoded, positions, mask_id=mask_id, opts=opts, progress=call.progress
        )
        scores = []
        for total, enc in zip(sums, encoded, strict=True):
            n = len(enc.scored_positions)
            value = math.exp(-float(total) / n) if self.perplexity else float(total)
            scores.append(SentenceScore(value, n))
        return scores


@dataclass(frozen=True)
class Sides:
    """The encoded sides of a scorer's pairs, interleaved [st, at, st, at, ...], with each
    pair's token alignment and what scoring them needs."""

    model: LoadedModel
    encoded: list[Encoded]
    aligned: list[PairAlignment]
    mask_id: int
    opts: MaskedOptions
    progress: ProgressCallback


class AlignedPairScorer(PairScorer):
    """A masked-LM pair scorer: both sides of every pair are encoded and their tokens
    aligned, then each side is scored by `side_scores` (progress counts sentences, two
    per pair)."""

    name: str

    def score_pairs(
        self, model: LoadedModel, pairs: Sequence[tuple[str, str]], call: ScoringCall
    ) -> list[ScorePair]:
        opts = _check_options(self.name, call.options)
        encoded, mask_id, aligned = _encode_pairs(model, self.name, pairs)
        sides = Sides(model, encoded, aligned, mask_id, opts, call.progress)
        return regroup_pairs(self.side_scores(sides))

    @abstractmethod
    def side_scores(self, sides: Sides) -> list[SentenceScore]:
        """The score of each side, in order [st0, at0, st1, at1, ...]."""


@dataclass(frozen=True)
class CrowSPairsScore(AlignedPairScorer):
    """CPS: sum over unmodified non-special tokens i of log P(w_i | S with i masked)."""

    name: str

    def side_scores(self, sides: Sides) -> list[SentenceScore]:
        positions = [side for a in sides.aligned for side in (a.unmodified_a, a.unmodified_b)]
        sums = single_token_sums(
            sides.model,
            sides.encoded,
            positions,
            mask_id=sides.mask_id,
            opts=sides.opts,
            progress=sides.progress,
        )
        scores = []
        for total, pos in zip(sums, positions, strict=True):
            value = round(float(total), 3) if sides.opts.compat == "reference" else float(total)
            scores.append(SentenceScore(value, len(pos)))
        return scores


@dataclass(frozen=True)
class StereoSetScore(AlignedPairScorer):
    """SSS: mask every modified token at once; mean of log P(w_i | masked S) over i in M.

    `compat: reference` averages the whole |M| x |M| matrix log P(w_j at position i), as
    Kaneko's evaluate.py does. A side with no modified token scores NaN (0 tokens).
    """

    name: str

    def side_scores(self, sides: Sides) -> list[SentenceScore]:
        encoded, opts = sides.encoded, sides.opts
        modified = [side for a in sides.aligned for side in (a.modified_a, a.modified_b)]
        matrix = opts.compat == "reference"
        copies: list[MaskedCopy] = []
        for s, (enc, pos) in enumerate(zip(encoded, modified, strict=True)):
            if not pos:
                continue
            own = tuple(enc.ids[i] for i in pos)
            targets = tuple(own for _ in pos) if matrix else tuple((t,) for t in own)
            copies.append(MaskedCopy(s, enc.ids, pos, pos, targets))
        results = run_masked_copies(
            sides.model, copies, n_sentences=len(encoded), mask_id=sides.mask_id,
            batch_tokens=opts.batch_tokens, autocast=opts.autocast, progress=sides.progress,
        )  # fmt: skip
        means = np.full(len(encoded), np.nan, dtype=np.float64)
        for copy, result in zip(copies, results, strict=True):
            means[copy.sentence] = float(result.mean())
        return [SentenceScore(float(m), len(pos)) for m, pos in zip(means, modified, strict=True)]


@dataclass(frozen=True)
class AllUnmaskedLikelihood(SentenceScorer):
    """AUL: mean over non-special i of log P(w_i | S), one pass on the unmasked sentence.

    With `attention=True` this is AULA: each term weighted by the attention token i
    receives (mean over layers, heads and query positions), still divided by n.
    """

    name: str
    attention: bool = False

    def score_sentences(
        self, model: LoadedModel, texts: Sequence[str], call: ScoringCall
    ) -> list[SentenceScore]:
        opts = _check_options(self.name, call.options)
        encoded, _mask_id = _encode(model, self.name, texts)
        results = run_unmasked(
            model, encoded, with_attention=self.attention, batch_tokens=opts.batch_tokens,
            autocast=opts.autocast, progress=call.progress,
        )  # fmt: skip
        scores = []
        for result in results:
            terms = (
                result.log_probs
                if result.attention is None
                else result.log_probs * result.attention
            )
            scores.append(SentenceScore(float(terms.mean()), len(terms)))
        return scores


PLL_SCORER = PseudoLogLikelihood("pll")
PPPL_SCORER = PseudoLogLikelihood("pppl", perplexity=True)
CPS_SCORER = CrowSPairsScore("cps")
SSS_SCORER = StereoSetScore("sss")
AUL_SCORER = AllUnmaskedLikelihood("aul")
AULA_SCORER = AllUnmaskedLikelihood("aula", attention=True)
