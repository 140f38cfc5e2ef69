"""BiasBios (De-Arteaga et al. 2019) as a task dataset: biographies with their occupation
(title) and gender, in train/dev/test splits, which the BiasBios task fine-tunes an
occupation classifier on and measures the TPR gap with (METHODS.md section 6).

**The data is not shipped.** It is the user's own copy, in `<data_dir>/biasbios/`:

- `BIOS.pkl`, built with the Microsoft biosbias repository
  (https://github.com/microsoft/biosbias, MIT): `./recreate.sh` downloads Common Crawl
  archives, extracts the bios and writes a pickled list of dicts with "raw" (the whole
  bio), "start_pos" (where the text after the first sentence starts), "title" (the
  normalised occupation, e.g. "nurse"), "gender" ("F"/"M"), "bio" (a scrubbed copy without
  names and pronouns), "name", "raw_title", "URI", "path". The task is to predict
  `title` from `raw[start_pos:]`, the text without the first sentence (which names the
  title).
- The split pickles of Ravfogel et al. 2020 (their `create_dataset_biasbios.py` writes
  `train.pickle`, `dev.pickle`, `test.pickle`; copies are also named `bios_train.pickle`
  and so on): lists of dicts with "g" ("f"/"m"), "p" (title), "text" (the raw bio),
  "start", "hard_text" (the text after the first sentence; tokenized in later copies,
  which add "hard_text_untokenized") and "text_without_gender".
- Exports of either as JSON Lines (`.jsonl`, one object per line), JSON (`.json`, a list
  of objects), CSV/TSV with a header row, or Parquet (e.g. the Hugging Face
  LabHC/bias_in_bios files, columns hard_text, profession, gender as integer codes).

Every format is read by the shared readers (`audit.data.reading`, `audit.data.record_files`).
Reading a pickle runs no code from it: the unpickler refuses every class, so only lists,
dicts, tuples, strings and numbers load, and a pickle of anything else (a DataFrame) is
an error that says to export it to JSON Lines. Still, only read pickles you made
yourself.

**Fields.** Unless named (`text_field`, `title_field`, `gender_field`), the text is
`raw[start_pos:]` (stripped) when a record has "raw" and "start_pos" (`text="scrubbed"`
takes "bio" instead), else the first of "hard_text_untokenized", "hard_text", "text",
"bio"; the title is the first of "title", "profession", "p", "occupation", "label"; the
gender the first of "gender", "g". Genders "F"/"f"/"female"/"woman"/"w" and
"M"/"m"/"male"/"man" are read as such (any case); integer codes (LabHC stores 0/1)
need `gender_codes`, e.g. {"0": "male", "1": "female"}, taken from the export's card.
Integer titles are kept as strings ("13").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from audit.cards import PluginCard
from audit.data.task_entry import TASK_DATASET_SHAPE, NoSpecOptions, TaskDatasetEntry, TaskSplits
from audit.data.tasks.biasbios_fields import (
    GENDER_FIELDS,
    SUFFIXES,
    TITLE_FIELDS,
    Gender,
    bio_text,
    field_name,
    read_gender,
    read_records,
)
from audit.errors import AuditUserError, DataError

BIASBIOS_FOLDER = "biasbios"
SPLIT_NAMES = ("train", "dev", "test")
DOWNLOAD_HINT = (
    "BiasBios is not shipped (its bios come from Common Crawl): build BIOS.pkl with the "
    "Microsoft biosbias repository (https://github.com/microsoft/biosbias: run "
    "./recreate.sh, which downloads the Common Crawl archives and writes BIOS.pkl), or use "
    "the split pickles of Ravfogel et al. 2020 (bios_train.pickle, bios_dev.pickle, "
    "bios_test.pickle) or a JSONL/CSV/Parquet export with text, title and gender columns; "
    f"put the file(s) in <data folder>/{BIASBIOS_FOLDER}/ and give the folder with "
    "`audit run --data-dir DIR`"
)


@dataclass(frozen=True)
class Bio:
    """One biography: the classifier's input `text`, its true `title`, and `gender`;
    `index` is its position in the file (0-based)."""

    text: str
    title: str
    gender: Gender
    index: int


class BiasBiosReading(Protocol):
    """The task options the reader reads (`audit.extrinsic.options.BiasBiosOptions`)."""

    @property
    def file(self) -> str | None: ...
    @property
    def text_field(self) -> str | None: ...
    @property
    def title_field(self) -> str | None: ...
    @property
    def gender_field(self) -> str | None: ...
    @property
    def gender_codes(self) -> Mapping[str, str] | None: ...
    @property
    def text(self) -> Literal["auto", "scrubbed"]: ...
    @property
    def test_share(self) -> float: ...
    @property
    def dev_share(self) -> float: ...


# --- finding the files --------------------------------------------------------------------


def find_biasbios_files(data_dir: Path | str, *, file: str | None = None) -> dict[str, Path]:
    """The BiasBios files to read: {"all": path} for one file (`file`, relative to
    `<data_dir>/biasbios/` unless absolute, else `BIOS.pkl` there) or {"train", "dev",
    "test"} when the folder holds a file per split (a name with the split's name as a word
    of its stem: `bios_test.pickle`, `test.jsonl`, `test-00000-of-00001.parquet`). A
    DataError saying what to download and where to put it when nothing is there."""
    folder = Path(data_dir).expanduser() / BIASBIOS_FOLDER
    if file is not None:
        path = Path(file).expanduser()
        path = path if path.is_absolute() else folder / path
        if not path.is_file():
            raise DataError(f"BiasBios: {path} does not exist. {DOWNLOAD_HINT}")
        return {"all": path}
    if not folder.is_dir():
        raise DataError(f"BiasBios: the folder {folder} does not exist. {DOWNLOAD_HINT}")
    splits: dict[str, Path] = {}
    candidates = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in SUFFIXES)
    for split in SPLIT_NAMES:
        named = [p for p in candidates if _names_split(p, split)]
        if len(named) > 1:
            raise DataError(
                f"BiasBios: {folder} holds {len(named)} {split} files "
                f"({', '.join(p.name for p in named)}); keep one, or name it with `file`"
            )
        if named:
            splits[split] = named[0]
    if splits:
        missing = [s for s in SPLIT_NAMES if s not in splits and s != "dev"]
        if missing:
            raise DataError(
                f"BiasBios: {folder} has split file(s) {', '.join(sorted(splits))} but no "
                f"{' or '.join(missing)} file; give train and test files (dev is optional), "
                "or one BIOS.pkl to be split"
            )
        return splits
    whole = folder / "BIOS.pkl"
    if whole.is_file():
        return {"all": whole}
    present = ", ".join(sorted(p.name for p in folder.iterdir())) or "no file"
    raise DataError(
        f"BiasBios: {folder} has {present}; expected BIOS.pkl or train/test split files "
        f"({', '.join(SUFFIXES)}). {DOWNLOAD_HINT}"
    )


def _names_split(path: Path, split: str) -> bool:
    """Whether a file name names a split as a word of its stem: bios_test.pickle,
    test.jsonl, test-00000-of-00001.parquet (not contest.jsonl)."""
    return re.search(rf"(?:^|[_\-.]){split}(?:$|[_\-.])", path.stem.lower()) is not None


def load_biasbios(
    path: Path | str,
    *,
    text_field: str | None = None,
    title_field: str | None = None,
    gender_field: str | None = None,
    gender_codes: Mapping[str, str] | None = None,
    text: Literal["auto", "scrubbed"] = "auto",
) -> list[Bio]:
    """Every bio of one file (any format of the module docstring), in file order.

    A DataError (an AuditUserError) names the file and record (and line, in a line-based
    format) of: a missing file (with what to download and where to put it), an unknown
    suffix, a record without a text, title or gender field, an empty text or title, a
    gender that is neither female nor male (integer codes need `gender_codes`), a file
    with no bio.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"BiasBios: {path} does not exist. {DOWNLOAD_HINT}")
    codes = {str(k).strip(): str(v) for k, v in gender_codes.items()} if gender_codes else None
    bios: list[Bio] = []
    for number, (where, record) in enumerate(read_records(path)):
        title_name = field_name(record, title_field, TITLE_FIELDS, "title", where)
        gender_name = field_name(record, gender_field, GENDER_FIELDS, "gender", where)
        body = bio_text(record, text_field, text, where)
        title = str(record[title_name]).strip()
        if not body:
            raise DataError(f"{where}: the text is empty")
        if not title:
            raise DataError(f"{where}: the title ({title_name}) is empty")
        gender = read_gender(record[gender_name], codes, where)
        bios.append(Bio(text=body, title=title, gender=gender, index=number))
    if not bios:
        raise DataError(f"{path}: no bios")
    return bios


