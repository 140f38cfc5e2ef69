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

The probabilities are checked and arranged into scored rows in `audit.extrinsic.nli_rows`;
the value FN_female - FN_male, its CI and its replicates are `audit.extrinsic.nli_gap`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from audit.data.tasks.nli import (
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
from audit.extrinsic.nli_gap import fraction_neutral_gap
from audit.extrinsic.nli_rows import Aggregate, Gender, NliRows, gendered_rows
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
    "nli_bias_scores",
    "nli_word_list_folder",
    "write_nli_pairs",
]

#: The default thresholds tau of threshold:tau (Dev et al. 2020).
DEFAULT_THRESHOLDS = (0.5, 0.7)


def _group(
    rows: NliRows,
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
    gendered = gendered_rows(probs, labels, pairs, aggregate, gender_of)
    rows = gendered.rows
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
    for gender in ("female", "male"):
        mask = gendered.mask(gender)
        if mask.any():
            groups.append(group(mask, gender, "gender"))
    for word in sorted({w for w in rows.word if w}):
        groups.append(group(np.array([w == word for w in rows.word]), word, "word"))
    head = groups[0]
    female, male = gendered.mask("female"), gendered.mask("male")
    gap = fraction_neutral_gap(rows, female, male, seed=seed, n_bootstrap=n_bootstrap, alpha=alpha)
    unknown = sorted(
        {w for w, g in zip(rows.word, gendered.genders, strict=True) if w and g is None}
    )
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
