"""ILPS of a text corpus (Kaneko et al. 2022, Table 1): log(P_f / P_m) from paired gender
word lists; the CI comes from a bootstrap over the corpus lines."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from audit.errors import DataError
from audit.measures.base import MeasureOptions
from audit.measures.options import IlpsOptions
from audit.measures.values import coerce_options, json_safe, undefined
from audit.results import MeasureValue
from audit.stats.intervals import bootstrap_interval

_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens ("Ma'am," -> ["ma'am"]; "Mr." -> ["mr"])."""
    return _TOKEN.findall(text.lower())


def _read_lines(path: Path, what: str) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataError(f"{what} file not found: {path}") from None
    except UnicodeDecodeError as err:
        raise DataError(
            f"{what} file {path} is not UTF-8 text ({err.reason} at byte {err.start})"
        ) from None


def load_word_pairs(male_path: str | Path, female_path: str | Path) -> list[tuple[str, str]]:
    """Paired word lists: line i of the male file pairs with line i of the female file.

    Blank lines are errors (they would shift the pairing); '_' joins a multi-word entry.
    """
    male = _read_lines(Path(male_path), "male word list")
    female = _read_lines(Path(female_path), "female word list")
    if len(male) != len(female):
        raise DataError(
            f"paired word lists differ in length: {male_path} has {len(male)} lines, "
            f"{female_path} has {len(female)}; line i of one must pair with line i of the other"
        )
    if not male:
        raise DataError(f"word list {male_path} is empty")
    for path, words in ((male_path, male), (female_path, female)):
        for line_no, word in enumerate(words, start=1):
            if not tokenize(word.replace("_", " ")):
                raise DataError(f"{path}:{line_no}: {word!r} is not a word (blank or punctuation)")
    return [(m.strip(), f.strip()) for m, f in zip(male, female, strict=True)]


def _phrases(words: Sequence[str]) -> set[tuple[str, ...]]:
    return {tuple(tokenize(w.replace("_", " "))) for w in words}


def _count(tokens: list[str], phrases: set[tuple[str, ...]]) -> int:
    total = 0
    for length in sorted({len(p) for p in phrases}):
        grams = Counter(tuple(tokens[i : i + length]) for i in range(len(tokens) - length + 1))
        total += sum(grams[p] for p in phrases if len(p) == length)
    return total


def line_counts(
    lines: Sequence[str], *, male_words: Sequence[str], female_words: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Female-word, male-word and token counts of every line."""
    female, male = _phrases(female_words), _phrases(male_words)
    f, m, t = [], [], []
    for line in lines:
        tokens = tokenize(line)
        f.append(_count(tokens, female))
        m.append(_count(tokens, male))
        t.append(len(tokens))
    return np.array(f), np.array(m), np.array(t)


def ilps(
    corpus_path: str | Path,
    *,
    male_words: Sequence[str],
    female_words: Sequence[str],
    n_bootstrap: int = 0,
    seed: int = 0,
    alpha: float = 0.05,
) -> MeasureValue:
    """ILPS = log(P_f / P_m) of a corpus (natural log; negative = male-skewed).

    P_f, P_m are the female / male word counts over the corpus token count. With
    `n_bootstrap` > 0 the CI resamples lines (seeded); it is withheld, with a note, below
    MIN_ITEMS_FOR_INTERVAL lines or when it has zero width. Undefined when either count is 0.
    """
    path = Path(corpus_path)
    lines = _read_lines(path, "corpus")
    f, m, t = line_counts(lines, male_words=male_words, female_words=female_words)
    total_f, total_m, total_t = int(f.sum()), int(m.sum()), int(t.sum())
    details: dict[str, object] = {
        "female_count": total_f,
        "male_count": total_m,
        "tokens": total_t,
        "lines": len(lines),
        "p_female": total_f / total_t if total_t else None,
        "p_male": total_m / total_t if total_t else None,
    }
    if total_f == 0 or total_m == 0:
        which = "female" if total_f == 0 else "male"
        return undefined("all", len(lines), f"no {which} word occurs in {path.name}", details)
    value = math.log(total_f / total_m)
    ci_low = ci_high = None
    note = ""
    if n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, len(lines), size=(n_bootstrap, len(lines)))
        with np.errstate(divide="ignore", invalid="ignore"):
            reps = np.log(f[idx].sum(axis=1) / m[idx].sum(axis=1))
        interval = bootstrap_interval(
            np.where(np.isfinite(reps), reps, np.nan),
            alpha=alpha,
            n_items=len(lines),
            counted="lines",
        )
        ci_low, ci_high, note = interval.low, interval.high, interval.note
        details.update(interval.details)
    return MeasureValue(
        group="all",
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        n=len(lines),
        note=note,
        details=json_safe(details),
    )


class Ilps:
    """ILPS as a registered measure: it reads a corpus named in its options, not scores."""

    def compute_corpus(
        self, *, options: MeasureOptions, seed: int, n_bootstrap: int, alpha: float = 0.05
    ) -> MeasureValue:
        """ILPS of `options.corpus` with the word lists `options.male_words/female_words`."""
        opts = coerce_options(options, IlpsOptions)
        pairs = load_word_pairs(opts.male_words, opts.female_words)
        return ilps(
            opts.corpus,
            male_words=[m for m, _ in pairs],
            female_words=[f for _, f in pairs],
            n_bootstrap=n_bootstrap,
            seed=seed,
            alpha=alpha,
        )


ILPS = Ilps()
