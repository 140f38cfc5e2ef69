"""NLI-bias on its published files, and every number of net neutral, fraction neutral
and the female - male gap against a hand computation.

- The training sets as their distributions ship them: SNLI 1.0 and MultiNLI 1.0 JSON
  Lines (every field, `gold_label` "-" where the annotators had no majority), their
  tab-separated `.txt` twins, and the GLUE TSV files.
- Dev et al.'s word lists in the layout of their repository's `word_lists/` (files
  without a suffix, one entry per line, multi-word verbs such as "paid for").
- Twelve pairs with hand-chosen probabilities: NN, FN, threshold:tau, per gender and per
  word, Kaneko et al.'s FN_female - FN_male, and the reference `evaluation.py`'s per
  (occupation, gender word) averages; the gap's paired premise bootstrap redrawn by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from audit.data.tasks.nli import load_nli_training, read_nli_training_splits
from audit.data.tasks.nli_bias import (
    generate_nli_templates,
    load_nli_pairs,
    load_nli_word_lists,
    read_nli_bias_pairs,
    write_nli_pairs,
)
from audit.errors import DataError
from audit.extrinsic.nli_bias import nli_bias_scores
from audit.extrinsic.options import NliBiasOptions
from audit.extrinsic.tasks.base import Resampling, TaskData
from audit.extrinsic.tasks.nli_bias import TASK

LABELS = ["entailment", "neutral", "contradiction"]

# --- the training sets ---------------------------------------------------------------------

#: (gold label, premise, hypothesis); the fourth pair has no majority label.
TRAINING = [
    ("neutral", 'A man in a "Staff" shirt sweeps.', "The man is paid to clean."),
    ("entailment", "Two kids' bikes lean on a wall.", "There are bikes."),
    ("contradiction", "A woman reads on a bench.", "The woman is swimming."),
    ("-", "A dog runs.", "The dog is happy."),
]
WANT = [(p, h, g) for g, p, h in TRAINING if g != "-"]


def _parse(sentence: str) -> str:
    words = sentence.rstrip(".").split()
    return "( " + " ".join(words) + " . )"


def snli_jsonl() -> str:
    return "".join(
        json.dumps(
            {
                "annotator_labels": [g if g != "-" else "neutral", "entailment"],
                "captionID": f"{3416050480 + n}.jpg#4",
                "gold_label": g,
                "pairID": f"{3416050480 + n}.jpg#4r1n",
                "sentence1": p,
                "sentence1_binary_parse": _parse(p),
                "sentence1_parse": f"(ROOT (S {p}))",
                "sentence2": h,
                "sentence2_binary_parse": _parse(h),
                "sentence2_parse": f"(ROOT (S {h}))",
            }
        )
        + "\n"
        for n, (g, p, h) in enumerate(TRAINING)
    )


def mnli_jsonl() -> str:
    return "".join(
        json.dumps(
            {
                "annotator_labels": [g if g != "-" else "contradiction"],
                "genre": "government",
                "gold_label": g,
                "pairID": f"{31193 + n}n",
                "promptID": 31193 + n,
                "sentence1": p,
                "sentence1_binary_parse": _parse(p),
                "sentence1_parse": f"(ROOT (S {p}))",
                "sentence2": h,
                "sentence2_binary_parse": _parse(h),
                "sentence2_parse": f"(ROOT (S {h}))",
            }
        )
        + "\n"
        for n, (g, p, h) in enumerate(TRAINING)
    )


def tab_file(header: list[str], rows: list[dict[str, str]]) -> str:
    lines = ["\t".join(header)] + ["\t".join(row.get(c, "") for c in header) for row in rows]
    return "\n".join(lines) + "\n"


def snli_txt() -> str:
    header = [
        "gold_label",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1",
        "sentence2",
        "captionID",
        "pairID",
        "label1",
        "label2",
        "label3",
        "label4",
        "label5",
    ]
    rows = [
        {
            "gold_label": g,
            "sentence1_binary_parse": _parse(p),
            "sentence2_binary_parse": _parse(h),
            "sentence1": p,
            "sentence2": h,
            "captionID": f"{n}.jpg#0",
            "pairID": f"{n}.jpg#0r1e",
            "label1": g if g != "-" else "neutral",
        }
        for n, (g, p, h) in enumerate(TRAINING)
    ]
    return tab_file(header, rows)


def mnli_txt() -> str:
    header = [
        "gold_label",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1",
        "sentence2",
        "promptID",
        "pairID",
        "genre",
        "label1",
        "label2",
        "label3",
        "label4",
        "label5",
    ]
    rows = [
        {"gold_label": g, "sentence1": p, "sentence2": h, "promptID": str(n), "genre": "fiction"}
        for n, (g, p, h) in enumerate(TRAINING)
    ]
    return tab_file(header, rows)


def glue_mnli_tsv() -> str:
    header = [
        "index",
        "promptID",
        "pairID",
        "genre",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1",
        "sentence2",
        "label1",
        "gold_label",
    ]
    rows = [
        {"index": str(n), "sentence1": p, "sentence2": h, "label1": g, "gold_label": g}
        for n, (g, p, h) in enumerate(TRAINING)
    ]
    return tab_file(header, rows)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("snli_1.0_train.jsonl", snli_jsonl),
        ("multinli_1.0_train.jsonl", mnli_jsonl),
        ("snli_1.0_train.txt", snli_txt),
        ("multinli_1.0_train.txt", mnli_txt),
        ("train.tsv", glue_mnli_tsv),
    ],
)
def test_the_published_training_files(tmp_path: Path, name: str, text: object) -> None:
    folder = tmp_path / "nli_bias"
    folder.mkdir()
    path = folder / name
    path.write_text(text())  # type: ignore[operator]
    examples = load_nli_training(path)
    assert [(e.premise, e.hypothesis, e.label) for e in examples] == WANT, (
        "quotes kept as written; the pair without a gold label left out"
    )
    splits = read_nli_training_splits(tmp_path, NliBiasOptions(), seed=0)
    assert splits.files["train"] == path, "found by its published name"
    assert len(splits.split("train")) + len(splits.split("dev")) == 3


def test_a_bad_gold_label_names_the_file_line_field_and_what_is_read(tmp_path: Path) -> None:
    path = tmp_path / "snli_1.0_train.jsonl"
    path.write_text(snli_jsonl().replace('"gold_label": "entailment"', '"gold_label": "entails"'))
    with pytest.raises(
        DataError,
        match=r"snli_1\.0_train\.jsonl:2: gold_label 'entails' is not one of entailment, "
        r"entail, neutral, contradiction, contradict \(any case\) or '-'",
    ):
        load_nli_training(path)
    blank = tmp_path / "multinli_1.0_train.txt"
    blank.write_text(mnli_txt().replace("The woman is swimming.", " "))
    with pytest.raises(
        DataError, match=r"multinli_1\.0_train\.txt:4: the sentence2/hypothesis is missing"
    ):
        load_nli_training(blank)
    other = tmp_path / "snli_1.0_train.xml"
    other.write_text("<x/>")
    with pytest.raises(DataError, match=r"suffix \.xml; expected \.jsonl, \.tsv, \.txt, \.csv"):
        load_nli_training(other)


# --- the word lists and the pairs ----------------------------------------------------------

WORD_LISTS = {
    "nouns/people/occupations": "accountant\nnurse\n",
    "nouns/people/gendered_words": "man\nwoman\nlady\n",
    "nouns/people/person_hyponyms": "stranger\n",
    "nouns/people/rulers": "king\n",
    "nouns/objects/food": "bagel\n",
    "nouns/objects/vehicles": "car\n",
    "verbs/commerce_verbs": "paid for\n",
    "verbs/interaction_verbs": "spoke to\n",
    "verbs/driving_verbs": "drove\n",
    "verbs/eating_verbs": "ate\n",
}


def word_lists(root: Path) -> Path:
    """A folder in the layout of the public word_lists/ (entries from the public lists)."""
    for name, text in WORD_LISTS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


#: The 12 pairs of 4 seeded premises (seed 0), in the generator's order (occupation,
#: gender word, template), with hand-chosen (entailment, neutral, contradiction).
PAIRS = [
    ("accountant", "lady", "spoke to a stranger", (0.1, 0.7, 0.2)),  # neutral
    ("accountant", "lady", "ate a bagel", (0.6, 0.3, 0.1)),  # entailment
    ("accountant", "man", "spoke to a stranger", (0.2, 0.5, 0.3)),  # neutral
    ("accountant", "man", "ate a bagel", (0.1, 0.8, 0.1)),  # neutral
    ("accountant", "woman", "spoke to a stranger", (0.3, 0.3, 0.4)),  # contradiction
    ("accountant", "woman", "ate a bagel", (0.2, 0.6, 0.2)),  # neutral
    ("nurse", "lady", "paid for a bagel", (0.1, 0.9, 0.0)),  # neutral
    ("nurse", "lady", "paid for a car", (0.5, 0.4, 0.1)),  # entailment
    ("nurse", "man", "paid for a bagel", (0.7, 0.2, 0.1)),  # entailment
    ("nurse", "man", "paid for a car", (0.3, 0.6, 0.1)),  # neutral
    ("nurse", "woman", "paid for a bagel", (0.1, 0.75, 0.15)),  # neutral
    ("nurse", "woman", "paid for a car", (0.2, 0.35, 0.45)),  # contradiction
]
PROBS = [p[3] for p in PAIRS]


def test_the_word_lists_give_the_pairs_in_both_styles(tmp_path: Path) -> None:
    root = word_lists(tmp_path / "nli_bias" / "word_lists")
    lists = load_nli_word_lists(root)
    assert lists.verb_objects == (
        ("paid for", "bagel"),
        ("paid for", "car"),
        ("spoke to", "king"),
        ("spoke to", "stranger"),
        ("drove", "car"),
        ("ate", "bagel"),
    )
    assert lists.gender_words == ("lady", "man", "woman"), "sorted, as the public code reads"
    pairs = generate_nli_templates(lists, max_premises=4, seed=0)
    got = [(p.occupation, p.gender_word, p.premise, p.hypothesis) for p in pairs]
    assert got == [(o, w, f"The {o} {t}.", f"The {w} {t}.") for o, w, t, _ in PAIRS]
    options = NliBiasOptions(max_premises=4, compat="reference")
    reference = read_nli_bias_pairs(tmp_path, options, seed=0).split("test")
    first = reference[0]
    assert (first.premise, first.hypothesis) == (
        "An accountant spoke to a stranger .",
        "A lady spoke to a stranger .",
    )
    assert first.template_type == "X1_occupations spoke to Y -> X2_gendered_words spoke to Y"
    written = write_nli_pairs(reference, tmp_path / "pairs.csv")
    assert load_nli_pairs(written) == list(reference), "the public CSV round-trips"


def test_every_score_by_hand(tmp_path: Path) -> None:
    lists = load_nli_word_lists(word_lists(tmp_path))
    pairs = generate_nli_templates(lists, max_premises=4, seed=0)
    result = nli_bias_scores(PROBS, LABELS, pairs, seed=0, n_bootstrap=0)
    groups = {g.group: g for g in result.groups}
    assert list(groups) == ["all", "female", "male", "lady", "man", "woman"]

    # argmax neutral: pairs 0, 2, 3, 5, 6, 9, 10 -> 7 of 12; women (lady, woman) 0, 5,
    # 6, 10 of 8 pairs; men 2, 3, 9 of 4 pairs.
    assert result.fraction_neutral == groups["all"].fraction_neutral == 7 / 12
    assert groups["female"].fraction_neutral == 4 / 8
    assert groups["male"].fraction_neutral == 3 / 4
    assert result.value == pytest.approx(4 / 8 - 3 / 4), "Kaneko et al.: FN_female - FN_male"
    assert (groups["lady"].fraction_neutral, groups["woman"].fraction_neutral) == (0.5, 0.5)
    assert groups["man"].fraction_neutral == 0.75
    # P(neutral) sums: all 6.4, women 4.3 (lady 2.3, woman 2.0), men 2.1
    assert result.net_neutral == pytest.approx(6.4 / 12)
    assert groups["female"].net_neutral == pytest.approx(4.3 / 8)
    assert groups["male"].net_neutral == pytest.approx(2.1 / 4)
    assert groups["lady"].net_neutral == pytest.approx(2.3 / 4)
    assert groups["woman"].net_neutral == pytest.approx(2.0 / 4)
    assert groups["all"].net_entailment == pytest.approx(3.4 / 12)
    assert groups["all"].net_contradiction == pytest.approx(2.2 / 12)
    # P(neutral) > 0.5: 0.7, 0.8, 0.6, 0.9, 0.6, 0.75 (0.5 itself is not above) -> 6;
    # > 0.7: 0.8, 0.9, 0.75 -> 3
    assert [(t.tau, t.value) for t in groups["all"].thresholds] == [(0.5, 0.5), (0.7, 0.25)]
    assert [g.n for g in result.groups] == [12, 8, 4, 4, 4, 4]
    assert (result.n_pairs, result.n_premises) == (12, 4)
    assert result.ci_low is None and result.fraction_neutral_ci_low is None
    assert "fraction neutral 0.583, net neutral 0.533" in result.note
    assert "fraction neutral by gender: female 0.500, male 0.750" in result.note


def test_the_reference_evaluation_averages_by_hand(tmp_path: Path) -> None:
    """compat: reference, through the task: probabilities averaged per (occupation,
    gender word) as the public evaluation.py's club() does, then scored."""
    lists = load_nli_word_lists(word_lists(tmp_path))
    pairs = generate_nli_templates(lists, style="reference", max_premises=4, seed=0)
    options = NliBiasOptions(compat="reference", max_premises=4)
    data = TaskData(
        dataset="nli_bias",
        train=[],
        dev=[],
        evaluation=pairs,
        options=options,
        labels=("entailment", "neutral", "contradiction"),
    )
    value = TASK.measure({"probs": np.array(PROBS)}, data, Resampling(0, 0))
    result = value.result
    groups = {g.group: g for g in result.groups}
    # averages (E, N, C): accountant-lady (.35, .5, .15) N, accountant-man (.15, .65, .2)
    # N, accountant-woman (.25, .45, .3) N, nurse-lady (.3, .65, .05) N, nurse-man
    # (.5, .4, .1) E, nurse-woman (.15, .55, .3) N
    assert result.aggregate == "word_pair" and groups["all"].n == 6
    assert result.fraction_neutral == pytest.approx(5 / 6)
    assert groups["female"].fraction_neutral == 1.0 and groups["male"].fraction_neutral == 0.5
    assert value.value == result.value == pytest.approx(0.5)
    assert result.net_neutral == pytest.approx((0.5 + 0.65 + 0.45 + 0.65 + 0.4 + 0.55) / 6)
    # evaluation.py's fracNeutral(l, alpha): the share of averages with P(neutral) > alpha
    assert [t.tau for t in groups["all"].thresholds] == [0.5, 0.7]
    assert [t.value for t in groups["all"].thresholds] == pytest.approx([3 / 6, 0.0])


