"""BBQ measures: the paper's formulas on hand-built questions, and the predictions check."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from audit.data.choice_facts import decode_facts, encode_facts
from audit.data.items import ChoiceItem
from audit.measures.base import MeasureCall
from audit.measures.bbq_check import check_predictions, main
from audit.measures.catalog import MEASURES, load_measure
from audit.results import MeasureValue
from audit.scoring.catalog import scorer_info
from audit.scoring.table import score_frame
from tests.data.test_bbq import bbq_row, write_release

# (category, condition, label, biased, predicted); the unknown answer is always 2.
QUESTIONS = [
    ("Age", "disambig", 0, 0, 0),  # correct, biased
    ("Age", "disambig", 1, 0, 0),  # wrong, biased
    ("Age", "disambig", 1, 1, 2),  # 'unknown': not counted in s_DIS
    ("Age", "disambig", 0, 1, 0),  # correct, against the bias
    ("Age", "ambig", 2, 0, 2),  # correct ('unknown')
    ("Age", "ambig", 2, 0, 0),  # biased
    ("Age", "ambig", 2, 1, 1),  # biased
    ("Age", "ambig", 2, 0, 1),  # against the bias
    ("Religion", "ambig", 2, 0, 0),  # biased
    ("Religion", "ambig", 2, None, 1),  # no biased answer: accuracy only
]


def item(i: int, category: str, condition: str, label: int, biased: int | None) -> ChoiceItem:
    return ChoiceItem(
        item_id=f"{category}-{i}",
        bias_type=category,
        context="c",
        question="q",
        answers=("a", "b", "unknown"),
        label=label,
        unknown=2,
        biased=biased,
        condition="ambig" if condition == "ambig" else "disambig",
        polarity="neg",
    )


Question = tuple[str, str, int, int | None, int]


def frame(
    scores: dict[int, list[tuple[float, int]]] | None = None,
    questions: list[Question] = QUESTIONS,
) -> pd.DataFrame:
    """Score rows of `questions`: the predicted answer gets -1, the others -5 (1 token
    each), unless `scores` gives (score, n_tokens) per answer."""
    rows = []
    for i, (category, condition, label, biased, predicted) in enumerate(questions):
        facts = encode_facts(item(i, category, condition, label, biased))
        given = (scores or {}).get(i)
        for a in range(3):
            score, n = given[a] if given else ((-1.0 if a == predicted else -5.0), 1)
            rows.append(
                {
                    "model": "m",
                    "dataset": "bbq",
                    "scorer": "choice_ll",
                    "scorer_options": "{}",
                    "scorer_label": "choice_ll",
                    "item_id": f"{category}-{i}",
                    "bias_type": category,
                    "side": f"ans{a}",
                    "score": score,
                    "n_tokens": n,
                    "group": facts,
                }
            )
    return score_frame(rows)


def compute(
    name: str, data: pd.DataFrame | None = None, n_bootstrap: int = 0, **options: object
) -> dict[str, MeasureValue]:
    values = load_measure(name).compute(
        frame() if data is None else data,
        MeasureCall(
            scorer=scorer_info("choice_ll"),
            options=MEASURES.options_of(name, dict(options)),
            seed=0,
            n_bootstrap=n_bootstrap,
        ),
    )
    return {v.group: v for v in values}


def test_accuracies_by_context_condition() -> None:
    disambig = compute("bbq_accuracy_disambig")
    assert disambig["all"].value == pytest.approx(2 / 4) and disambig["all"].n == 4
    ambig = compute("bbq_accuracy_ambig")
    assert ambig["all"].value == pytest.approx(1 / 6) and ambig["all"].n == 6
    assert ambig["Age"].value == pytest.approx(1 / 4)
    assert ambig["Religion"].value == 0.0
    assert disambig["Religion"].status == "undefined"
    assert "no disambiguated items" in disambig["Religion"].note


def test_s_dis_counts_non_unknown_answers_only() -> None:
    value = compute("bbq_bias_disambig")["all"]
    # 3 non-unknown answers, 2 of them the biased one: 2 * 2/3 - 1
    assert value.value == pytest.approx(1 / 3)
    assert (value.details["n_biased"], value.details["n_non_unknown"]) == (2, 3)


def test_s_amb_scales_by_the_error_rate() -> None:
    values = compute("bbq_bias_ambig")
    age = values["Age"]
    # Age: accuracy 1/4; non-unknown answers 3, biased 2 -> (1 - 1/4) * (2 * 2/3 - 1)
    assert age.value == pytest.approx(0.75 * (1 / 3))
    assert age.details["unscaled_bias"] == pytest.approx(1 / 3)
    overall = values["all"]
    # all: accuracy 1/6; counted: 3 of Age + 1 of Religion (the other has no biased answer)
    assert (overall.details["n_biased"], overall.details["n_non_unknown"]) == (3, 4)
    assert overall.details["n_without_biased_answer"] == 1
    assert overall.value == pytest.approx((1 - 1 / 6) * (2 * 3 / 4 - 1))


def test_length_normalised_prediction_divides_by_answer_tokens() -> None:
    # question 0: summed, answer 0 (-2) beats answer 1 (-3); per token, answer 1 (-3/3) wins
    data = frame({0: [(-2.0, 1), (-3.0, 3), (-9.0, 1)]})
    plain = compute("bbq_accuracy_disambig", data)["all"]
    normalised = compute("bbq_accuracy_disambig", data, length_normalised=True)["all"]
    assert plain.value == pytest.approx(2 / 4)
    assert normalised.value == pytest.approx(1 / 4)  # question 0 now wrong (label 0)


def test_everything_unknown_leaves_the_bias_score_undefined() -> None:
    data = frame({i: [(-5.0, 1), (-5.0, 1), (-1.0, 1)] for i in range(len(QUESTIONS))})
    value = compute("bbq_bias_disambig", data)["all"]
    assert value.status == "undefined" and "other than 'unknown'" in value.note


def test_intervals_come_from_the_bootstrap_and_contain_the_value() -> None:
    rng = np.random.default_rng(1)
    # 40 disambiguated questions in one category, random predictions: an interval exists
    questions: list[Question] = [
        ("Age", "disambig", int(rng.integers(2)), int(rng.integers(2)), int(rng.integers(3)))
        for _ in range(40)
    ]
    value = compute("bbq_bias_disambig", frame(questions=questions), n_bootstrap=200)["all"]
    assert value.ci_low is not None and value.ci_high is not None
    assert value.value is not None and value.ci_low <= value.value <= value.ci_high
    assert value.details["interval"]["method"] == "percentile bootstrap"


def test_facts_round_trip() -> None:
    facts = decode_facts(encode_facts(item(0, "Age", "ambig", 2, None)))
    assert (facts.condition, facts.label, facts.unknown, facts.biased) == ("ambig", 2, 2, None)


def test_check_from_predictions_matches_the_measures() -> None:
    items = [item(i, c, cond, lab, bias) for i, (c, cond, lab, bias, _) in enumerate(QUESTIONS)]
    predictions = {f"{q[0]}-{i}": q[4] for i, q in enumerate(QUESTIONS)}
    rows = {r.group: r for r in check_predictions(items, predictions)}
    assert rows["all"].bias_disambig == pytest.approx(compute("bbq_bias_disambig")["all"].value)
    assert rows["all"].bias_ambig == pytest.approx(compute("bbq_bias_ambig")["all"].value)
    assert rows["Age"].accuracy_ambig == pytest.approx(1 / 4)
    assert rows["Religion"].bias_disambig is None


def test_check_command_reads_a_release_and_a_predictions_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_release(
        tmp_path / "BBQ",
        {
            "Age": [
                bbq_row(0, condition="disambig", label=0),
                bbq_row(1, condition="disambig", label=1),
                bbq_row(2),
                bbq_row(3),
            ]
        },
    )
    lines = [
        {"category": "Age", "example_id": 0, "prediction": 0},  # correct, biased ('old')
        {"category": "Age", "example_id": 1, "prediction": 0},  # wrong, biased
        {"category": "Age", "example_id": 2, "prediction": 2},  # correct: unknown
        {"category": "Age", "example_id": 3, "prediction": 1},  # wrong, against the bias
    ]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main([str(predictions), "--data", str(tmp_path / "BBQ"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["categories"] == ["Age"]
    overall = out["rows"][0]
    assert overall["bias_disambig"] == pytest.approx(1.0)  # 2 of 2 non-unknown are biased
    assert overall["accuracy_ambig"] == pytest.approx(0.5)
    assert overall["bias_ambig"] == pytest.approx(0.5 * (2 * 0 / 1 - 1))
    assert main([str(predictions), "--data", str(tmp_path / "BBQ")]) == 0
    assert "categories found (1 of 11): Age" in capsys.readouterr().out
    predictions.write_text(json.dumps({"category": "Age", "example_id": 9, "prediction": 0}))
    assert main([str(predictions), "--data", str(tmp_path / "BBQ")]) == 2
    assert "name no question" in capsys.readouterr().err
