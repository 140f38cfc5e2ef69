"""A training corpus as Kaneko et al. 2022 Table 1 shows one: its counts of female-only,
male-only, mixed and neutral sentences, and its ILPS with a bootstrap CI.

The counts come from `audit.variants.mining` (whole words, any case, the paired gender
word lists). ILPS is computed by the `ilps` measure's own arithmetic
(`audit.stats.ilps.estimate_ilps`, which `audit.measures.ilps` wraps): log(P_f / P_m)
with P_f, P_m the counts of the female and male words of the same lists over the
corpus's tokens, its CI from a seeded bootstrap over the sentences (one sentence = one
line of the measure). Both use the same lists but match words slightly differently:
mining asks whether a sentence holds any gendered word and, like CDA, sees "woman" in
"woman's"; ILPS counts every occurrence of every listed word among the measure's
tokens, where "woman's" is one token and is not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.results import CorpusRecord
from audit.stats.ilps import estimate_ilps
from audit.variants.corpus import Corpus
from audit.variants.mining import corpus_counts
from audit.variants.wordlists import GenderWordLists


def corpus_record(
    corpus: Corpus,
    lists: GenderWordLists,
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float,
    used_by: Sequence[str],
) -> CorpusRecord:
    """Table 1 of Kaneko et al. 2022 for one corpus (see the module docstring)."""
    counts = corpus_counts(corpus.sentences, lists)
    ilps = estimate_ilps(
        corpus.sentences,
        male_words=[male for male, _ in lists.pairs],
        female_words=[female for _, female in lists.pairs],
        n_bootstrap=n_bootstrap,
        seed=seed,
        alpha=alpha,
        corpus_name=corpus.name,
    )
    return CorpusRecord(
        name=corpus.name,
        source=corpus.source,
        sha256=corpus.sha256,
        sentences=len(corpus.sentences),
        female_only=counts.female_only,
        male_only=counts.male_only,
        mixed=counts.mixed,
        neutral=counts.neutral,
        ilps=ilps.value,
        ilps_ci_low=ilps.ci_low,
        ilps_ci_high=ilps.ci_high,
        ilps_note=ilps.undefined or ilps.note,
        used_by=list(used_by),
    )
