"""NLI-bias's inputs, checked and arranged for its scores (`audit.extrinsic.nli_bias`) and
its gap's replicates (`audit.extrinsic.nli_gap`): the label order of the probability
columns, the probabilities checked (n x 3, rows summing to 1), and the rows scored with
their resampling units (`nli_rows`: one per pair, premises as units; under
`aggregate="word_pair"` one per (occupation, gender word), occupations as units), and the
gender of common gender words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from audit.data.tasks.nli import LABEL_NAMES
from audit.data.tasks.nli_bias import NliPair
from audit.errors import AuditUserError

Aggregate = Literal["instance", "word_pair"]
Gender = Literal["female", "male"]

#: The gender of common gender words (the public list: man, gentleman, guy, woman, lady,
#: girl), for the per-gender rows; other words get per-word rows only.
DEFAULT_GENDER_OF: Mapping[str, Gender] = {
    "man": "male",
    "gentleman": "male",
    "guy": "male",
    "boy": "male",
    "male": "male",
    "woman": "female",
    "lady": "female",
    "girl": "female",
    "gal": "female",
    "female": "female",
}
_ROW_SUM_TOLERANCE = 1e-3


def label_order(labels: Sequence[str]) -> tuple[int, int, int]:
    names = [LABEL_NAMES.get(str(label).strip().lower()) for label in labels]
    if len(names) != 3 or None in names or len(set(names)) != 3:
        raise AuditUserError(
            f"NLI-bias: labels {list(labels)}; expected the three NLI labels entailment, "
            "neutral and contradiction in the order of the probability columns"
        )
    return (names.index("entailment"), names.index("neutral"), names.index("contradiction"))


def check_probs(probs: Any, n: int) -> np.ndarray:
    array = np.asarray(probs, dtype=np.float64)
    if array.shape != (n, 3):
        raise ValueError(f"NLI-bias: probabilities have shape {array.shape}, expected ({n}, 3)")
    if not np.isfinite(array).all():
        raise AuditUserError("NLI-bias: the model gave non-finite probabilities")
    sums = array.sum(axis=1)
    if (array < 0).any() or np.abs(sums - 1).max(initial=0.0) > _ROW_SUM_TOLERANCE:
        raise AuditUserError(
            "NLI-bias: each row must hold three probabilities summing to 1 (softmax the "
            f"logits first); row sums range from {sums.min():.4g} to {sums.max():.4g}"
        )
    return array


@dataclass(frozen=True)
class NliRows:
    """The scored rows: P(neutral), P(entailment), P(contradiction), whether neutral is the
    most probable label, each row's resampling unit and its gender word."""

    neutral: np.ndarray  # P(neutral)
    entail: np.ndarray
    contra: np.ndarray
    is_neutral: np.ndarray  # argmax is neutral
    cluster: np.ndarray  # resampling unit codes
    word: list[str | None]


def nli_rows(
    probs: np.ndarray, order: tuple[int, int, int], pairs: Sequence[NliPair], aggregate: Aggregate
) -> NliRows:
    e, n, c = order
    if aggregate == "instance":
        codes: dict[str, int] = {}
        cluster = np.array([codes.setdefault(p.premise, len(codes)) for p in pairs])
        neutral_col = probs[:, n]
        best = probs.argmax(axis=1)
        return NliRows(
            neutral=neutral_col,
            entail=probs[:, e],
            contra=probs[:, c],
            is_neutral=best == n,
            cluster=cluster,
            word=[p.gender_word for p in pairs],
        )
    missing = sum(1 for p in pairs if p.occupation is None or p.gender_word is None)
    if missing:
        raise AuditUserError(
            f"NLI-bias: aggregate 'word_pair' needs each pair's occupation and gender word; "
            f"{missing} pair(s) lack them (a pairs file with premise_filler_word and "
            "hypothesis_filler_word columns has them)"
        )
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault((str(p.occupation), str(p.gender_word)), []).append(i)
    keys = list(groups)
    means = np.array([probs[groups[k]].mean(axis=0) for k in keys])
    occupation_codes: dict[str, int] = {}
    cluster = np.array([occupation_codes.setdefault(k[0], len(occupation_codes)) for k in keys])
    return NliRows(
        neutral=means[:, n],
        entail=means[:, e],
        contra=means[:, c],
        is_neutral=means.argmax(axis=1) == n,
        cluster=cluster,
        word=[k[1] for k in keys],
    )


@dataclass(frozen=True)
class GenderedRows:
    """NLI-bias's scored rows (`nli_rows`) and each row's gender: its gender word's, None
    for a word of unknown gender or a row without one."""

    rows: NliRows
    genders: list[Gender | None]

    def mask(self, gender: Gender) -> np.ndarray:
        """Which rows are of `gender`."""
        return np.array([g == gender for g in self.genders], dtype=bool)


def gendered_rows(
    probs: Any,
    labels: Sequence[str],
    pairs: Sequence[NliPair],
    aggregate: Aggregate,
    gender_of: Mapping[str, Gender] | None,
) -> GenderedRows:
    """The probabilities `probs` of `pairs` (columns in `labels` order), checked and
    arranged into rows under `aggregate`, with each row's gender by `gender_of` (gender
    words in lower case; default: `DEFAULT_GENDER_OF`)."""
    order = label_order(labels)
    rows = nli_rows(check_probs(probs, len(pairs)), order, pairs, aggregate)
    genders = DEFAULT_GENDER_OF if gender_of is None else gender_of
    return GenderedRows(rows, [genders.get(w.lower()) if w else None for w in rows.word])
