"""The score table (`scores.parquet`): its columns, their dtypes, and its rows.

One row per (model, dataset, scorer with options, item, side), read back from the score
cache. `scorer` is the registered name, `scorer_options` the options as canonical JSON
(`audit.ids.canonical_options`) and `scorer_label` the name people read
(`ll[compat=reference]`); code keys on name and options, never on the label.
`harm_label`, `toxicity` and `group` are filled for labelled sets only (`group` joins an
item's target groups with ';'); `bias_type` for pair sets and choice sets (the category).
A choice set's rows are its answers (sides `ans0`, `ans1`, ...) and their `group` holds
the item's facts (`audit.data.choice_facts`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from audit.data.choice_facts import encode_facts
from audit.data.items import ChoiceItem, LabelledItem, PairItem
from audit.ids import PluginId, canonical_options
from audit.scoring.cache import Entry, ModelIdentity, ScoreCache
from audit.scoring.inputs import Side, side_scores
from audit.scoring.runner import read_entries, unit_input
from audit.scoring.units import ScoreUnit

if TYPE_CHECKING:
    import pandas as pd

    from audit.data.items import LoadedDataset
    from audit.models.chat_template import ChatFormat

__all__ = ["GROUP_SEPARATOR", "SCORE_COLUMNS", "SCORE_DTYPES", "Side"]

#: Columns of `scores.parquet`, in order, and their dtypes.
SCORE_DTYPES: dict[str, str] = {
    "model": "string",
    "dataset": "string",
    "scorer": "string",
    "scorer_options": "string",
    "scorer_label": "string",
    "item_id": "string",
    "bias_type": "string",
    "side": "string",
    "score": "float64",
    "n_tokens": "int64",
    "harm_label": "string",
    "toxicity": "float64",
    "group": "string",
}
SCORE_COLUMNS: tuple[str, ...] = tuple(SCORE_DTYPES)
#: The columns that name a unit: (model, dataset, scorer name, scorer options).
UNIT_COLUMNS: tuple[str, ...] = ("model", "dataset", "scorer", "scorer_options")
GROUP_SEPARATOR = ";"


def _item_columns(item: PairItem | LabelledItem | ChoiceItem) -> dict[str, Any]:
    """The columns an item fills, whatever the side."""
    if isinstance(item, ChoiceItem):
        return {
            "item_id": item.item_id,
            "bias_type": item.bias_type,
            "harm_label": None,
            "toxicity": None,
            "group": encode_facts(item),
        }
    if isinstance(item, LabelledItem):
        return {
            "item_id": item.item_id,
            "bias_type": None,
            "harm_label": item.label,
            "toxicity": item.toxicity,
            "group": GROUP_SEPARATOR.join(item.groups),
        }
    return {
        "item_id": item.item_id,
        "bias_type": item.bias_type,
        "harm_label": None,
        "toxicity": None,
        "group": None,
    }


def unit_rows(
    unit: ScoreUnit,
    *,
    dataset: LoadedDataset,
    entries: Mapping[str, Entry],
    chat: ChatFormat | None = None,
) -> list[dict[str, Any]]:
    """The unit's rows, one per side of every item, from its cache entries (`chat`: the
    model's chat template, which the entries' multiple-choice prompts were wrapped in)."""
    shape = unit_input(unit.scorer)
    base = {
        "model": unit.model,
        "dataset": unit.dataset,
        "scorer": unit.scorer.name,
        "scorer_options": canonical_options(unit.scorer.options),
        "scorer_label": unit.scorer.label,
    }
    rows: list[dict[str, Any]] = []
    for item in dataset.items:
        columns = _item_columns(item)
        for side, score in side_scores(shape.sides(item, chat), entries):
            rows.append(
                {**base, **columns, "side": side, "score": score.score, "n_tokens": score.n_tokens}
            )
    return rows


def score_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows as the score table: its columns in order, each with its dtype."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=list(SCORE_COLUMNS))
    return frame.astype(SCORE_DTYPES)


def build_score_table(
    units: Sequence[ScoreUnit],
    *,
    datasets: Mapping[str, LoadedDataset],
    cache: ScoreCache,
    models: Mapping[str, ModelIdentity],
) -> pd.DataFrame:
    """The score table of every unit, in unit order, read back from the cache (which
    must hold every entry: run `runner.score_unit` first). `datasets` and `models` are
    keyed by dataset name and model id."""
    rows: list[dict[str, Any]] = []
    for unit in units:
        dataset = datasets[unit.dataset]
        identity = models[unit.model]
        entries = read_entries(unit, dataset=dataset, cache=cache, model=identity)
        chat = identity.chat_for(unit.dataset)
        rows.extend(unit_rows(unit, dataset=dataset, entries=entries, chat=chat))
    return score_frame(rows)


def unit_frames(scores: pd.DataFrame) -> dict[tuple[str, str, PluginId], pd.DataFrame]:
    """The score table split by (model, dataset, scorer id), each re-indexed from 0."""
    return {
        (
            str(model),
            str(dataset),
            PluginId.of(str(name), json.loads(str(options))),
        ): group.reset_index(drop=True)
        for (model, dataset, name, options), group in scores.groupby(list(UNIT_COLUMNS), sort=False)
    }
