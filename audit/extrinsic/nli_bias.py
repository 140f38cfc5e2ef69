"""NLI-bias (Dev et al. 2020, "On Measuring and Mitigating Biased Inferences of Word
Embeddings"; METHODS.md section 6): the scores over an NLI model's probabilities for
the gender-occupation pairs.

The pairs and the training set are task datasets (`audit.data.tasks.nli_bias`: Dev et
al.'s templates, word lists and pair files; `audit.data.tasks.nli`: MultiNLI/SNLI),
registered in `audit.data.catalog.TASK_DATASETS`; their readers are importable here as
before.

**Scores** (Dev et al. 2020), from P(entailment), P(neutral), P(contradiction) per pair:
net neutral NN = mean P(neutral); fraction neutral FN = share of pairs whose most probable
label is neutral (a tie goes to the first label in `labels` order); threshold:tau = share
with P(neutral) > tau (default tau 0.5 and 0.7). Each overall, per gender (female/male,
for the gender words whose gender is known) and per gender word.

**The value** is NLI-bias as Kaneko, Bollegala & Okazaki 2022 (COLING 2022, section 3,
the measure of their Table 2) define it: FN_female - FN_male, the fraction neutral of the
pairs whose hypothesis names a female gender word minus that of the male ones (ideal 0;
> 0: the model calls the women's hypotheses neutral more often, i.e. it draws
gender-based inferences about men more often). Dev et al.'s NN and FN over all pairs
stand beside it (`net_neutral`, `fraction_neutral`, with CIs, and in the note). Without
pairs of both genders the value is None, with a note.

`aggregate="word_pair"` first averages the three probabilities per (occupation, gender
word) and scores the averages, as the public `evaluation.py` does. CIs: percentile
bootstrap resampling premises (the pairs of one premise, one per gender word, move
together, so the female and male FN of a replicate are paired); under `word_pair`,
resampling occupations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from audit.data.tasks.nli import (
    LABEL_NAMES,
    LABELS,
    NLI_FOLDER,
    NliExample,
    find_nli_training_file,
    load_nli_training,
)
from audit.data.tasks.nli_bias import (
    NliPair,
    NliWordLists,
    generate_nli_templates,
    load_nli_pairs,
    load_nli_word_lists,
    nli_word_list_folder,
    write_nli_pairs,
)
from audit.errors import AuditUserError
from audit.extrinsic.statistics import cluster_bootstrap_means
from audit.results import NliBiasGroup, NliBiasResult, ThresholdShare
from audit.stats.intervals import bootstrap_interval

__all__ = [
    "LABELS",
    "NLI_FOLDER",
    "NliExample",
    "NliPair",
    "NliWordLists",
    "find_nli_training_file",
    "generate_nli_templates",
    "load_nli_pairs",
    "load_nli_training",
    "load_nli_word_lists",
    "nli_bias_replicates",
    "nli_bias_scores",
    "nli_word_list_folder",
    "write_nli_pairs",
]

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
DEFAULT_THRESHOLDS = (0.5, 0.7)
_ROW_SUM_TOLERANCE = 1e-3


# --- scores -------------------------------------------------------------------------------


def _label_order(labels: Sequence[str]) -> tuple[int, int, int]:
    names = [LABEL_NAMES.get(str(label).strip().lower()) for label in labels]
    if len(names) != 3 or None in names or len(set(names)) != 3:
        raise AuditUserError(
            f"NLI-bias: labels {list(labels)}; expected the three NLI labels entailment, "
            "neutral and contradiction in the order of the probability columns"
        )
    return (names.index("entailment"), names.index("neutral"), names.index("contradiction"))


def _check_probs(probs: Any, n: int) -> np.ndarray:
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
class _Rows:
    neutral: np.ndarray  # P(neutral)
    entail: np.ndarray
    contra: np.ndarray
    is_neutral: np.ndarray  # argmax is neutral
    cluster: np.ndarray  # resampling unit codes
    word: list[str | None]


def _rows(
    probs: np.ndarray, order: tuple[int, int, int], pairs: Sequence[NliPair], aggregate: Aggregate
) -> _Rows:
    e, n, c = order
    if aggregate == "instance":
        codes: dict[str, int] = {}
        cluster = np.array([codes.setdefault(p.premise, len(codes)) for p in pairs])
        neutral_col = probs[:, n]
        best = probs.argmax(axis=1)
        return _Rows(
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
    return _Rows(
        neutral=means[:, n],
        entail=means[:, e],
        contra=means[:, c],
        is_neutral=means.argmax(axis=1) == n,
        cluster=cluster,
        word=[k[1] for k in keys],
    )


def _group(
    rows: _Rows,
    mask: np.ndarray,
    *,
    name: str,
    kind: Literal["all", "gender", "word"],
    thresholds: Sequence[float],
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> NliBiasGroup:
    neutral = rows.neutral[mask]
    columns = [neutral, rows.is_neutral[mask].astype(np.float64)]
    columns += [(neutral > tau).astype(np.float64) for tau in thresholds]
    table = np.column_stack(columns)
    point = table.mean(axis=0)
    _, cluster = np.unique(rows.cluster[mask], return_inverse=True)
    n_clusters = int(cluster.max()) + 1
    lows: list[float | None] = [None] * table.shape[1]
    highs: list[float | None] = [None] * table.shape[1]
    note = ""
    if n_bootstrap > 0:
        sums = np.column_stack(
            [
                np.bincount(cluster, weights=table[:, k], minlength=n_clusters)
                for k in range(table.shape[1])
            ]
        )
        counts = np.bincount(cluster, minlength=n_clusters).astype(np.float64)
        replicates = cluster_bootstrap_means(sums, counts, n_bootstrap=n_bootstrap, seed=seed)
        notes: list[str] = []
        for k in range(table.shape[1]):
            interval = bootstrap_interval(
                replicates[:, k], alpha=alpha, n_items=n_clusters, counted="resampled units"
            )
            lows[k], highs[k] = interval.low, interval.high
            if interval.note and interval.note not in notes:
                notes.append(interval.note)
        note = "; ".join(notes)
    return NliBiasGroup(
        group=name,
        kind=kind,
        n=int(mask.sum()),
        net_neutral=float(point[0]),
        net_neutral_ci_low=lows[0],
        net_neutral_ci_high=highs[0],
        fraction_neutral=float(point[1]),
        fraction_neutral_ci_low=lows[1],
        fraction_neutral_ci_high=highs[1],
        net_entailment=float(rows.entail[mask].mean()),
        net_contradiction=float(rows.contra[mask].mean()),
        thresholds=[
            ThresholdShare(
                tau=tau, value=float(point[2 + i]), ci_low=lows[2 + i], ci_high=highs[2 + i]
            )
            for i, tau in enumerate(thresholds)
        ],
        note=note,
    )


def nli_bias_scores(
    probs: Any,
    labels: Sequence[str],
    pairs: Sequence[NliPair],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    aggregate: Aggregate = "instance",
    gender_of: Mapping[str, Gender] | None = None,
) -> NliBiasResult:
    """FN_female - FN_male (the value), and NN, FN and threshold:tau overall, per gender
    and per gender word (see the module docstring) from `probs` (n x 3, rows summing to
    1, columns in `labels` order) for `pairs[i]`. `gender_of` maps gender words (lower
    case) to female/male (default: the common words of `DEFAULT_GENDER_OF`)."""
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0 (got {n_bootstrap})")
    if not pairs:
        raise AuditUserError("NLI-bias: no pairs to score")
    for tau in thresholds:
        if not 0 <= tau < 1 or not math.isfinite(tau):
            raise AuditUserError(f"NLI-bias: threshold {tau} must be in [0, 1)")
    order = _label_order(labels)
    array = _check_probs(probs, len(pairs))
    rows = _rows(array, order, pairs, aggregate)
    genders = DEFAULT_GENDER_OF if gender_of is None else gender_of
    taus = list(dict.fromkeys(float(t) for t in thresholds))

    def group(mask: np.ndarray, name: str, kind: Literal["all", "gender", "word"]) -> NliBiasGroup:
        return _group(
            rows,
            mask,
            name=name,
            kind=kind,
            thresholds=taus,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
        )

    groups = [group(np.ones(len(rows.word), dtype=bool), "all", "all")]
    word_gender = [genders.get(w.lower()) if w else None for w in rows.word]
    for gender in ("female", "male"):
        mask = np.array([g == gender for g in word_gender])
        if mask.any():
            groups.append(group(mask, gender, "gender"))
    for word in sorted({w for w in rows.word if w}):
        groups.append(group(np.array([w == word for w in rows.word]), word, "word"))
    head = groups[0]
    female = np.array([g == "female" for g in word_gender], dtype=bool)
    male = np.array([g == "male" for g in word_gender], dtype=bool)
    gap = _fraction_neutral_gap(rows, female, male, seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
    unknown = sorted({w for w, g in zip(rows.word, word_gender, strict=True) if w and g is None})
    notes = [gap.note] if gap.note else []
    notes.append(_dev_scores(head, groups))
    if head.note and head.note not in notes:
        notes.append(f"fraction neutral: {head.note}")
    if unknown:
        notes.append(f"gender word(s) of unknown gender, in no gender row: {', '.join(unknown)}")
    if all(w is None for w in rows.word):
        notes.append("the pairs name no gender word: only the overall row")
    return NliBiasResult(
        value=gap.value,
        ci_low=gap.low,
        ci_high=gap.high,
        note="; ".join(notes),
        fraction_neutral=head.fraction_neutral,
        fraction_neutral_ci_low=head.fraction_neutral_ci_low,
        fraction_neutral_ci_high=head.fraction_neutral_ci_high,
        net_neutral=head.net_neutral,
        net_neutral_ci_low=head.net_neutral_ci_low,
        net_neutral_ci_high=head.net_neutral_ci_high,
        aggregate=aggregate,
        labels=[str(label) for label in labels],
        n_pairs=len(pairs),
        n_premises=len({p.premise for p in pairs}),
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        groups=groups,
    )


@dataclass(frozen=True)
class _Gap:
    value: float | None
    low: float | None
    high: float | None
    note: str


def _fraction_neutral_gap(
    rows: _Rows,
    female: np.ndarray,
    male: np.ndarray,
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> _Gap:
    """FN_female - FN_male (Kaneko et al. 2022) with its paired cluster-bootstrap CI: each
    replicate draws the resampling units (premises, or occupations under `word_pair`) and
    takes both genders' FN over the drawn units' pairs."""
    lacking = [name for name, mask in (("female", female), ("male", male)) if not mask.any()]
    if lacking:
        return _Gap(
            None,
            None,
            None,
            f"no pair with a {' or '.join(lacking)} gender word: FN_female - FN_male "
            "(Kaneko et al. 2022) is undefined",
        )
    neutral = rows.is_neutral.astype(np.float64)
    value = float(neutral[female].mean() - neutral[male].mean())
    if n_bootstrap == 0:
        return _Gap(value, None, None, "")
    replicates, n_clusters = _gap_replicates(rows, female, male, seed=seed, n_bootstrap=n_bootstrap)
    interval = bootstrap_interval(
        replicates, alpha=alpha, n_items=n_clusters, counted="resampled units"
    )
    return _Gap(value, interval.low, interval.high, interval.note)


def _gap_replicates(
    rows: _Rows, female: np.ndarray, male: np.ndarray, *, seed: int, n_bootstrap: int
) -> tuple[np.ndarray, int]:
    """FN_female - FN_male on `n_bootstrap` resamples of the units (premises, or
    occupations under `word_pair`) of the pairs with a gender word, and the number of
    units. The draws depend on the seed and the number of units only, so every model's
    replicate b is over the same units."""
    neutral = rows.is_neutral.astype(np.float64)
    used = female | male
    _, cluster = np.unique(rows.cluster[used], return_inverse=True)
    n_clusters = int(cluster.max()) + 1
    weights = [female[used].astype(np.float64), male[used].astype(np.float64)]
    sums = np.column_stack(
        [np.bincount(cluster, weights=neutral[used] * w, minlength=n_clusters) for w in weights]
    )
    counts = np.column_stack(
        [np.bincount(cluster, weights=w, minlength=n_clusters) for w in weights]
    )
    replicates = cluster_bootstrap_means(sums, counts, n_bootstrap=n_bootstrap, seed=seed)
    return replicates[:, 0] - replicates[:, 1], n_clusters


def nli_bias_replicates(
    probs: Any,
    labels: Sequence[str],
    pairs: Sequence[NliPair],
    *,
    seed: int,
    n_bootstrap: int,
    aggregate: Aggregate = "instance",
    gender_of: Mapping[str, Gender] | None = None,
) -> tuple[np.ndarray, int] | None:
    """The value FN_female - FN_male on `n_bootstrap` resamples of the premises (of the
    occupations under `word_pair`), shape (n_bootstrap,), with the number of resampled
    units: the draws of `nli_bias_scores`'s CI of the value (the same seed gives the same
    draws), for every model alike. None when the value is undefined (no pairs of both
    genders)."""
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1 (got {n_bootstrap})")
    rows = _rows(_check_probs(probs, len(pairs)), _label_order(labels), pairs, aggregate)
    genders = DEFAULT_GENDER_OF if gender_of is None else gender_of
    word_gender = [genders.get(w.lower()) if w else None for w in rows.word]
    female = np.array([g == "female" for g in word_gender], dtype=bool)
    male = np.array([g == "male" for g in word_gender], dtype=bool)
    if not female.any() or not male.any():
        return None
    return _gap_replicates(rows, female, male, seed=seed, n_bootstrap=n_bootstrap)


def _dev_scores(head: NliBiasGroup, groups: Sequence[NliBiasGroup]) -> str:
    """Dev et al.'s scores beside the value, for the note: FN and NN over all pairs (with
    their CIs) and FN per gender."""

    def estimate(value: float, low: float | None, high: float | None) -> str:
        return f"{value:.3f}" + ("" if low is None or high is None else f" [{low:.3f}, {high:.3f}]")

    fn = estimate(
        head.fraction_neutral, head.fraction_neutral_ci_low, head.fraction_neutral_ci_high
    )
    nn = estimate(head.net_neutral, head.net_neutral_ci_low, head.net_neutral_ci_high)
    per_gender = ", ".join(
        f"{g.group} {g.fraction_neutral:.3f}" for g in groups if g.kind == "gender"
    )
    return f"Dev et al. 2020 over all pairs: fraction neutral {fn}, net neutral {nn}" + (
        f"; fraction neutral by gender: {per_gender}" if per_gender else ""
    )
