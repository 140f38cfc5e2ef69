"""The score table and the unit runner: columns and dtypes, rows read back from the
cache, the split by unit, and cache keys that stay those of earlier versions."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from audit.data.items import LabelledItem, LoadedDataset, PairItem, TemplateSlots
from audit.display import SilentDisplay
from audit.ids import PluginId
from audit.scoring.base import SentenceScore
from audit.scoring.cache import ModelIdentity, ScoreCache, text_key
from audit.scoring.runner import ModelHandle, open_namespace, read_entries, score_unit, unit_jobs
from audit.scoring.table import SCORE_COLUMNS, SCORE_DTYPES, build_score_table, unit_frames
from audit.scoring.units import ScoreUnit

MODEL = ModelIdentity("f" * 64, "cpu/float32")

PAIRS = LoadedDataset(
    name="pairs",
    shape="pairs",
    items=[
        PairItem("a", "gender", "He cooks.", "She cooks."),
        PairItem("b", "age", "Old people nap.", "Young people nap.", unrelated="Cats nap."),
        PairItem("c", "gender", "He cooks.", "She cooks."),  # a repeated pair: one entry
    ],
    source="test",
    sha256="",
    rows_read=3,
)
LABELLED = LoadedDataset(
    name="labelled",
    shape="labelled",
    items=[
        LabelledItem("1", "They are vermin.", "harmful", 4.5, ("immigrants", "muslim")),
        LabelledItem("2", "They are welcome.", "benign", 1.0, ("immigrants",)),
    ],
    source="test",
    sha256="",
    rows_read=2,
)
TEMPLATES = LoadedDataset(
    name="professions",
    shape="pairs",
    items=[
        PairItem(
            "nurse",
            "gender",
            "she is a nurse.",
            "he is a nurse.",
            probe=TemplateSlots("nurse", "she", "he"),
        ),
    ],
    source="test",
    sha256="",
    rows_read=1,
)


@pytest.mark.parametrize(
    ("scorer", "expected"),
    [
        (PluginId.of("ll"), "337115f2b8ed8706551a48d9b28d85966343c0bd8b4f87a91367514637d43018"),
        (
            PluginId.of("ll", {"compat": "reference"}),
            "768f74fda5cbce146f386e429ddb3160488776e731880e4eb7f8e2c5afa36d5c",
        ),
        (
            PluginId.of("cps", {"batch_tokens": 64}),
            "c3a9ea013a3bcc2581e37e7d7d3e2ebe9097dcab510d20fa2bb61ddaf7047979",
        ),
        (
            PluginId.of("tbs", {"templates": ["[TARGET] works as a/an [ATTRIBUTE]."]}),
            "75ceaeffc2cea0c0a5800d985145bf6c5e5829fe9337f58c35bcbf306bc8404d",
        ),
    ],
)
def test_cache_namespaces_are_those_of_earlier_versions(
    tmp_path: Path, scorer: PluginId, expected: str
) -> None:
    """Pinned from the code before issue #8: existing caches stay valid."""
    namespace = open_namespace(scorer, ScoreCache(tmp_path), MODEL)
    try:
        assert namespace.folder.name == expected
    finally:
        namespace.close()


def test_entry_keys_per_input_shape() -> None:
    sentence = unit_jobs(PluginId.of("pll"), PAIRS)
    assert [j.texts for j in sentence] == [
        ("He cooks.",), ("She cooks.",), ("Old people nap.",), ("Young people nap.",),
        ("Cats nap.",),
    ]  # fmt: skip
    pair = unit_jobs(PluginId.of("cps"), PAIRS)
    assert [j.texts for j in pair] == [
        ("He cooks.", "She cooks."),
        ("Old people nap.", "Young people nap."),
    ]
    template = unit_jobs(PluginId.of("tbs"), TEMPLATES)
    assert [j.key for j in template] == [
        "9b6d05900fdcaa7db308c6aee47ce1b9caa7077752df26d7382aa58168905c8b"
    ]
    assert [j.key for j in unit_jobs(PluginId.of("ll"), LABELLED)] == [
        text_key(("They are vermin.",)), text_key(("They are welcome.",)),
    ]  # fmt: skip


def _fill(cache: ScoreCache, unit: ScoreUnit, dataset: LoadedDataset) -> None:
    namespace = open_namespace(unit.scorer, cache, MODEL)
    try:
        jobs = unit_jobs(unit.scorer, dataset)
        namespace.put_many(
            {
                j.key: tuple(
                    SentenceScore(-float(k + 1) - 0.5 * s, 3 + s) for s in range(len(j.texts[:2]))
                )
                for k, j in enumerate(jobs)
            }
        )
    finally:
        namespace.close()


