"""CrowS-Pairs (Nangia et al. 2020): 1,508 sentence pairs in 9 bias types.

S_st = `sent_more`, S_at = `sent_less` in both directions (METHODS.md section 1): the
published bias score counts pairs where the model prefers `sent_more`, whatever the
`stereo_antistereo` column says; that column is kept as `PairItem.direction`. The item
id is the file's first, unnamed column ("0" ... "1507").
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text
from audit.errors import DataError

FILE = "crows_pairs_anonymized.csv"
_COLUMNS = ("", "sent_more", "sent_less", "stereo_antistereo", "bias_type")
DIRECTIONS = ("stereo", "antistereo")
BIAS_TYPES = (
    "race-color",
    "socioeconomic",
    "gender",
    "disability",
    "nationality",
    "sexual-orientation",
    "physical-appearance",
    "religion",
    "age",
)
_SOURCE = (
    "https://raw.githubusercontent.com/nyu-mll/crows-pairs/"
    "8aaac11c485473159ec9328a65253a5be9a479dc/data"
)


class CrowsPairsOptions(DatasetOptions):
    """CrowS-Pairs has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def read_crows_pairs(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """Every row of crows_pairs_anonymized.csv as a PairItem; nothing is skipped."""
    path = files[FILE]
    table = read_table(path, ",")
    require_columns(path, table.columns, {name or "item id": name for name in _COLUMNS})
    items: list[PairItem] = []
    for record in table.records:
        where = f"{path}:{record.line}"
        cells = record.cells
        direction = require_text(
            cells["stereo_antistereo"], where=where, column="stereo_antistereo", strip=True
        )
        if direction not in DIRECTIONS:
            raise DataError(
                f"{where}: stereo_antistereo is {direction!r}; expected one of "
                f"{', '.join(DIRECTIONS)}"
            )
        items.append(
            PairItem(
                item_id=require_text(cells[""], where=where, column="(first, unnamed)", strip=True),
                bias_type=require_text(
                    cells["bias_type"], where=where, column="bias_type", strip=True
                ),
                stereotype=require_text(cells["sent_more"], where=where, column="sent_more"),
                anti_stereotype=require_text(cells["sent_less"], where=where, column="sent_less"),
                direction=direction,
            )
        )
    return ParsedRows(items=items, rows_read=len(table.records), skipped={})


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="crows_pairs",
        title="CrowS-Pairs",
        summary="CrowS-Pairs (Nangia et al. 2020): 1,508 sentence pairs, 9 bias types.",
        shape="pairs",
        citation="Nangia et al. 2020, CrowS-Pairs (EMNLP).",
        limitations=(
            "many CrowS-Pairs pairs do not test the stereotype they name, change more than the "
            "group term, or contrast groups that are not each other's counterpart; some sentences "
            "are ungrammatical or carry quoting errors.",
        ),
    ),
    options=CrowsPairsOptions,
    target=f"{__name__}:read_crows_pairs",
    files=(
        RemoteFile(
            FILE,
            f"{_SOURCE}/{FILE}",
            "dfb36986ce0502abbaf7055b9176da3d08d48e07df1251991b5dfbcbceab9d0c",
            437764,
        ),
    ),
    folder="crows_pairs",
    bias_types=BIAS_TYPES,
    size="1,508 pairs (1,290 stereo, 218 antistereo)",
    source="nyu-mll/crows-pairs @8aaac11, data/crows_pairs_anonymized.csv",
    licence="CC BY-SA 4.0",
)
