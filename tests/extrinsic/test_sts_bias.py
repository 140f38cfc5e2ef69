"""STS-bias: templates from STS-B test sentences, the pairs, and the measure (mean |gap|
with a template bootstrap, per-occupation rows, correlation with the share of women)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from audit.errors import AuditUserError, DataError
from audit.extrinsic.sts_bias import (
    StsBiasPair,
    build_sts_bias_pairs,
    cluster_bootstrap_means,
    find_sts_bias_templates,
    load_occupation_stats,
    occupation_subject,
    read_occupation_stats,
    sts_bias_score,
)
from audit.extrinsic.sts_data import StsRow, load_sts_b
from audit.stats.intervals import ZERO_WIDTH
from audit.variants.wordlists import GenderWordLists, load_gender_word_lists

LISTS = GenderWordLists.from_pairs(
    [("man", "woman"), ("he", "she"), ("his", "her"), ("boy", "girl"), ("male host", "hostess")]
)


def row(s1: str, s2: str = "Something else.", line: int = 1) -> StsRow:
    return StsRow(3.0, s1, s2, "main-captions", "MSRvid", "2012test", "0001", line)


def templates_of(*sentences: str) -> list[str]:
    rows = [row(s, line=i + 1) for i, s in enumerate(sentences)]
    return [t.template for t in find_sts_bias_templates(rows, word_lists=LISTS)]


def test_which_sentences_become_templates() -> None:
    assert templates_of(
        "A man is walking.",
        " A woman is cooking. ",  # stripped first
        "a man is running.",  # lower-case "a": not "A man"
        "A man, tired, sleeps.",  # "A man," does not start with "A man "
        "A man is playing his guitar.",  # a second gendered word
        "A man and a woman dance.",
        "A man talks to another man.",
        "A man greets the boy.",
        "A man meets the male host.",  # a listed phrase counts
        "A manly man sings.",  # starts with "A manly"
        "A woman's dog barks.",  # not "A woman "
        "A man is MAN.",  # gendered words match in any case
        "A man is hired.",
    ) == ["{} is walking.", "{} is cooking.", "{} is hired."]


def test_both_columns_are_read_and_repeats_merged() -> None:
    rows = [
        row("A man is dancing.", "A woman is singing.", 1),
        row("A woman is dancing.", "A man is dancing.", 2),
        row("A man is dancing.", "Nothing.", 3),
    ]
    found = find_sts_bias_templates(rows, word_lists=LISTS)
    assert [(t.template, t.gender, t.line, t.column) for t in found] == [
        ("{} is dancing.", "male", 1, 1),
        ("{} is singing.", "female", 1, 2),
    ]
    per_sentence = find_sts_bias_templates(rows, word_lists=LISTS, unique_templates=False)
    assert [t.source for t in per_sentence] == [
        "A man is dancing.",
        "A woman is singing.",
        "A woman is dancing.",
    ], "a repeated sentence is read once; one template per distinct sentence"
    assert [t.id for t in per_sentence] == [0, 1, 2]


def test_pairs_put_the_gendered_sentence_first_and_use_an() -> None:
    rows = [row(f"A man is doing task {i}.") for i in range(5)]
    pairs = build_sts_bias_pairs(rows, ["nurse", "engineer", " nurse "], word_lists=LISTS)
    assert len(pairs) == 10, "5 templates x 2 occupations (repeats dropped)"
    first, second = pairs[0], pairs[1]
    assert first.male == ("A man is doing task 0.", "A nurse is doing task 0.")
    assert first.female == ("A woman is doing task 0.", "A nurse is doing task 0.")
    assert second.male == ("A man is doing task 0.", "An engineer is doing task 0.")
    assert (second.template_id, second.template, second.occupation) == (
        0,
        "{} is doing task 0.",
        "engineer",
    )
    assert [p.template_id for p in pairs] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert occupation_subject("umpire") == "An umpire"


def test_too_few_templates_is_a_user_error_with_the_count() -> None:
    rows = [row(f"A man is doing task {i}.") for i in range(4)] + [row("A cat sits.")]
    with pytest.raises(AuditUserError, match=r"4 template\(s\) found in the 5 STS-B test rows"):
        build_sts_bias_pairs(rows, ["nurse"], word_lists=LISTS)
    rows = [row(f"A woman is doing task {i}.") for i in range(8)]
    with pytest.raises(AuditUserError, match=r"8 template\(s\) found.*3 kept by max_templates=3"):
        build_sts_bias_pairs(rows, ["nurse"], word_lists=LISTS, max_templates=3)
    with pytest.raises(AuditUserError, match="max_templates must be at least 1"):
        build_sts_bias_pairs(rows, ["nurse"], word_lists=LISTS, max_templates=0)
    with pytest.raises(AuditUserError, match="no occupations"):
        build_sts_bias_pairs(rows, [" ", ""], word_lists=LISTS)
    assert len(build_sts_bias_pairs(rows, ["nurse"], word_lists=LISTS, max_templates=6)) == 6


def pairs_for(n_templates: int, occupations: list[str]) -> list[StsBiasPair]:
    rows = [row(f"A man is doing task {i}.") for i in range(n_templates)]
    return build_sts_bias_pairs(rows, occupations, word_lists=LISTS)


def test_score_by_hand() -> None:
    pairs = pairs_for(5, ["nurse", "plumber"])
    male = [3.0, 4.0] * 5
    female = [4.0, 2.0] * 5  # nurse: -1 (closer to woman), plumber: +2
    result = sts_bias_score(pairs, male, female, seed=0, n_bootstrap=0)
    assert result.value == pytest.approx(1.5)
    assert result.mean_signed_gap == pytest.approx(0.5)
    assert (result.mean_sim_male, result.mean_sim_female) == (3.5, 3.0)
    assert (result.n_templates, result.n_occupations, result.n_pairs) == (5, 2, 10)
    assert [
        (o.occupation, o.mean_abs_gap, o.mean_signed_gap, o.n_pairs) for o in result.occupations
    ] == [
        ("nurse", 1.0, -1.0, 5),
        ("plumber", 2.0, 2.0, 5),
    ]
    assert result.ci_low is None and result.correlation is None
    assert result.resampled == "templates"


def test_bootstrap_resamples_templates() -> None:
    # Gaps differ between occupations but every template has the same mean |gap|: a
    # template bootstrap has nothing to vary (a pair bootstrap would).
    pairs = pairs_for(12, ["nurse", "plumber"])
    male = [1.0, 3.0] * 12
    female = [0.0, 0.0] * 12
    result = sts_bias_score(pairs, male, female, seed=0, n_bootstrap=200)
    assert result.value == 2.0
    assert result.ci_low is None and result.note == ZERO_WIDTH

    rng = np.random.default_rng(1)
    male = rng.uniform(0, 5, 24).tolist()
    female = rng.uniform(0, 5, 24).tolist()
    result = sts_bias_score(pairs, male, female, seed=3, n_bootstrap=500, alpha=0.1)
    assert result.ci_low is not None and result.ci_high is not None
    assert result.ci_low < result.value < result.ci_high
    again = sts_bias_score(pairs, male, female, seed=3, n_bootstrap=500, alpha=0.1)
    assert (again.ci_low, again.ci_high) == (result.ci_low, result.ci_high), "seeded"

    few = sts_bias_score(
        pairs_for(6, ["nurse"]), [1.0] * 6, [0.5, 0, 0, 0, 0, 0], seed=0, n_bootstrap=100
    )
    assert few.ci_low is None and "too few items" in few.note and "n=6 templates" in few.note


def test_cluster_bootstrap_means_matches_a_direct_loop() -> None:
    sums = np.array([1.0, 5.0, 2.0, 8.0])
    counts = np.array([1.0, 2.0, 1.0, 4.0])
    got = cluster_bootstrap_means(sums, counts, n_bootstrap=7, seed=11)
    rng = np.random.default_rng(11)
    idx = rng.integers(0, 4, size=(7, 4))
    want = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    np.testing.assert_allclose(got, want)
    two = cluster_bootstrap_means(np.column_stack([sums, 2 * sums]), counts, n_bootstrap=7, seed=11)
    np.testing.assert_allclose(two[:, 1], 2 * want)


def test_correlation_with_share_of_women() -> None:
    occupations = ["nurse", "plumber", "teacher", "pilot"]
    pairs = pairs_for(5, occupations)
    signed = {"nurse": -2.0, "plumber": 1.5, "teacher": -0.5, "pilot": 1.0}
    male = [signed[p.occupation] for p in pairs]
    female = [0.0] * len(pairs)
    shares = {"nurse": 90.0, "plumber": 1.0, "teacher": 70.0, "pilot": None}
    result = sts_bias_score(pairs, male, female, seed=0, n_bootstrap=0, pct_female=shares)
    corr = result.correlation
    assert corr is not None and corr.n == 3
    want = stats.pearsonr([-2.0, 1.5, -0.5], [90.0, 1.0, 70.0])
    assert corr.pearson_r == pytest.approx(want.statistic)
    assert corr.pearson_p == pytest.approx(want.pvalue)
    assert corr.spearman_rho == pytest.approx(-1.0)
    assert [o.pct_female for o in result.occupations] == [90.0, 1.0, 70.0, None]

    two = sts_bias_score(
        pairs, male, female, seed=0, n_bootstrap=0, pct_female={"nurse": 90.0, "plumber": 1.0}
    )
    assert two.correlation is not None and two.correlation.pearson_r is None
    assert "need at least 3" in two.correlation.note
    flat = sts_bias_score(
        pairs, male, female, seed=0, n_bootstrap=0, pct_female=dict.fromkeys(occupations, 50.0)
    )
    assert flat.correlation is not None and "constant" in flat.correlation.note


def test_bad_predictions() -> None:
    pairs = pairs_for(5, ["nurse"])
    with pytest.raises(ValueError, match=r"shape \(4,\), expected \(5,\)"):
        sts_bias_score(pairs, [1.0] * 4, [1.0] * 5, seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match="non-finite similarity for 1 of 5 female"):
        sts_bias_score(pairs, [1.0] * 5, [1.0, math.nan, 1, 1, 1], seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match=r"4 template\(s\) among the 4 pairs"):
        sts_bias_score(pairs[:4], [1.0] * 4, [1.0] * 4, seed=0, n_bootstrap=0)


def test_result_is_json_safe() -> None:
    pairs = pairs_for(10, ["nurse", "pilot"])
    result = sts_bias_score(
        pairs, [1.0] * 20, [1.0] * 20, seed=0, n_bootstrap=50, pct_female={"nurse": 90.0}
    )
    text = result.model_dump_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON number {c}"))
    assert type(result).model_validate_json(text) == result


def test_occupation_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"occupations-stats\.tsv does not exist.*--data-dir"):
        load_occupation_stats(tmp_path)
    path = tmp_path / "winogender" / "occupations-stats.tsv"
    path.parent.mkdir()
    path.write_text("job\tbls_pct_female\nnurse\t90\n")
    with pytest.raises(DataError, match="no `occupation` column"):
        load_occupation_stats(tmp_path)
    path.write_text("occupation\tbls_pct_female\nnurse\t90\nnurse\t91\n\t\npilot\t\nchef\t19.6\n")
    stats_ = load_occupation_stats(tmp_path)
    assert [(o.occupation, o.pct_female) for o in stats_] == [
        ("nurse", 90.0),
        ("pilot", None),
        ("chef", 19.6),
    ]
    path.write_text("occupation\tbls_pct_female\nnurse\tmany\n")
    with pytest.raises(DataError, match=r":2: bls_pct_female 'many' is not a percentage"):
        load_occupation_stats(tmp_path)
    own = tmp_path / "mine.tsv"
    own.write_text("occupation\nbaker\n")
    assert [o.occupation for o in read_occupation_stats(own)] == ["baker"]
    own.write_text("occupation\n\n")
    with pytest.raises(DataError, match="lists no occupation"):
        read_occupation_stats(own)


def test_real_templates_and_pairs(shared_data: Path) -> None:
    """Pinned counts of STS-B test with the GN-GloVe lists and the Winogender occupations."""
    rows = load_sts_b(shared_data, "test")
    lists = load_gender_word_lists(shared_data)
    templates = find_sts_bias_templates(rows, word_lists=lists)
    assert len(templates) == 268
    assert sum(t.gender == "male" for t in templates) == 180
    assert templates[0].source == "A man is cutting up a cucumber."
    assert templates[-1].template == "{} removing a tennis net."
    per_sentence = find_sts_bias_templates(rows, word_lists=lists, unique_templates=False)
    assert len(per_sentence) == 276, "the 276 sentences of Webster et al. 2020"
    assert sum(t.gender == "female" for t in per_sentence) == 94

    occupations = load_occupation_stats(shared_data)
    assert len(occupations) == 60 and all(o.pct_female is not None for o in occupations)
    names = [o.occupation for o in occupations]
    pairs = build_sts_bias_pairs(rows, names, word_lists=lists)
    assert len(pairs) == 268 * 60 == 16080
    assert pairs[3].male == (
        "A man is cutting up a cucumber.",
        "An engineer is cutting up a cucumber.",
    )
    assert len(build_sts_bias_pairs(rows, names, word_lists=lists, max_templates=10)) == 600

    rng = np.random.default_rng(0)
    male = rng.uniform(0, 5, len(pairs))
    shift = np.array([0.01 * (o.pct_female or 0) for o in occupations] * 268)
    result = sts_bias_score(
        pairs,
        male,
        male + shift,
        seed=0,
        n_bootstrap=200,
        pct_female={o.occupation: o.pct_female for o in occupations},
    )
    assert result.n_templates == 268 and result.n_pairs == 16080
    assert result.correlation is not None and result.correlation.pearson_r == pytest.approx(-1.0)