def split_biasbios(
    bios: Sequence[Bio], *, seed: int, test: float = 0.25, dev: float = 0.10
) -> dict[str, list[Bio]]:
    """A seeded split of one file's bios into train/dev/test, stratified by (title, gender)
    so each split keeps the data's mix (default 65/10/25, the shares of the Ravfogel et al.
    2020 split). Each cell gives round(share x size) bios to test and to dev, the rest to
    train; bios keep their file order within each split."""
    import numpy as np

    if not (0 < test < 1 and 0 <= dev < 1 and test + dev < 1):
        raise AuditUserError(
            f"BiasBios split: test ({test}) and dev ({dev}) shares must be in [0, 1) with "
            "test > 0 and test + dev < 1"
        )
    rng = np.random.default_rng(seed)
    cells: dict[tuple[str, str], list[int]] = {}
    for i, bio in enumerate(bios):
        cells.setdefault((bio.title, bio.gender), []).append(i)
    which = np.zeros(len(bios), dtype=np.int64)  # 0 train, 1 dev, 2 test
    for key in sorted(cells):
        members = np.array(cells[key], dtype=np.int64)
        order = members[rng.permutation(members.size)]
        n_test = round(test * members.size)
        n_dev = round(dev * members.size)
        which[order[:n_test]] = 2
        which[order[n_test : n_test + n_dev]] = 1
    return {
        name: [b for b, w in zip(bios, which, strict=True) if w == code]
        for code, name in enumerate(SPLIT_NAMES)
    }


