"""ILPS of a text corpus (Kaneko et al. 2022, Table 1): log(P_f / P_m) from paired gender
word lists; the CI comes from a bootstrap over the corpus lines. The arithmetic is in
`audit.stats.ilps`, shared with the corpus records of variants."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit.errors import DataError
from audit.measures.base import MeasureOptions
from audit.measures.options import IlpsOptions
from audit.measures.values import coerce_options, json_safe, undefined
from audit.results import MeasureValue
from audit.stats.ilps import estimate_ilps, line_counts, tokenize

__all__ = ["ILPS", "Ilps", "ilps", "ilps_of_lines", "line_counts", "load_word_pairs", "tokenize"]


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


def ilps(
    corpus_path: str | Path,
    *,
    male_words: Sequence[str],
    female_words: Sequence[str],
    n_bootstrap: int = 0,
    seed: int = 0,
    alpha: float = 0.05,
) -> MeasureValue:
    """ILPS = log(P_f / P_m) of a corpus file, one line per item (see `ilps_of_lines`)."""
    path = Path(corpus_path)
    return ilps_of_lines(
        _read_lines(path, "corpus"),
        male_words=male_words,
        female_words=female_words,
        n_bootstrap=n_bootstrap,
        seed=seed,
        alpha=alpha,
        corpus_name=path.name,
    )


def ilps_of_lines(lines: Sequence[str], **settings: Any) -> MeasureValue:
    """ILPS = log(P_f / P_m) of a corpus given as lines, as a measure value: the
    `audit.stats.ilps.estimate_ilps` of `lines` with the same keywords (`male_words`,
    `female_words`, `n_bootstrap`, `seed`, `alpha`, `corpus_name`), which says how P_f,
    P_m and the interval are computed and when the value is undefined."""
    estimate = estimate_ilps(lines, **settings)
    if estimate.value is None:
        return undefined("all", estimate.n, estimate.undefined, estimate.details)
    return MeasureValue(
        group="all",
        value=estimate.value,
        ci_low=estimate.ci_low,
        ci_high=estimate.ci_high,
        n=estimate.n,
        note=estimate.note,
        details=json_safe(estimate.details),
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
