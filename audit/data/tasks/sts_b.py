"""The STS Benchmark (Cer et al. 2017) as a task dataset: train, dev and test splits of
scored sentence pairs, which STS-bias fine-tunes a regression head on (train, dev) and
builds its pairs from (test) (METHODS.md section 6).

Format of `sts-{train,dev,test}.tsv` (korjak/sts-dev @5c830c7, `data/STS-B/original/`,
as in the shared data folder): tab-separated, no header, no quoting (a `"` is a literal
character), columns genre, file, year, id, score, sentence1, sentence2. Some lines carry
one or two more cells naming the text's source (284 test, 197 train, 22 dev lines);
they are ignored. The score is a number from 0 to 5 ("3", "2.500", "5.000000").
Sentences are kept as written (a few carry a trailing space).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from audit.cards import PluginCard
from audit.data.reading import read_rows
from audit.data.task_entry import TASK_DATASET_SHAPE, NoSpecOptions, TaskDatasetEntry, TaskSplits
from audit.errors import DataError

StsSplit = Literal["train", "dev", "test"]
SPLITS: tuple[StsSplit, ...] = ("train", "dev", "test")
STS_B_FOLDER = "sts_b"
#: Cells a line must have: genre, file, year, id, score, sentence1, sentence2.
MIN_CELLS = 7
SCORE_RANGE = (0.0, 5.0)


@dataclass(frozen=True)
class StsRow:
    """One STS-B pair: gold similarity `score` (0 to 5) of `sentence1` and `sentence2`."""

    score: float
    sentence1: str
    sentence2: str
    genre: str
    file: str
    year: str
    id: str
    line: int


def sts_b_path(data_dir: Path | str, split: StsSplit) -> Path:
    """`<data_dir>/sts_b/sts-<split>.tsv`."""
    if split not in SPLITS:
        raise ValueError(f"unknown STS-B split {split!r}; expected one of {', '.join(SPLITS)}")
    return Path(data_dir).expanduser() / STS_B_FOLDER / f"sts-{split}.tsv"


def load_sts_b(data_dir: Path | str, split: StsSplit) -> list[StsRow]:
    """The rows of `<data_dir>/sts_b/sts-<split>.tsv`; a DataError (an AuditUserError)
    naming the path and `--data-dir` when the file is missing."""
    path = sts_b_path(data_dir, split)
    if not path.is_file():
        raise DataError(
            f"STS-B {split} split: {path} does not exist; STS-bias reads "
            f"sts-train.tsv, sts-dev.tsv and sts-test.tsv from <data folder>/{STS_B_FOLDER}/ "
            "(the STS Benchmark with gold scores, e.g. korjak/sts-dev "
            "data/STS-B/original/). Give the folder with `audit run --data-dir DIR` "
            "(or AUDIT_DATA_DIR), e.g. --data-dir ../shared/data"
        )
    return read_sts_b(path)


def read_sts_b(path: Path | str) -> list[StsRow]:
    """Every line of one STS-B file as a row (see the module docstring for the format).

    A DataError names the file and line of: a missing file, fewer than 7 cells, a score
    that is not a number from 0 to 5, an empty sentence, a file that is not UTF-8 or has
    no row.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"STS-B file {path} does not exist")
    rows = [_row(path, line, cells) for line, cells in read_rows(path, "\t", quoting="none")]
    if not rows:
        raise DataError(
            f"{path}: no rows; expected tab-separated lines of genre, file, year, id, score, "
            "sentence1, sentence2"
        )
    return rows


def _row(path: Path, line: int, cells: list[str]) -> StsRow:
    if len(cells) < MIN_CELLS:
        raise DataError(
            f"{path}:{line}: {len(cells)} tab-separated cell(s), expected at least "
            f"{MIN_CELLS} (genre, file, year, id, score, sentence1, sentence2)"
        )
    genre, file, year, row_id, raw_score, s1, s2 = cells[:MIN_CELLS]
    try:
        score = float(raw_score)
    except ValueError:
        score = math.nan
    low, high = SCORE_RANGE
    if not (math.isfinite(score) and low <= score <= high):
        raise DataError(
            f"{path}:{line}: score {raw_score!r} (column 5) is not a number from "
            f"{low:g} to {high:g}"
        )
    for column, sentence in ((6, s1), (7, s2)):
        if not sentence.strip():
            raise DataError(f"{path}:{line}: sentence {column - 5} (column {column}) is empty")
    return StsRow(
        score=score,
        sentence1=s1,
        sentence2=s2,
        genre=genre,
        file=file,
        year=year,
        id=row_id,
        line=line,
    )


def read_sts_b_splits(data_dir: Path, options: Any, seed: int) -> TaskSplits:
    """The three splits (no options, no seed: the files are the splits)."""
    return TaskSplits(
        dataset=ENTRY.name,
        splits={split: load_sts_b(data_dir, split) for split in SPLITS},
        files={split: sts_b_path(data_dir, split) for split in SPLITS},
    )


ENTRY = TaskDatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="sts_b",
        title="STS Benchmark",
        summary="Sentence pairs with a gold similarity from 0 to 5, in train, dev and test "
        "splits (the data STS-bias fine-tunes on and builds its pairs from).",
        shape=TASK_DATASET_SHAPE,
        citation="Cer et al. 2017",
    ),
    options=NoSpecOptions,
    target="audit.data.tasks.sts_b:read_sts_b_splits",
    folder=STS_B_FOLDER,
    files=tuple(f"sts-{split}.tsv" for split in SPLITS),
    splits=SPLITS,
    rows="a sentence pair and its gold similarity (0 to 5)",
    shipped=True,
    size="5,749 train, 1,500 dev, 1,379 test pairs",
    source="korjak/sts-dev @5c830c7, data/STS-B/original/",
    licence="the licences of the underlying sources (see the STS Benchmark page)",
)