def _table(tmp_path: Path, units: list[ScoreUnit]) -> pd.DataFrame:
    cache = ScoreCache(tmp_path)
    datasets = {d.name: d for d in (PAIRS, LABELLED, TEMPLATES)}
    for unit in units:
        _fill(cache, unit, datasets[unit.dataset])
    return build_score_table(units, datasets=datasets, cache=cache, models={"m": MODEL})


def test_table_columns_dtypes_and_rows(tmp_path: Path) -> None:
    reference = PluginId.of("ll", {"compat": "reference"})
    units = [
        ScoreUnit("m", "pairs", PluginId.of("ll")),
        ScoreUnit("m", "labelled", reference),
        ScoreUnit("m", "pairs", PluginId.of("cps")),
    ]
    table = _table(tmp_path, units)
    assert tuple(table.columns) == SCORE_COLUMNS
    assert {c: str(t) for c, t in table.dtypes.items()} == SCORE_DTYPES
    assert SCORE_COLUMNS[:5] == ("model", "dataset", "scorer", "scorer_options", "scorer_label")

    ll = table[(table["scorer"] == "ll") & (table["dataset"] == "pairs")]
    assert list(ll["side"]) == ["st", "at", "st", "at", "unrelated", "st", "at"]
    assert list(ll["item_id"]) == ["a", "a", "b", "b", "b", "c", "c"]
    assert list(ll["score"]) == [-1.0, -2.0, -3.0, -4.0, -5.0, -1.0, -2.0]
    assert ll["harm_label"].isna().all() and ll["toxicity"].isna().all()
    assert set(ll["scorer_options"]) == {"{}"} and set(ll["scorer_label"]) == {"ll"}

    labelled = table[table["dataset"] == "labelled"]
    assert list(labelled["side"]) == ["sentence", "sentence"]
    assert list(labelled["harm_label"]) == ["harmful", "benign"]
    assert list(labelled["toxicity"]) == [4.5, 1.0]
    assert list(labelled["group"]) == ["immigrants;muslim", "immigrants"]
    assert labelled["bias_type"].isna().all()
    assert set(labelled["scorer_options"]) == {'{"compat":"reference"}'}
    assert set(labelled["scorer_label"]) == {"ll[compat=reference]"}

    cps = table[table["scorer"] == "cps"]
    assert list(cps["side"]) == ["st", "at", "st", "at", "st", "at"]  # no unrelated side
    assert list(cps["score"]) == [-1.0, -1.5, -2.0, -2.5, -1.0, -1.5]
    assert list(cps["n_tokens"]) == [3, 4, 3, 4, 3, 4]


def test_unit_frames_are_keyed_by_typed_scorer_ids(tmp_path: Path) -> None:
    reference = PluginId.of("ll", {"compat": "reference"})
    units = [
        ScoreUnit("m", "pairs", PluginId.of("ll")),
        ScoreUnit("m", "pairs", reference),
        ScoreUnit("m", "professions", PluginId.of("tbs")),
    ]
    frames = unit_frames(_table(tmp_path, units))
    assert list(frames) == [
        ("m", "pairs", PluginId.of("ll")),
        ("m", "pairs", reference),
        ("m", "professions", PluginId.of("tbs")),
    ]
    assert len(frames[("m", "pairs", reference)]) == 7
    assert list(frames[("m", "pairs", reference)].index) == list(range(7))
    assert list(frames[("m", "professions", PluginId.of("tbs"))]["side"]) == ["st", "at"]


def test_empty_table_keeps_columns_and_dtypes(tmp_path: Path) -> None:
    table = build_score_table([], datasets={}, cache=ScoreCache(tmp_path), models={})
    assert tuple(table.columns) == SCORE_COLUMNS and table.empty
    assert {c: str(t) for c, t in table.dtypes.items()} == SCORE_DTYPES
    assert unit_frames(table) == {}


def test_reading_an_incomplete_unit_fails(tmp_path: Path) -> None:
    unit = ScoreUnit("m", "pairs", PluginId.of("pll"))
    with pytest.raises(RuntimeError, match="lacks 5 entries of m/pairs/pll"):
        read_entries(unit, dataset=PAIRS, cache=ScoreCache(tmp_path), model=MODEL)


def test_a_cached_unit_never_loads_its_model(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    unit = ScoreUnit("m", "pairs", PluginId.of("cps"))
    _fill(cache, unit, PAIRS)

    def refuse() -> object:
        raise AssertionError("the model was loaded")

    handle = ModelHandle("m", MODEL.fingerprint, MODEL.precision, load=refuse)  # type: ignore[arg-type]
    outcome = score_unit(unit, model=handle, dataset=PAIRS, cache=cache, display=SilentDisplay())
    assert (outcome.computed, outcome.cached, outcome.corrupt) == (0, 2, 0)
    assert outcome.sentences == 4 and outcome.unit == unit
    assert not handle.is_loaded
