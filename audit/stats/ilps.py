"""ILPS of a text (Kurita et al. 2019, Kaneko et al. 2022 Table 1): log(P_f / P_m) from
paired gender word lists, with a seeded bootstrap over lines.

The arithmetic lives here, below both of its users: the `ilps` measure
(`audit.measures.ilps`, which wraps it in a `MeasureValue`) and the corpus records of
variants (`audit.variants.corpus_record`), so the two give the same numbers without
`audit.variants` importing `audit.measures`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from audit.stats.intervals import bootstrap_interval

_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens ("Ma'am," -> ["ma'am"]; "Mr." -> ["mr"])."""
    return _TOKEN.findall(text.lower())


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


@dataclass(frozen=True)
class IlpsEstimate:
    """ILPS of a set of lines: `value` None (with `undefined` saying why) when either
    count is 0; `ci_low`/`ci_high` None with `note` when the interval is withheld."""

    value: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    undefined: str = ""
    details: dict[str, object] = field(default_factory=dict)


def estimate_ilps(
    lines: Sequence[str],
    *,
    male_words: Sequence[str],
    female_words: Sequence[str],
    n_bootstrap: int = 0,
    seed: int = 0,
    alpha: float = 0.05,
    corpus_name: str = "the corpus",
) -> IlpsEstimate:
    """ILPS = log(P_f / P_m) of lines (natural log; negative = male-skewed).

    P_f, P_m are the female / male word counts over the token count. With `n_bootstrap`
    > 0 the CI resamples lines (seeded); it is withheld, with a note, below
    MIN_ITEMS_FOR_INTERVAL lines or when it has zero width. Undefined when either count
    is 0 (the reason names `corpus_name`).
    """
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
        return IlpsEstimate(
            None, len(lines), undefined=f"no {which} word occurs in {corpus_name}", details=details
        )
    value = math.log(total_f / total_m)
    if n_bootstrap <= 0:
        return IlpsEstimate(value, len(lines), details=details)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(lines), size=(n_bootstrap, len(lines)))
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.log(f[idx].sum(axis=1) / m[idx].sum(axis=1))
    interval = bootstrap_interval(
        np.where(np.isfinite(reps), reps, np.nan), alpha=alpha, n_items=len(lines), counted="lines"
    )
    details.update(interval.details)
    return IlpsEstimate(
        value, len(lines), interval.low, interval.high, note=interval.note, details=details
    )
