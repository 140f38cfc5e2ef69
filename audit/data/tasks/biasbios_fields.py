"""Reading the records of a BiasBios file and the fields of one record: its text, title
and gender, found by the names the known exports use unless the options name them (the
formats and field rules are in `audit.data.tasks.biasbios`'s docstring)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from audit.data.reading import iter_jsonl, read_table
from audit.data.record_files import read_json_objects, read_parquet_records, read_pickle_records
from audit.errors import AuditUserError, DataError

Gender = Literal["female", "male"]
SUFFIXES = (".pkl", ".pickle", ".jsonl", ".json", ".csv", ".tsv", ".parquet")
TEXT_FIELDS = ("hard_text_untokenized", "hard_text", "text", "bio")
TITLE_FIELDS = ("title", "profession", "p", "occupation", "label")
GENDER_FIELDS = ("gender", "g")
GENDER_WORDS: dict[str, Gender] = {
    "f": "female",
    "female": "female",
    "woman": "female",
    "w": "female",
    "m": "male",
    "male": "male",
    "man": "male",
}
RECORD = "a dict with text, title and gender, as biosbias' BIOS.pkl"
EXPORT_HINT = (
    "Export the bios to JSON Lines (one object per line with text, title and gender) and "
    "read that instead"
)


def read_records(path: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """(where, record) of every record, `where` naming the file, the line where the
    format has lines, and the record's 0-based number."""
    suffix = path.suffix.lower()
    if suffix in (".pkl", ".pickle"):
        numbered = read_pickle_records(path, item=RECORD, export_hint=EXPORT_HINT)
        return [(f"{path}: record {n}", r) for n, r in numbered]
    if suffix == ".json":
        objects = read_json_objects(path, item=RECORD)
        return [(f"{path}:{line}: record {n}", r) for n, (line, r) in enumerate(objects)]
    if suffix == ".parquet":
        return [(f"{path}: record {n}", r) for n, r in read_parquet_records(path)]
    if suffix == ".jsonl":
        lines = iter_jsonl(
            path,
            expected="an object with text, title and gender",
            not_json="not valid JSON",
            json_array="name it .json",
        )
        return [(f"{path}:{line}: record {n}", r) for n, (line, r) in enumerate(lines)]
    if suffix in (".csv", ".tsv"):
        table = read_table(path, "\t" if suffix == ".tsv" else ",", blank_rows="skip")
        return [(f"{path}:{r.line}: record {n}", r.cells) for n, r in enumerate(table.records)]
    raise DataError(
        f"BiasBios: {path} has the suffix {path.suffix or '(none)'}; expected one of "
        f"{', '.join(SUFFIXES)}"
    )


def _first(record: Mapping[str, Any], names: Sequence[str]) -> str | None:
    return next((n for n in names if n in record and not _missing(record[n])), None)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_code(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, str) and value.strip().lstrip("-").isdigit()


def read_gender(value: Any, codes: Mapping[str, str] | None, where: str) -> Gender:
    if codes is not None and str(value).strip() in codes:
        mapped = str(codes[str(value).strip()]).strip().lower()
        if mapped in GENDER_WORDS:
            return GENDER_WORDS[mapped]
        raise AuditUserError(
            f"BiasBios: gender_codes maps {str(value).strip()!r} to "
            f"{codes[str(value).strip()]!r}; "
            "expected female or male"
        )
    if _is_code(value):
        raise DataError(
            f"{where}: gender {value!r} is a numeric code; say what the codes mean with "
            "gender_codes, e.g. {'0': 'male', '1': 'female'}, as the export's dataset card "
            "gives them"
        )
    word = str(value).strip().lower()
    if word in GENDER_WORDS:
        return GENDER_WORDS[word]
    raise DataError(
        f"{where}: gender {value!r} is not one of F, M, female, male, woman, man (any case)"
        + (f" nor a key of gender_codes ({', '.join(codes)})" if codes else "")
    )


def bio_text(
    record: Mapping[str, Any], field: str | None, use: Literal["auto", "scrubbed"], where: str
) -> str:
    keys = ", ".join(sorted(map(str, record))) or "none"
    if field is not None:
        if field not in record or _missing(record[field]):
            raise DataError(f"{where}: no text field {field!r} (fields: {keys})")
        return str(record[field]).strip()
    if use == "scrubbed":
        if "bio" not in record or _missing(record["bio"]):
            raise DataError(
                f"{where}: text='scrubbed' reads the field 'bio' (biosbias' scrubbed bio), "
                f"which this record lacks (fields: {keys})"
            )
        return str(record["bio"]).strip()
    if "raw" in record and "start_pos" in record:
        raw, start = record["raw"], record["start_pos"]
        if not isinstance(raw, str) or not _is_code(start):
            raise DataError(
                f"{where}: 'raw' must be text and 'start_pos' an integer "
                f"(got {type(raw).__name__}, {start!r})"
            )
        return raw[int(start) :].strip()
    name = _first(record, TEXT_FIELDS)
    if name is None:
        alone = (
            "; 'raw' is not read without 'start_pos': the whole bio's first sentence names "
            "the title"
            if "raw" in record
            else ""
        )
        raise DataError(
            f"{where}: no text field: expected raw + start_pos (biosbias) or one of "
            f"{', '.join(TEXT_FIELDS)}, or name it with text_field (fields: {keys}){alone}"
        )
    return str(record[name]).strip()


def field_name(
    record: Mapping[str, Any], named: str | None, defaults: Sequence[str], what: str, where: str
) -> str:
    """The name of the record's `what` field: `named`, else the first default present."""
    name = named or _first(record, defaults)
    if name is None or name not in record or _missing(record[name]):
        keys = ", ".join(sorted(map(str, record))) or "none"
        wanted = repr(named) if named else "one of " + ", ".join(defaults)
        raise DataError(f"{where}: no {what} field ({wanted}; fields: {keys})")
    return name
