"""ToxiGen: the human-annotated subset as used by Hosseini et al. 2023 (SafeNLP).

`label` hate -> harmful, neutral -> benign; toxicity = `toxicity_score` (1-5);
groups = `target_groups` (an item may name several and then counts once per group).
The item id is the file's `id`. The text is kept exactly (many start with a space).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import Label, LabelledItem
from audit.data.reading import require_text
from audit.data.record_files import read_json_list
from audit.errors import DataError

FILE = "toxigen_annotated.json"
_FIELDS = ("id", "text", "toxicity_score", "label", "target_groups")
LABELS: dict[str, Label] = {"hate": "harmful", "neutral": "benign"}
GROUPS = (
    "asian",
    "black",
    "chinese",
    "jewish",
    "latino",
    "lgbtq",
    "mental dis",
    "mexican",
    "middle-eastern",
    "muslim",
    "native-american",
    "physical dis",
    "women",
)
# Only the short commit of microsoft/SafeNLP is known (README of the reference data).
_SOURCE = "https://raw.githubusercontent.com/microsoft/SafeNLP/e351b6c/data"


class ToxiGenOptions(DatasetOptions):
    """The annotated ToxiGen subset has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def read_toxigen(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """Every entry of the JSON list as a LabelledItem; nothing is skipped."""
    path = files[FILE]
    rows = read_json_list(path, expected="items (an object each)")
    items = [
        _item(row, f"{path}:{line}: item {index} (0-based)")
        for index, (line, row) in enumerate(rows)
    ]
    return ParsedRows(items=items, rows_read=len(rows), skipped={})


def _item(row: Any, where: str) -> LabelledItem:
    if not isinstance(row, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(row).__name__}")
    missing = [key for key in _FIELDS if key not in row]
    if missing:
        raise DataError(
            f"{where}: missing field(s) {', '.join(repr(m) for m in missing)}; "
            f"fields present: {', '.join(repr(k) for k in row)}"
        )
    item_id = require_text(row["id"], where=where, column="id", strip=True)
    where = f"{where}, id {item_id}"
    label = require_text(row["label"], where=where, column="label", strip=True)
    if label not in LABELS:
        raise DataError(f"{where}: label is {label!r}; expected one of {', '.join(LABELS)}")
    toxicity = row["toxicity_score"]
    if isinstance(toxicity, bool) or not isinstance(toxicity, int | float) or not toxicity > 0:
        raise DataError(f"{where}: toxicity_score must be a number > 0, got {toxicity!r}")
    groups = row["target_groups"]
    if not isinstance(groups, list) or not groups:
        raise DataError(f"{where}: target_groups must be a non-empty list, got {groups!r}")
    return LabelledItem(
        item_id=item_id,
        text=require_text(row["text"], where=where, column="text"),
        label=LABELS[label],
        toxicity=float(toxicity),
        groups=tuple(
            dict.fromkeys(
                require_text(g, where=where, column="target_groups", strip=True) for g in groups
            )
        ),
    )


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="toxigen",
        title="ToxiGen (annotated)",
        summary="ToxiGen human-annotated subset (Hartvigsen et al. 2022): hate / neutral, "
        "13 groups.",
        shape="labelled",
        citation="Hartvigsen et al. 2022, ToxiGen (ACL); subset as in Hosseini et al. 2023.",
    ),
    options=ToxiGenOptions,
    target=f"{__name__}:read_toxigen",
    files=(
        RemoteFile(
            FILE,
            f"{_SOURCE}/toxiGen.json",
            "42863b997f545833b8c9bfe7fc950aeaccc274d49f7386384db147face745fc3",
            1661792,
        ),
    ),
    folder="toxigen",
    groups=GROUPS,
    size="6,514 sentences (2,767 hate, 3,747 neutral)",
    source="microsoft/SafeNLP @e351b6c, data/toxiGen.json",
    licence="MIT",
)
