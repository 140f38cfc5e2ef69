"""The scoring schedule's rules, tested directly: which (model, dataset, scorer) units
run, which are skipped and why, and which measures run on each unit (or once, on a
corpus)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from audit.ids import PluginId
from audit.scoring.catalog import SCORERS
from audit.scoring.units import ScoreUnit
from audit.scoring_schedule import CorpusTask, MeasureTask, ScoringSchedule, schedule_scoring
from audit.spec.models import AuditSpec

MODELS = {"bert": "masked", "gpt": "causal"}


def _spec(**fields: Any) -> AuditSpec:
    base: dict[str, Any] = {
        "spec_version": 1,
        "name": "plan-test",
        "models": [
            {"id": "bert", "source": {"path": "models/bert"}},
            {"id": "gpt", "source": {"path": "models/gpt"}},
        ],
        "datasets": ["crows_pairs", "toxigen", "professions"],
        "scorers": {"masked": ["pll", "cps", "tbs"], "causal": ["ll"]},
        "measures": ["bias_score", "safety_score"],
    }
    base.update(fields)
    return AuditSpec.model_validate(base)


def _units(schedule: ScoringSchedule) -> set[tuple[str, str, str]]:
    return {(u.model, u.dataset, u.scorer.label) for u in schedule.units}


def _skipped(schedule: ScoringSchedule) -> dict[tuple[str, str, str], str]:
    return {(s.model, s.dataset, s.scorer.label): s.reason for s in schedule.skipped}


def test_units_and_skips_of_a_mixed_spec() -> None:
    schedule = schedule_scoring(_spec(), model_types=MODELS)
    assert _units(schedule) == {
        ("bert", "crows_pairs", "pll"),
        ("bert", "toxigen", "pll"),
        ("bert", "professions", "pll"),
        ("bert", "crows_pairs", "cps"),
        ("bert", "professions", "cps"),
        ("bert", "professions", "tbs"),
        ("gpt", "crows_pairs", "ll"),
        ("gpt", "toxigen", "ll"),
        ("gpt", "professions", "ll"),
    }
    assert _skipped(schedule) == {
        ("bert", "toxigen", "cps"): "cps scores sentence pairs; toxigen holds single sentences",
        ("bert", "crows_pairs", "tbs"): (
            "tbs scores template items (attribute + target words); crows_pairs has none "
            "(use the built-in `professions`)"
        ),
        ("bert", "toxigen", "tbs"): (
            "tbs scores template items (attribute + target words); toxigen has none "
            "(use the built-in `professions`)"
        ),
    }


def test_every_unit_is_planned_or_skipped_never_dropped() -> None:
    schedule = schedule_scoring(_spec(), model_types=MODELS)
    # bert: 3 scorers x 3 datasets; gpt: 1 scorer x 3 datasets
    assert len(schedule.units) + len(schedule.skipped) == 3 * 3 + 1 * 3


@pytest.mark.parametrize("scorer", ["ll", "ppl"])
def test_causal_scorer_on_a_masked_model_is_skipped(scorer: str) -> None:
    """A causal scorer listed for masked models is skipped on them, with the reason."""
    spec = _spec(scorers={"masked": [scorer], "causal": [scorer]}, datasets=["crows_pairs"])
    schedule = schedule_scoring(spec, model_types=MODELS)
    assert _units(schedule) == {("gpt", "crows_pairs", scorer)}
    assert _skipped(schedule) == {
        ("bert", "crows_pairs", scorer): f"{scorer} does not apply to masked LMs"
    }


def test_masked_scorer_on_a_causal_model_says_why() -> None:
    entry = SCORERS.entry("pll")
    assert entry.skip_reason("causal", "toxigen", "labelled", False) == (
        "pll does not apply to causal LMs"
    )
    # the model type is checked first, before the dataset's shape
    assert SCORERS.entry("cps").skip_reason("causal", "toxigen", "labelled", False) == (
        "cps does not apply to causal LMs"
    )


@pytest.mark.parametrize("scorer", ["cps", "sss"])
def test_pair_scorer_on_labelled_data_is_skipped(scorer: str) -> None:
    entry = SCORERS.entry(scorer)
    assert entry.skip_reason("masked", "toxigen", "labelled", False) == (
        f"{scorer} scores sentence pairs; toxigen holds single sentences"
    )
    assert entry.skip_reason("masked", "crows_pairs", "pairs", False) is None


def test_template_scorer_needs_template_items() -> None:
    entry = SCORERS.entry("tbs")
    why = entry.skip_reason("masked", "winobias", "pairs", False)
    assert why == (
        "tbs scores template items (attribute + target words); winobias has none "
        "(use the built-in `professions`)"
    )
    assert entry.skip_reason("masked", "professions", "pairs", True) is None


@pytest.mark.parametrize("scorer", ["pll", "pppl", "aul", "aula"])
def test_sentence_scorers_apply_to_both_shapes(scorer: str) -> None:
    entry = SCORERS.entry(scorer)
    assert entry.skip_reason("masked", "toxigen", "labelled", False) is None
    assert entry.skip_reason("masked", "crows_pairs", "pairs", False) is None


def test_template_scorer_skips_a_user_file_of_pairs() -> None:
    dataset = {"name": "mine", "kind": "pairs", "path": "mine.csv"}
    spec = _spec(
        datasets=[dataset],
        scorers={"masked": ["tbs", "cps"], "causal": []},
        measures=["bias_score"],
    )
    schedule = schedule_scoring(spec, model_types=MODELS)
    assert _units(schedule) == {("bert", "mine", "cps")}
    assert list(_skipped(schedule)) == [("bert", "mine", "tbs")]


def test_measures_are_matched_to_the_dataset_shape() -> None:
    schedule = schedule_scoring(_spec(scorers={"masked": [], "causal": ["ll"]}), model_types=MODELS)
    tasks = {(t.unit.dataset, t.measure.name) for t in schedule.measures}
    assert tasks == {
        ("crows_pairs", "bias_score"),
        ("professions", "bias_score"),
        ("toxigen", "safety_score"),
    }
    assert all(t.unit in schedule.units for t in schedule.measures)


def test_skipped_units_get_no_measures() -> None:
    schedule = schedule_scoring(_spec(), model_types=MODELS)
    assert not any(
        t.unit.scorer.name == "cps" and t.unit.dataset == "toxigen" for t in schedule.measures
    )
    assert {t.unit for t in schedule.measures} <= set(schedule.units)


def test_corpus_measures_run_once_not_per_unit() -> None:
    ilps = {"name": "ilps", "corpus": "corpus.txt"}
    spec = _spec(measures=["bias_score", ilps])
    schedule = schedule_scoring(spec, model_types=MODELS)
    assert schedule.corpus_measures == [CorpusTask(PluginId.of("ilps", {"corpus": "corpus.txt"}))]
    assert all(t.measure.name != "ilps" for t in schedule.measures)


def test_options_travel_as_typed_ids() -> None:
    spec = _spec(
        scorers={"masked": [], "causal": ["ll", {"name": "ll", "compat": "reference"}]},
        measures=[{"name": "bias_score", "compat": "reference"}],
        datasets=["crows_pairs"],
    )
    schedule = schedule_scoring(spec, model_types=MODELS)
    reference = PluginId.of("ll", {"compat": "reference"})
    assert [u.scorer for u in schedule.units] == [PluginId.of("ll"), reference]
    assert schedule.units[1].scorer.label == "ll[compat=reference]"
    assert schedule.measures[1] == MeasureTask(
        unit=ScoreUnit("gpt", "crows_pairs", reference),
        measure=PluginId.of("bias_score", {"compat": "reference"}),
    )


def test_units_are_hashable_and_serialisable() -> None:
    schedule = schedule_scoring(_spec(), model_types=MODELS)
    assert len(set(schedule.units)) == len(schedule.units)
    for unit in schedule.units:
        data = json.loads(json.dumps(unit.to_dict()))
        assert ScoreUnit.from_dict(data) == unit
        assert hash(ScoreUnit.from_dict(data)) == hash(unit)