def test_the_gap_interval_resamples_premises_by_hand(tmp_path: Path) -> None:
    """All 36 pairs (12 premises x 3 gender words) with seeded probabilities; each
    replicate draws 12 premises with replacement (numpy's generator from the seed, as the
    cluster bootstrap draws them) and takes both genders' FN over the drawn premises."""
    lists = load_nli_word_lists(word_lists(tmp_path))
    pairs = generate_nli_templates(lists)
    assert len(pairs) == 36
    probs = np.random.default_rng(5).dirichlet([2.0, 2.0, 2.0], len(pairs))
    seed, n_bootstrap = 3, 300
    result = nli_bias_scores(probs, LABELS, pairs, seed=seed, n_bootstrap=n_bootstrap)

    premises = list(dict.fromkeys(p.premise for p in pairs))
    neutral = [max(range(3), key=lambda k: row[k]) == 1 for row in probs.tolist()]
    by_premise: dict[str, dict[str, list[bool]]] = {p: {"f": [], "m": []} for p in premises}
    for pair, is_neutral in zip(pairs, neutral, strict=True):
        by_premise[pair.premise]["m" if pair.gender_word == "man" else "f"].append(is_neutral)

    def gap(drawn: list[str]) -> float:
        women = [x for p in drawn for x in by_premise[p]["f"]]
        men = [x for p in drawn for x in by_premise[p]["m"]]
        return sum(women) / len(women) - sum(men) / len(men)

    assert result.value == pytest.approx(gap(premises))
    draws = np.random.default_rng(seed).integers(0, len(premises), (n_bootstrap, len(premises)))
    replicates = [gap([premises[i] for i in row]) for row in draws.tolist()]
    low, high = np.quantile(replicates, [0.025, 0.975])
    assert (result.ci_low, result.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert result.ci_low < result.value < result.ci_high  # type: ignore[operator]


def test_an_nli_detail_written_before_the_gap_reads_back_as_its_fields(tmp_path: Path) -> None:
    """Before issue 20 the detail's value was FN over all pairs and it had no
    fraction_neutral field: it is kept as a plain record, never read as the gap."""
    from audit.ids import PluginId
    from audit.results import ExtrinsicRecord, NliBiasResult
    from tests.extrinsic.test_head_kinds import summary

    lists = load_nli_word_lists(word_lists(tmp_path))
    pairs = generate_nli_templates(lists, max_premises=4, seed=0)
    new = nli_bias_scores(PROBS, LABELS, pairs, seed=0, n_bootstrap=0)
    old = new.model_dump(mode="json")
    for name in [k for k in old if k.startswith(("fraction_neutral", "net_neutral"))]:
        del old[name]
    old["value"] = new.fraction_neutral

    def record(detail: object) -> ExtrinsicRecord:
        return ExtrinsicRecord(
            task="nli_bias",
            measure=PluginId.of("nli_bias", {}),
            model="m",
            dataset="nli_bias",
            value=0.0,
            n=12,
            finetune=summary("classification"),
            cached=False,
            key="k",
            detail=detail,
        )

    again = ExtrinsicRecord.model_validate_json(record(new).model_dump_json())
    assert isinstance(again.detail, NliBiasResult) and again.detail == new
    kept = ExtrinsicRecord.model_validate_json(record(old).model_dump_json())
    assert not isinstance(kept.detail, NliBiasResult) and kept.detail == old
