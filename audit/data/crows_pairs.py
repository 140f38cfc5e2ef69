"""CrowS-Pairs reader (Nangia et al. 2020).

S_st = `sent_more`, S_at = `sent_less` in both directions (METHODS.md section 1): the
published bias score counts pairs where the model prefers `sent_more`, whatever the
`stereo_antistereo` column says; that column is kept as `PairItem.direction`. The item
id is the file's first, unnamed column.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from audit.data.catalog import DatasetOptions, ParsedRows
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text
from audit.errors import DataError

_FILE = "crows_pairs_anonymized.csv"
_COLUMNS = ("", "sent_more", "sent_less", "stereo_antistereo", "bias_type")
DIRECTIONS = ("stereo", "antistereo")


def read_crows_pairs(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """Every row of crows_pairs_anonymized.csv as a PairItem; nothing is skipped."""
    path = files[_FILE]
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
