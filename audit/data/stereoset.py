"""StereoSet reader (Nadeem et al. 2021), from the flattened dev set (one item per line).

Intrasentence (default): the stereotype, anti-stereotype and unrelated fillings of the
`context` template (with `BLANK`) are the three sentences. Intersentence: each sentence
is the context followed by one space and the candidate continuation, so any sentence
scorer compares whole texts; the context alone is kept in `PairItem.context`.
The item id is the 0-based index among the chosen part's items, in file order; lines of
the other part are counted in `skipped`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from audit.data.catalog import DatasetOptions, ParsedRows, StereoSetOptions
from audit.data.items import PairItem
from audit.data.reading import read_jsonl, require_text
from audit.errors import DataError

_FILE = "stereoset_dev.jsonl"
_FIELDS = ("type", "bias_type", "context", "stereotype", "anti-stereotype", "unrelated")
PARTS = ("intrasentence", "intersentence")


def read_stereoset(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """The chosen part's items as PairItems (with `unrelated` and `context`)."""
    assert isinstance(options, StereoSetOptions)
    path = files[_FILE]
    items: list[PairItem] = []
    skipped: dict[str, int] = {}
    rows = read_jsonl(path)
    for line, row in rows:
        where = f"{path}:{line}"
        _require_fields(row, where)
        part = require_text(row["type"], where=where, column="type", strip=True)
        if part not in PARTS:
            raise DataError(f"{where}: type is {part!r}; expected one of {', '.join(PARTS)}")
        if part != options.part:
            reason = f"{part} item (part '{options.part}' chosen)"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        context = require_text(row["context"], where=where, column="context")
        sentences = [
            require_text(row[key], where=where, column=key)
            for key in ("stereotype", "anti-stereotype", "unrelated")
        ]
        if part == "intersentence":
            sentences = [f"{context} {sentence}" for sentence in sentences]
        items.append(
            PairItem(
                item_id=str(len(items)),
                bias_type=require_text(
                    row["bias_type"], where=where, column="bias_type", strip=True
                ),
                stereotype=sentences[0],
                anti_stereotype=sentences[1],
                unrelated=sentences[2],
                context=context,
            )
        )
    return ParsedRows(items=items, rows_read=len(rows), skipped=skipped)


def _require_fields(row: dict[str, Any], where: str) -> None:
    missing = [key for key in _FIELDS if key not in row]
    if missing:
        raise DataError(
            f"{where}: missing field(s) {', '.join(repr(m) for m in missing)}; "
            f"fields present: {', '.join(repr(k) for k in row) or 'none'}"
        )
