"""User dataset files: `kind: pairs` or `kind: labelled`, CSV / TSV / JSON Lines / JSON.

`format` is inferred from the extension (.csv, .tsv, .jsonl, .json) unless given. A
`.json` file holds one array of objects, read like JSON Lines (each object names the line
it starts on). Columns are
named by `columns:` (role -> column); a required role not mapped uses the column of its own
name (pairs: `stereotype`, `anti_stereotype`; labelled: `text`, `label`), and an
optional role not mapped (`id`, `unrelated`, `bias_type`, `toxicity`, `group`) uses the
column of its own name when the file has one. Without a bias type column every pair
has bias type "unspecified"; without a group column every sentence has the group
"unspecified"; without a toxicity column t = 1.0. A label is harmful when it equals one
of `harmful_labels` (case-insensitive), else benign; an empty label is an error, and so
is NaN, Infinity or -Infinity (which JSON does not allow) in any column read. In a
CSV/TSV cell several groups are separated by ";"; in JSON (Lines) the value may be a list.
The item id is the `id` column, else the 0-based data row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from audit.data.entry import ParsedRows
from audit.data.items import DatasetShape, LabelledItem, PairItem
from audit.data.reading import (
    NonStandardNumber,
    read_jsonl,
    read_table,
    require_columns,
    require_text,
)
from audit.data.record_files import read_json_objects
from audit.data.request import DatasetRequest
from audit.errors import DataError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".json": "json"}
UNSPECIFIED = "unspecified"
GROUP_SEPARATOR = ";"
#: shape -> the column roles a user file must provide.
REQUIRED_ROLES: dict[str, tuple[str, ...]] = {
    "pairs": ("stereotype", "anti_stereotype"),
    "labelled": ("text", "label"),
}
#: shape -> the column roles a user file may provide.
OPTIONAL_ROLES: dict[str, tuple[str, ...]] = {
    "pairs": ("id", "unrelated", "bias_type"),
    "labelled": ("id", "toxicity", "group"),
}

Row = tuple[int, dict[str, Any]]  # (1-based line, column -> value)
#: What to do with a JSON array in a .jsonl file.
_JSON_ARRAY = "name it .json (or set `format: json`), or write one object per line"


def file_format(path: Path, declared: str | None) -> str:
    """The declared format, else the one the extension names."""
    if declared is not None:
        return declared
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise DataError(
            f"{path}: cannot tell the format from the extension {path.suffix!r}; use one of "
            f"{', '.join(FORMATS)} or set `format:` ({', '.join(FORMATS.values())})"
        ) from None


def read_user_file(path: Path, request: DatasetRequest) -> ParsedRows:
    """Read a user file of `request.kind` into items (see the module docstring)."""
    if request.kind is None:
        raise DataError(
            f"dataset '{request.name}': a user file needs `kind: pairs` or `kind: labelled`"
        )
    fmt = file_format(path, request.format)
    if fmt in ("jsonl", "json"):
        rows: list[Row] = (
            read_jsonl(path, json_array=_JSON_ARRAY, non_standard_numbers=True)
            if fmt == "jsonl"
            else [
                (line, dict(row))
                for line, row in read_json_objects(path, non_standard_numbers=True)
            ]
        )
        present = tuple(rows[0][1]) if rows else ()
    else:
        table = read_table(path, "\t" if fmt == "tsv" else ",")
        rows = [(record.line, dict(record.cells)) for record in table.records]
        present = table.columns
    columns = _columns(path, request.kind, request.columns or {}, present)
    build = _pair if request.kind == "pairs" else _labelled_builder(request.harmful_labels)
    items: list[Any] = []
    for index, (line, row) in enumerate(rows):
        where = f"{path}:{line}"
        missing = [column for column in columns.values() if column not in row]
        if missing:
            raise DataError(
                f"{where}: column '{missing[0]}' not found; columns present: "
                f"{', '.join(repr(c) for c in row)}"
            )
        values = {role: row[column] for role, column in columns.items()}
        _refuse_non_finite(values, columns, where, request.harmful_labels)
        item_id = (
            require_text(values["id"], where=where, column=columns["id"], strip=True)
            if "id" in values
            else str(index)
        )
        items.append(build(item_id, values, columns, where))
    if not items:
        raise DataError(f"{path}: the file holds no data rows")
    return ParsedRows(items=items, rows_read=len(rows), skipped={})


def _columns(
    path: Path, kind: DatasetShape, mapped: Mapping[str, str], present: tuple[str, ...]
) -> dict[str, str]:
    """role -> column name for the roles this file provides (`mapped`: the roles the
    spec maps)."""
    required, optional = REQUIRED_ROLES[kind], OPTIONAL_ROLES[kind]
    foreign = [role for role in mapped if role not in required + optional]
    if foreign:
        raise DataError(
            f"{path}: `columns.{foreign[0]}` does not apply to kind {kind}; "
            f"{kind} files map {', '.join(required + optional)}"
        )
    columns = {role: mapped.get(role, role) for role in required}
    require_columns(path, present, columns)
    for role in optional:
        if role in mapped:
            require_columns(path, present, {role: mapped[role]})
            columns[role] = mapped[role]
        elif role in present:
            columns[role] = role
    return columns


def _refuse_non_finite(
    values: Mapping[str, Any], columns: Mapping[str, str], where: str, harmful: Sequence[str]
) -> None:
    """NaN, Infinity and -Infinity (JSON has no such numbers; Python's json reads them) and
    numbers too large for a float are refused in every column read: a label NaN would
    otherwise be read as the text 'nan', and so as benign."""
    for role, value in values.items():
        if isinstance(value, NonStandardNumber):
            problem = f"{value}, which JSON does not allow (it has no NaN, Infinity or -Infinity)"
        elif isinstance(value, float) and not math.isfinite(value):
            problem = f"a number too large to read ({value})"
        else:
            continue
        accepted = _ACCEPTED.get(role, "text")
        if role == "label":
            accepted += f" (harmful: {', '.join(harmful)}; any other value: benign)"
        raise DataError(f"{where}: column '{columns[role]}' holds {problem}; expected {accepted}")


#: What each column role accepts, for the messages.
_ACCEPTED = {
    "label": 'a label as text (e.g. "toxic" or "benign") or a whole number such as 0 or 1',
    "toxicity": "a number > 0",
}


def _pair(item_id: str, values: dict[str, Any], columns: dict[str, str], where: str) -> PairItem:
    def text(role: str, strip: bool = False) -> str:
        return require_text(values[role], where=where, column=columns[role], strip=strip)

    return PairItem(
        item_id=item_id,
        bias_type=text("bias_type", strip=True) if "bias_type" in values else UNSPECIFIED,
        stereotype=text("stereotype"),
        anti_stereotype=text("anti_stereotype"),
        unrelated=text("unrelated") if "unrelated" in values else None,
    )


def _labelled_builder(
    harmful_labels: Sequence[str],
) -> Callable[[str, dict[str, Any], dict[str, str], str], LabelledItem]:
    harmful = {label.strip().lower() for label in harmful_labels}

    def build(
        item_id: str, values: dict[str, Any], columns: dict[str, str], where: str
    ) -> LabelledItem:
        label = values["label"]
        if isinstance(label, bool):
            label = str(label).lower()
        label_text = require_text(label, where=where, column=columns["label"], strip=True)
        return LabelledItem(
            item_id=item_id,
            text=require_text(values["text"], where=where, column=columns["text"]),
            label="harmful" if label_text.lower() in harmful else "benign",
            toxicity=_toxicity(values, columns, where),
            groups=_groups(values, columns, where),
        )

    return build


def _toxicity(values: dict[str, Any], columns: dict[str, str], where: str) -> float:
    if "toxicity" not in values:
        return 1.0
    raw = values["toxicity"]
    if isinstance(raw, bool):
        raw = None
    try:
        value = float(raw) if raw is not None and str(raw).strip() else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise DataError(
            f"{where}: column '{columns['toxicity']}' is {raw!r}; expected a number > 0"
        )
    return value


def _groups(values: dict[str, Any], columns: dict[str, str], where: str) -> tuple[str, ...]:
    if "group" not in values:
        return (UNSPECIFIED,)
    raw = values["group"]
    cells = raw if isinstance(raw, list) else str(raw).split(GROUP_SEPARATOR) if raw else []
    groups = [require_text(g, where=where, column=columns["group"], strip=True) for g in cells]
    if not groups:
        raise DataError(f"{where}: empty value in column '{columns['group']}'")
    return tuple(dict.fromkeys(groups))