def read_biasbios_splits(data_dir: Path, options: BiasBiosReading, seed: int) -> TaskSplits:
    """The train/dev/test bios: a file per split (dev optional), or one file split with
    `seed` and the options' `test_share` / `dev_share`."""
    files = find_biasbios_files(data_dir, file=options.file)

    def read(split: str) -> list[Bio]:
        return load_biasbios(
            files[split],
            text_field=options.text_field,
            title_field=options.title_field,
            gender_field=options.gender_field,
            gender_codes=options.gender_codes,
            text=options.text,
        )

    if "all" in files:
        splits = split_biasbios(
            read("all"), seed=seed, test=options.test_share, dev=options.dev_share
        )
    else:
        splits = {s: read(s) if s in files else [] for s in SPLIT_NAMES}
    return TaskSplits(dataset=ENTRY.name, splits=splits, files=files)


ENTRY = TaskDatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="biasbios",
        title="BiasBios",
        summary="Online biographies with their occupation and gender (not shipped: rebuilt "
        "from Common Crawl or taken from a public export).",
        shape=TASK_DATASET_SHAPE,
        citation="De-Arteaga et al. 2019",
    ),
    options=NoSpecOptions,
    target="audit.data.tasks.biasbios:read_biasbios_splits",
    folder=BIASBIOS_FOLDER,
    files=("BIOS.pkl", "<split>.{pkl,pickle,jsonl,json,csv,tsv,parquet}"),
    splits=SPLIT_NAMES,
    rows="a biography's text, its occupation (title) and the person's gender",
    shipped=False,
    size="about 397,000 bios in 28 occupations (biosbias)",
    source="https://github.com/microsoft/biosbias (scripts, MIT); the bios are Common Crawl's",
    licence="the scripts are MIT; the bios are web pages under their authors' terms",
)
