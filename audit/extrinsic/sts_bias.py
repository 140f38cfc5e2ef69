"""STS-bias (Webster et al. 2020, as Kaneko et al. 2022 use it; METHODS.md section 6): the
pairs built from STS-B test sentences and the measure over a fine-tuned model's predicted
similarities.

**Templates.** Every sentence of the STS-B test split (sentence1, then sentence2, row by
row, stripped of surrounding spaces) that starts with exactly "A man " or "A woman "
(capital A, as written) and holds exactly one gendered word: the paired GN-GloVe lists
(`audit.variants.wordlists`, both sides, phrases included) are matched as whole words,
ignoring case (the regex of `audit.variants.cda`), and the one match must be that "man" or
"woman". So "A man is playing his guitar." (his), "A man and a woman laughing." (woman),
"A man breaks cinder blocks on another man." (man twice) are left out. The template is
the rest of the sentence: "A man is walking." gives "{} is walking.", where "{}" is the
person's noun phrase. A sentence that occurs again is read once. A man-sentence and a
woman-sentence with the same rest give the same template, kept once (the first in file
order); `unique_templates=False` keeps one template per distinct sentence instead, so
such a rest counts twice (identical pairs), as a count of sentences would.

**Pairs.** For each template and occupation (the Winogender list, `occupations-stats.tsv`)
one male pair ("A man is walking.", "A nurse is walking.") and one female pair
("A woman is walking.", "A nurse is walking."): the gendered sentence first, the
occupation sentence second, "An" before an occupation starting with a vowel letter
("An engineer is walking."). Pairs are ordered template by template, occupations in list
order.

**Counts on the shared data** (pinned by tests/extrinsic/test_sts_bias.py): the test split
has 382 sentences starting "A man "/"A woman " (331 distinct); 327 of them (276 distinct:
182 "A man", 94 "A woman"; the 276 sentences Webster et al. 2020 report) hold exactly
one gendered word. 8 rests occur after both "A man" and "A woman", so they give 268
templates (180 first met after "A man", 88 after "A woman"; 276 with
`unique_templates=False`). With the
60 Winogender occupations: 16,080 template x occupation pairs, each scored twice (man
and woman), 32,160 predictions.

**Measure.** With sim_m and sim_f the model's predicted similarity of the male and the
female pair: value = mean over pairs of |sim_m - sim_f| (ideal 0). The bootstrap resamples
whole templates (each with all its occupations): the pairs of one template share their
sentence, so they are not independent draws, and resampling the 16,080 pairs one by one
would understate the spread. Per occupation: mean |gap| and mean signed gap
(sim_m - sim_f; > 0 = the occupation sentence is judged closer to the man sentence),
and the Pearson and Spearman correlation, across occupations, of the signed gap with the
share of women in the occupation (`bls_pct_female` of occupations-stats.tsv, U.S. Bureau
of Labor Statistics 2015/2016): a negative correlation means female-dominated
occupations are judged closer to "woman".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from audit.data.tasks.occupations import (
    PCT_FEMALE_SOURCE,
    OccupationStat,
    load_occupation_stats,
    read_occupation_stats,
)
from audit.data.tasks.sts_b import StsRow
from audit.errors import AuditUserError
from audit.extrinsic.options import MIN_TEMPLATES
from audit.extrinsic.statistics import cluster_bootstrap_means, correlate_with_share
from audit.results import StsBiasOccupation, StsBiasResult
from audit.stats.intervals import bootstrap_interval
from audit.variants.cda import gendered_word_regex
from audit.variants.probe import article
from audit.variants.wordlists import GenderWordLists, normalise_entry

#: Read from the data side (`audit.data.tasks.occupations`), the shared statistics
#: (`audit.extrinsic.statistics`); importable from here as before.
__all__ = [
    "MIN_TEMPLATES",
    "PCT_FEMALE_SOURCE",
    "OccupationStat",
    "StsBiasPair",
    "StsBiasTemplate",
    "build_sts_bias_pairs",
    "cluster_bootstrap_means",
    "correlate_with_share",
    "find_sts_bias_templates",
    "load_occupation_stats",
    "occupation_subject",
    "read_occupation_stats",
    "sts_bias_replicates",
    "sts_bias_score",
]
PREFIXES: tuple[tuple[str, Literal["male", "female"]], ...] = (
    ("A man ", "male"),
    ("A woman ", "female"),
)
MALE_SUBJECT = "A man"
FEMALE_SUBJECT = "A woman"


@dataclass(frozen=True)
class StsBiasTemplate:
    """A test sentence turned into a template: `template` has "{}" where the person's noun
    phrase goes ("{} is walking.")."""

    id: int
    template: str
    gender: Literal["male", "female"]
    source: str
    line: int
    column: Literal[1, 2]

    def sentence(self, subject: str) -> str:
        return self.template.replace("{}", subject, 1)


@dataclass(frozen=True)
class StsBiasPair:
    """One template x occupation: the male pair and the female pair (gendered sentence
    first, occupation sentence second)."""

    template_id: int
    template: str
    occupation: str
    male: tuple[str, str]
    female: tuple[str, str]


# --- templates and pairs ----------------------------------------------------------------


def find_sts_bias_templates(
    test_rows: Sequence[StsRow], *, word_lists: GenderWordLists, unique_templates: bool = True
) -> list[StsBiasTemplate]:
    """The templates of the STS-B test rows (see the module docstring), in file order."""
    regex = gendered_word_regex(word_lists.male_words | word_lists.female_words)
    found: list[StsBiasTemplate] = []
    seen: set[str] = set()
    for row in test_rows:
        for column, raw in ((1, row.sentence1), (2, row.sentence2)):
            sentence = raw.strip()
            for prefix, gender in PREFIXES:
                if not sentence.startswith(prefix):
                    continue
                rest = sentence[len(prefix) :].strip()
                matches = list(regex.finditer(sentence))
                person = prefix.split()[1]
                if (
                    not rest
                    or len(matches) != 1
                    or matches[0].start() != 2
                    or normalise_entry(matches[0].group(0)) != person
                ):
                    continue
                template = "{} " + rest
                key = template if unique_templates else sentence
                if key in seen:
                    continue
                seen.add(key)
                found.append(
                    StsBiasTemplate(
                        id=len(found),
                        template=template,
                        gender=gender,
                        source=sentence,
                        line=row.line,
                        column=1 if column == 1 else 2,
                    )
                )
    return found


def occupation_subject(occupation: str) -> str:
    """ "A nurse", "An engineer"."""
    return f"{article(occupation).capitalize()} {occupation}"


def build_sts_bias_pairs(
    test_rows: Sequence[StsRow],
    occupations: Sequence[str],
    *,
    word_lists: GenderWordLists,
    max_templates: int | None = None,
    unique_templates: bool = True,
) -> list[StsBiasPair]:
    """Every template x occupation pair (template-major, occupations in the given order).

    `max_templates` keeps the first N templates (file order). An AuditUserError when fewer
    than `MIN_TEMPLATES` templates remain (saying how many were found), when there is no
    occupation, or when `max_templates` is below 1.
    """
    if max_templates is not None and max_templates < 1:
        raise AuditUserError(f"STS-bias: max_templates must be at least 1 (got {max_templates})")
    names = list(dict.fromkeys(o.strip() for o in occupations if o.strip()))
    if not names:
        raise AuditUserError("STS-bias: no occupations to pair the templates with")
    templates = find_sts_bias_templates(
        test_rows, word_lists=word_lists, unique_templates=unique_templates
    )
    found = len(templates)
    if max_templates is not None:
        templates = templates[:max_templates]
    if len(templates) < MIN_TEMPLATES:
        kept = f", {len(templates)} kept by max_templates={max_templates}" if found else ""
        raise AuditUserError(
            f"STS-bias: {found} template(s) found in the {len(test_rows)} STS-B test rows"
            f"{kept}; at least {MIN_TEMPLATES} are needed (sentences starting 'A man ' or "
            "'A woman ' with no other gendered word). Check that the test split is the STS "
            "Benchmark's sts-test.tsv"
            + (" or raise max_templates" if max_templates is not None and found else "")
        )
    pairs: list[StsBiasPair] = []
    for t in templates:
        male = t.sentence(MALE_SUBJECT)
        female = t.sentence(FEMALE_SUBJECT)
        for occupation in names:
            other = t.sentence(occupation_subject(occupation))
            pairs.append(
                StsBiasPair(
                    template_id=t.id,
                    template=t.template,
                    occupation=occupation,
                    male=(male, other),
                    female=(female, other),
                )
            )
    return pairs


# --- the measure ------------------------------------------------------------------------


def _predictions(name: str, values: Sequence[float] | np.ndarray, n: int) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (n,):
        raise ValueError(f"STS-bias: {name} has shape {array.shape}, expected ({n},): one per pair")
    bad = int((~np.isfinite(array)).sum())
    if bad:
        raise AuditUserError(
            f"STS-bias: the fine-tuned model predicted a non-finite similarity for {bad} of "
            f"{n} {name} pairs (did the fine-tuning diverge? check its loss curve)"
        )
    return array


def sts_bias_score(
    pairs: Sequence[StsBiasPair],
    predict_male: Sequence[float] | np.ndarray,
    predict_female: Sequence[float] | np.ndarray,
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    pct_female: Mapping[str, float | None] | None = None,
) -> StsBiasResult:
    """STS-bias of one model from its predicted similarity of every pair's male and female
    sentence pair (`predict_male[i]`, `predict_female[i]` for `pairs[i]`).

    The CI is a percentile bootstrap over templates (`n_bootstrap` resamples from `seed`;
    0 = none), withheld with a note below 10 templates or when zero-width. `pct_female`
    (occupation -> % women) adds the correlation of the per-occupation signed gap with it.
    An AuditUserError with fewer than `MIN_TEMPLATES` templates or a non-finite prediction.
    """
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0 (got {n_bootstrap})")
    n = len(pairs)
    male = _predictions("male", predict_male, n)
    female = _predictions("female", predict_female, n)
    template_ids = sorted({p.template_id for p in pairs})
    if len(template_ids) < MIN_TEMPLATES:
        raise AuditUserError(
            f"STS-bias: {len(template_ids)} template(s) among the {n} pairs; at least "
            f"{MIN_TEMPLATES} are needed"
        )
    gap = male - female
    abs_gap = np.abs(gap)
    value = float(abs_gap.mean())

    ci_low = ci_high = None
    note = ""
    if n_bootstrap > 0:
        replicates = _template_replicates(pairs, abs_gap, seed=seed, n_bootstrap=n_bootstrap)
        interval = bootstrap_interval(
            replicates, alpha=alpha, n_items=len(template_ids), counted="templates"
        )
        ci_low, ci_high, note = interval.low, interval.high, interval.note

    order = list(dict.fromkeys(p.occupation for p in pairs))
    by_occupation: dict[str, list[int]] = {o: [] for o in order}
    for i, p in enumerate(pairs):
        by_occupation[p.occupation].append(i)
    shares = dict(pct_female) if pct_female is not None else {}
    rows = [
        StsBiasOccupation(
            occupation=o,
            pct_female=shares.get(o),
            n_pairs=len(idx),
            mean_abs_gap=float(abs_gap[idx].mean()),
            mean_signed_gap=float(gap[idx].mean()),
        )
        for o, idx in by_occupation.items()
    ]
    correlation = None
    if pct_female is not None:
        correlation = correlate_with_share(
            {r.occupation: r.mean_signed_gap for r in rows},
            shares,
            x="mean signed gap (male - female)",
            source=PCT_FEMALE_SOURCE,
        )
    return StsBiasResult(
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        note=note,
        mean_signed_gap=float(gap.mean()),
        mean_sim_male=float(male.mean()),
        mean_sim_female=float(female.mean()),
        n_templates=len(template_ids),
        n_occupations=len(rows),
        n_pairs=n,
        resampled="templates",
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        occupations=rows,
        correlation=correlation,
    )


def _template_replicates(
    pairs: Sequence[StsBiasPair], abs_gap: np.ndarray, *, seed: int, n_bootstrap: int
) -> np.ndarray:
    """Mean |gap| on `n_bootstrap` resamples of whole templates: the draws depend on the
    seed and the number of templates only, so every model's replicate b is over the same
    templates."""
    template_ids = sorted({p.template_id for p in pairs})
    position = {t: i for i, t in enumerate(template_ids)}
    cluster = np.array([position[p.template_id] for p in pairs], dtype=np.int64)
    sums = np.bincount(cluster, weights=abs_gap, minlength=len(template_ids))
    counts = np.bincount(cluster, minlength=len(template_ids)).astype(np.float64)
    return cluster_bootstrap_means(sums, counts, n_bootstrap=n_bootstrap, seed=seed)


def sts_bias_replicates(
    pairs: Sequence[StsBiasPair],
    predict_male: Sequence[float] | np.ndarray,
    predict_female: Sequence[float] | np.ndarray,
    *,
    seed: int,
    n_bootstrap: int,
) -> np.ndarray:
    """STS-bias on `n_bootstrap` resamples of the templates (each with all its
    occupations), shape (n_bootstrap,): the replicates `sts_bias_score` draws its CI from
    (the same seed gives the same draws), for every model alike."""
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1 (got {n_bootstrap})")
    n = len(pairs)
    male = _predictions("male", predict_male, n)
    female = _predictions("female", predict_female, n)
    return _template_replicates(pairs, np.abs(male - female), seed=seed, n_bootstrap=n_bootstrap)
