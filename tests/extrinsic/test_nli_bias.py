"""NLI-bias: word lists in the public layout, the template generator (paper and reference
sentences), the pairs files, the training-set loader, and NN / FN / threshold:tau."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from audit.errors import AuditUserError, DataError
from audit.extrinsic.nli_bias import (
    NliPair,
    NliWordLists,
    find_nli_training_file,
    generate_nli_templates,
    load_nli_pairs,
    load_nli_training,
    load_nli_word_lists,
    nli_bias_scores,
    nli_word_list_folder,
    write_nli_pairs,
)

LABELS = ["entailment", "neutral", "contradiction"]


def word_lists(root: Path) -> Path:
    """A tiny folder in the layout of the public word_lists/ (hand-made entries)."""
    files = {
        "nouns/people/occupations": "nurse\naccountant\nnurse\n",
        "nouns/people/gendered_words": "woman\nman\n\n",
        "nouns/people/person_hyponyms": "stranger\n",
        "nouns/people/rulers": "boss\nstranger\n",
        "nouns/objects/food": "bagel\napple\n",
        "nouns/objects/vehicles": "SUV\n",
        "nouns/objects/clothes": " coat \n",
        "verbs/commerce_verbs": "bought\n",
        "verbs/interaction_verbs": "met\n",
        "verbs/driving_verbs": "drove\n",
        "verbs/eating_verbs": "ate\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_word_lists_follow_the_public_templates(tmp_path: Path) -> None:
    lists = load_nli_word_lists(word_lists(tmp_path / "wl"))
    assert lists.occupations == ("accountant", "nurse"), "stripped, deduplicated, sorted"
    assert lists.gender_words == ("man", "woman")
    assert lists.verb_objects == (
        ("bought", "SUV"),
        ("bought", "apple"),
        ("bought", "bagel"),
        ("bought", "coat"),
        ("met", "boss"),
        ("met", "stranger"),
        ("drove", "SUV"),
        ("ate", "apple"),
        ("ate", "bagel"),
    )
    own = tmp_path / "jobs.txt"
    own.write_text("pilot\n")
    assert load_nli_word_lists(tmp_path / "wl", occupations_file=own).occupations == ("pilot",)


def test_word_list_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nli_bias/word_lists does not exist.*no licence.*sunipa"):
        nli_word_list_folder(tmp_path)
    root = word_lists(tmp_path / "nli_bias" / "word_lists")
    assert nli_word_list_folder(tmp_path) == root
    (root / "verbs" / "eating_verbs").unlink()
    with pytest.raises(DataError, match=r"eating_verbs does not exist"):
        load_nli_word_lists(root)
    (root / "verbs" / "eating_verbs").write_text("\n \n")
    with pytest.raises(DataError, match=r"eating_verbs is empty"):
        load_nli_word_lists(root)
    (root / "verbs" / "eating_verbs").write_text("ate\n")
    (root / "nouns" / "objects" / "food").unlink()
    with pytest.raises(DataError, match=r"objects/food does not exist"):
        load_nli_word_lists(root)


def test_paper_and_reference_sentences(tmp_path: Path) -> None:
    lists = load_nli_word_lists(word_lists(tmp_path))
    pairs = generate_nli_templates(lists)
    assert len(pairs) == 2 * 2 * 9
    first = pairs[0]
    assert (first.premise, first.hypothesis) == (
        "The accountant bought a SUV.",
        "The man bought a SUV.",
    )
    assert (first.occupation, first.gender_word) == ("accountant", "man")
    assert first.template_type == "X1_occupations bought Y -> X2_gendered_words bought Y"
    assert pairs[1].premise == "The accountant bought an apple."
    assert [(p.occupation, p.gender_word) for p in pairs[::9]] == [
        ("accountant", "man"),
        ("accountant", "woman"),
        ("nurse", "man"),
        ("nurse", "woman"),
    ], "occupation, then gender word, then template"
    reference = generate_nli_templates(lists, style="reference")
    assert (reference[1].premise, reference[1].hypothesis) == (
        "An accountant bought an apple .",
        "A man bought an apple .",
    )
    want = hashlib.sha224(
        b"occupations -> gendered_words\tAn accountant bought an apple .\tA man bought an apple ."
    ).hexdigest()
    assert reference[1].id == want, "the public code's id"


def test_max_premises_keeps_every_gender_word(tmp_path: Path) -> None:
    lists = load_nli_word_lists(word_lists(tmp_path))
    sample = generate_nli_templates(lists, max_premises=5, seed=3)
    assert len(sample) == 10
    premises = {p.premise for p in sample}
    assert len(premises) == 5
    for premise in premises:
        assert sorted(str(p.gender_word) for p in sample if p.premise == premise) == [
            "man",
            "woman",
        ]
    assert sample == generate_nli_templates(lists, max_premises=5, seed=3)
    assert sample != generate_nli_templates(lists, max_premises=5, seed=4)
    assert len(generate_nli_templates(lists, max_premises=100)) == 36
    with pytest.raises(AuditUserError, match="max_premises must be at least 1"):
        generate_nli_templates(lists, max_premises=0)
    with pytest.raises(AuditUserError, match="no gender words"):
        generate_nli_templates(NliWordLists(("nurse",), (" ",), (("ate", "apple"),)))


def test_pairs_files(tmp_path: Path) -> None:
    pairs = generate_nli_templates(
        load_nli_word_lists(word_lists(tmp_path / "wl")), style="reference"
    )
    path = write_nli_pairs(pairs, tmp_path / "out" / "pairs.csv")
    assert path.read_text().splitlines()[0] == (
        "id,pair type,premise_filler_word,hypothesis_filler_word,template_type,premise,hypothesis"
    )
    assert load_nli_pairs(path) == pairs

    own = tmp_path / "own.csv"
    own.write_text('premise,hypothesis\n"The nurse ate, slowly.",The man ate.\n')
    assert load_nli_pairs(own) == [NliPair("0", "The nurse ate, slowly.", "The man ate.")]
    jsonl = tmp_path / "own.jsonl"
    jsonl.write_text(
        json.dumps(
            {"premise": "P.", "hypothesis": "H.", "occupation": "nurse", "gender_word": "lady"}
        )
        + "\n\n"
    )
    assert load_nli_pairs(jsonl) == [NliPair("0", "P.", "H.", "nurse", "lady")]

    with pytest.raises(DataError, match=r"pairs file .* does not exist"):
        load_nli_pairs(tmp_path / "absent.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("premise,text\na,b\n")
    with pytest.raises(DataError, match=r"no hypothesis column \(columns: premise, text\)"):
        load_nli_pairs(bad)
    bad.write_text("premise,hypothesis\na,b\n ,c\n")
    with pytest.raises(DataError, match=r"bad\.csv:3: the premise is missing or empty"):
        load_nli_pairs(bad)
    bad.write_text("premise,hypothesis\n")
    with pytest.raises(DataError, match="no pairs"):
        load_nli_pairs(bad)
    jsonl.write_text('{"premise": "P.", "hypothesis": "H."}\n[1]\n')
    with pytest.raises(DataError, match=r"own\.jsonl:2: a JSON list"):
        load_nli_pairs(jsonl)
    (tmp_path / "p.txt").write_text("x")
    with pytest.raises(DataError, match=r"suffix \.txt"):
        load_nli_pairs(tmp_path / "p.txt")


def pair(premise: str, word: str | None, occupation: str | None = "nurse") -> NliPair:
    return NliPair(
        id=premise + str(word),
        premise=premise,
        hypothesis=f"The {word} ate.",
        occupation=occupation,
        gender_word=word,
    )


def test_scores_by_hand() -> None:
    pairs = [pair("P1", "man"), pair("P1", "woman"), pair("P2", "man"), pair("P2", "woman")]
    probs = [
        [0.1, 0.8, 0.1],  # neutral
        [0.6, 0.3, 0.1],  # entailment
        [0.2, 0.4, 0.4],  # tie neutral/contradiction: neutral comes first
        [0.1, 0.55, 0.35],  # neutral
    ]
    result = nli_bias_scores(probs, LABELS, pairs, seed=0, n_bootstrap=0, thresholds=[0.5, 0.7])
    assert result.fraction_neutral == 0.75
    assert result.value == 0.5 - 1.0, "FN_female - FN_male (Kaneko et al. 2022)"
    assert (result.n_pairs, result.n_premises, result.aggregate) == (4, 2, "instance")
    groups = {g.group: g for g in result.groups}
    assert [g.group for g in result.groups] == ["all", "female", "male", "man", "woman"]
    everything = groups["all"]
    assert everything.net_neutral == pytest.approx((0.8 + 0.3 + 0.4 + 0.55) / 4)
    assert everything.net_entailment == pytest.approx(0.25)
    assert everything.net_contradiction == pytest.approx(0.95 / 4)
    assert [(t.tau, t.value) for t in everything.thresholds] == [(0.5, 0.5), (0.7, 0.25)]
    assert groups["woman"].fraction_neutral == 0.5 and groups["man"].fraction_neutral == 1.0
    assert groups["female"].net_neutral == pytest.approx(0.425)
    assert groups["male"].kind == "gender" and groups["man"].kind == "word"

    reordered = nli_bias_scores(
        np.array(probs)[:, [1, 2, 0]],
        ["Neutral", "contradict", "entail"],
        pairs,
        seed=0,
        n_bootstrap=0,
    )
    assert reordered.groups[0].net_neutral == everything.net_neutral
    assert reordered.labels == ["Neutral", "contradict", "entail"]


def test_word_pair_aggregation_as_the_reference_evaluation() -> None:
    pairs = [
        pair("P1", "man"),
        pair("P2", "man"),
        pair("P1", "woman", "nurse"),
        pair("Q1", "man", "chef"),
    ]
    probs = [[0.1, 0.9, 0.0], [0.5, 0.3, 0.2], [0.7, 0.2, 0.1], [0.2, 0.6, 0.2]]
    result = nli_bias_scores(probs, LABELS, pairs, seed=0, n_bootstrap=0, aggregate="word_pair")
    everything = result.groups[0]
    assert everything.n == 3, "(nurse, man), (nurse, woman), (chef, man)"
    assert everything.net_neutral == pytest.approx((0.6 + 0.2 + 0.6) / 3)
    assert everything.fraction_neutral == pytest.approx(2 / 3)
    assert [t.value for t in everything.thresholds] == pytest.approx([2 / 3, 0.0])
    with pytest.raises(AuditUserError, match="'word_pair' needs each pair's occupation"):
        nli_bias_scores(
            probs,
            LABELS,
            [*pairs[:3], pair("Q", "man", None)],
            seed=0,
            n_bootstrap=0,
            aggregate="word_pair",
        )


def test_intervals_resample_premises() -> None:
    rng = np.random.default_rng(0)
    pairs = [pair(f"P{i}", w) for i in range(30) for w in ("man", "woman")]
    probs = rng.dirichlet([1, 2, 1], len(pairs))
    result = nli_bias_scores(probs, LABELS, pairs, seed=1, n_bootstrap=300)
    head = result.groups[0]
    assert head.net_neutral_ci_low is not None and head.net_neutral_ci_high is not None
    assert head.net_neutral_ci_low < head.net_neutral < head.net_neutral_ci_high
    assert result.fraction_neutral_ci_low == head.fraction_neutral_ci_low
    assert result.net_neutral_ci_high == head.net_neutral_ci_high
    assert result.ci_low is not None and result.ci_high is not None
    assert result.ci_low < result.value < result.ci_high  # type: ignore[operator]
    assert all(t.ci_low is not None for t in head.thresholds)
    few = nli_bias_scores(probs[:8], LABELS, pairs[:8], seed=1, n_bootstrap=100)
    assert few.ci_low is None and "too few items" in few.note and "n=4 resampled units" in few.note
    # identical pairs within each premise but premises alike: nothing to resample
    same = nli_bias_scores([[0.2, 0.6, 0.2]] * 24, LABELS, pairs[:24], seed=0, n_bootstrap=50)
    assert same.groups[0].net_neutral_ci_low is None
    json.loads(result.model_dump_json(), parse_constant=lambda c: pytest.fail(c))


def test_score_input_errors() -> None:
    pairs = [pair("P1", "man"), pair("P1", "woman")]
    good = [[0.2, 0.6, 0.2], [0.3, 0.3, 0.4]]
    with pytest.raises(AuditUserError, match="expected the three NLI labels"):
        nli_bias_scores(good, ["entailment", "neutral", "other"], pairs, seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match=r"summing to 1 \(softmax the logits"):
        nli_bias_scores([[2.0, 1.0, 0.5], [0.3, 0.3, 0.4]], LABELS, pairs, seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match="non-finite"):
        nli_bias_scores([[np.nan, 0.5, 0.5], [0.3, 0.3, 0.4]], LABELS, pairs, seed=0, n_bootstrap=0)
    with pytest.raises(ValueError, match=r"shape \(1, 3\), expected \(2, 3\)"):
        nli_bias_scores(good[:1], LABELS, pairs, seed=0, n_bootstrap=0)
    with pytest.raises(AuditUserError, match=r"threshold 1\.0"):
        nli_bias_scores(good, LABELS, pairs, seed=0, n_bootstrap=0, thresholds=[1.0])
    with pytest.raises(AuditUserError, match="no pairs"):
        nli_bias_scores(np.zeros((0, 3)), LABELS, [], seed=0, n_bootstrap=0)
    odd = nli_bias_scores(
        good, LABELS, [pair("P1", "person"), pair("P1", None)], seed=0, n_bootstrap=0
    )
    assert [g.group for g in odd.groups] == ["all", "person"]
    assert "unknown gender, in no gender row: person" in odd.note
    custom = nli_bias_scores(
        good,
        LABELS,
        [pair("P1", "Sir"), pair("P1", "Dame")],
        seed=0,
        n_bootstrap=0,
        gender_of={"sir": "male", "dame": "female"},
    )
    assert [g.group for g in custom.groups] == ["all", "female", "male", "Dame", "Sir"]


def test_training_sets(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no training file in .*nli_bias.*multinli.*snli"):
        find_nli_training_file(tmp_path)
    folder = tmp_path / "nli_bias"
    folder.mkdir()
    mnli = folder / "multinli_1.0_train.jsonl"
    lines = [
        {
            "gold_label": "neutral",
            "sentence1": "A man sleeps.",
            "sentence2": "He dreams.",
            "genre": "x",
        },
        {"gold_label": "-", "sentence1": "Unclear.", "sentence2": "Maybe."},
        {"gold_label": "contradiction", "sentence1": "It rains.", "sentence2": "It is dry."},
    ]
    mnli.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert find_nli_training_file(tmp_path) == mnli
    examples = load_nli_training(mnli)
    assert [(e.premise, e.label) for e in examples] == [
        ("A man sleeps.", "neutral"),
        ("It rains.", "contradiction"),
    ], "no gold label: left out"
    glue = folder / "train.tsv"
    glue.write_text(
        'index\tsentence1\tsentence2\tgold_label\n0\tHe said "yes".\tHe agreed.\tentailment\n'
    )
    assert load_nli_training(glue)[0].premise == 'He said "yes".'
    assert find_nli_training_file(tmp_path, file="train.tsv") == glue
    own = folder / "own.csv"
    own.write_text("premise,hypothesis,label\na,b,0\n")
    with pytest.raises(
        DataError, match=r"own\.csv:2: label '0' is not one of entailment.*not guessed"
    ):
        load_nli_training(own)
    own.write_text("premise,hypothesis\na,b\n")
    with pytest.raises(DataError, match="no gold_label or label"):
        load_nli_training(own)
    own.write_text("premise,hypothesis,label\n,b,neutral\n")
    with pytest.raises(DataError, match="sentence1/premise is missing"):
        load_nli_training(own)
    own.write_text("premise,hypothesis,label\na,b,-\n")
    with pytest.raises(DataError, match="no labelled pair"):
        load_nli_training(own)
    with pytest.raises(DataError, match=r"absent\.jsonl does not exist.*multinli"):
        load_nli_training(folder / "absent.jsonl")
