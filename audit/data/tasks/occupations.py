"""The Winogender occupations with the share of women in each (U.S. Bureau of Labor
Statistics 2015/2016): `<data_dir>/winogender/occupations-stats.tsv`, or a user file of
the same shape. STS-bias pairs every template with these occupations."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from audit.data.reading import read_table
from audit.errors import DataError

OCCUPATIONS_FILE = Path("winogender") / "occupations-stats.tsv"
PCT_FEMALE_COLUMN = "bls_pct_female"
PCT_FEMALE_SOURCE = "Winogender occupations-stats.tsv, bls_pct_female (U.S. BLS)"


@dataclass(frozen=True)
class OccupationStat:
    """An occupation of the Winogender list and the share of women in it (%), if known."""

    occupation: str
    pct_female: float | None


def load_occupation_stats(data_dir: Path | str) -> list[OccupationStat]:
    """The occupations of `<data_dir>/winogender/occupations-stats.tsv` (see
    `read_occupation_stats`); a DataError naming the file and `--data-dir` when it is
    missing."""
    path = Path(data_dir).expanduser() / OCCUPATIONS_FILE
    if not path.is_file():
        raise DataError(
            f"STS-bias: {path} does not exist; the occupations are read from the Winogender "
            "file (rudinger/winogender-schemas data/occupations-stats.tsv) in the data "
            "folder: pass --data-dir ../shared/data (or set AUDIT_DATA_DIR)"
        )
    return read_occupation_stats(path)


def read_occupation_stats(path: Path | str) -> list[OccupationStat]:
    """The occupations of a tab-separated file with a header holding an `occupation`
    column (the Winogender occupations-stats.tsv, or a user file), in file order,
    stripped, repeats and blank rows dropped, with `bls_pct_female` (None when the column
    is absent or the cell is blank). A DataError names the file (and line) of a missing
    file or column, a share that is not a percentage, or a file with no occupation."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(
            f"STS-bias: occupations file {path} does not exist; expected a tab-separated "
            f"file with an `occupation` column (and optionally `{PCT_FEMALE_COLUMN}`)"
        )
    table = read_table(path, "\t", blank_rows="skip")
    if "occupation" not in table.columns:
        raise DataError(
            f"STS-bias: {path} has no `occupation` column (columns: "
            f"{', '.join(table.columns) or 'none'}); expected a tab-separated file like the "
            "Winogender occupations-stats.tsv"
        )
    out: dict[str, float | None] = {}
    for record in table.records:
        name = record.cells["occupation"].strip()
        if not name or name in out:
            continue
        raw = record.cells.get(PCT_FEMALE_COLUMN, "").strip()
        out[name] = _percent(raw, path, record.line) if raw else None
    if not out:
        raise DataError(f"STS-bias: {path} lists no occupation")
    return [OccupationStat(o, p) for o, p in out.items()]


def _percent(raw: str, path: Path, line: int) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= 100):
        raise DataError(
            f"{path}:{line}: {PCT_FEMALE_COLUMN} {raw!r} is not a percentage from 0 to 100"
        )
    return value
