"""An NLI training set (MultiNLI or SNLI) as a task dataset: labelled premise/hypothesis
pairs, which NLI-bias fine-tunes a 3-way classifier on, with a seeded hold-out as the dev
set that checks the fine-tuning worked (METHODS.md section 6).

**Not shipped.** The official JSON Lines files (sentence1, sentence2, gold_label), the
official tab-separated `.txt` files of the same distributions (multinli_1.0_train.txt,
snli_1.0_train.txt: a header with gold_label, ..., sentence1, sentence2, ...; no
quoting), the GLUE MNLI/SNLI TSV files (a header with sentence1, sentence2, gold_label;
no quoting) or a CSV/JSONL file with premise, hypothesis, label, in
`<data_dir>/nli_bias/`. Pairs without
a gold label ("-": the annotators disagreed) are left out, as usual. Every format is read
by the shared readers (`audit.data.reading`); JSON Lines a line at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from audit.cards import PluginCard
from audit.data.reading import iter_jsonl, read_table
from audit.data.task_entry import TASK_DATASET_SHAPE, NoSpecOptions, TaskDatasetEntry, TaskSplits
from audit.errors import DataError

NliLabel = Literal["entailment", "neutral", "contradiction"]
#: The three labels in the order of a classifier's probability columns.
LABELS: tuple[NliLabel, ...] = ("entailment", "neutral", "contradiction")
#: Label spellings read (lower case) -> the label.
LABEL_NAMES: Mapping[str, NliLabel] = {
    "entailment": "entailment",
    "entail": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
}
NLI_FOLDER = "nli_bias"
TRAINING_HINT = (
    "NLI-bias fine-tunes on an NLI training set, which is not shipped: download MultiNLI "
    "(https://cims.nyu.edu/~sbowman/multinli/, multinli_1.0.zip: multinli_1.0_train.jsonl) "
    "or SNLI (https://nlp.stanford.edu/projects/snli/, snli_1.0.zip: "
    f"snli_1.0_train.jsonl), put the file in <data folder>/{NLI_FOLDER}/ and give the "
    "folder with `audit run --data-dir DIR`"
)
#: Training files looked for in `<data_dir>/nli_bias/`, in this order.
TRAINING_FILES = (
    "multinli_1.0_train.jsonl",
    "snli_1.0_train.jsonl",
    "multinli_1.0_train.txt",
    "snli_1.0_train.txt",
    "train.jsonl",
    "train.tsv",
)
#: Suffixes read: JSON Lines, tab-separated (.tsv, and .txt as the official MultiNLI/SNLI
#: distributions name their tab-separated files) and CSV.
TRAINING_SUFFIXES = (".jsonl", ".tsv", ".txt", ".csv")
#: Training pairs held out (seeded) as the dev set that checks the fine-tuning worked.
DEV_SHARE = 0.02
DEV_MAX = 2000


@dataclass(frozen=True)
class NliExample:
    """One labelled NLI training pair."""

    premise: str
    hypothesis: str
    label: NliLabel


class NliTrainingReading(Protocol):
    """The task options the reader reads (`audit.extrinsic.options.NliBiasOptions`)."""

    @property
    def training_file(self) -> str | None: ...


def in_folder(data_dir: Path | str, value: str) -> Path:
    """`value` as a path: absolute as given, else inside `<data_dir>/nli_bias/`."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else Path(data_dir).expanduser() / NLI_FOLDER / path


def find_nli_training_file(data_dir: Path | str, *, file: str | None = None) -> Path:
    """`file` (relative to `<data_dir>/nli_bias/` unless absolute), else the first of
    `TRAINING_FILES` there; a DataError saying what to download and where to put it."""
    folder = Path(data_dir).expanduser() / NLI_FOLDER
    if file is not None:
        path = in_folder(data_dir, file)
        if not path.is_file():
            raise DataError(f"NLI-bias: {path} does not exist. {TRAINING_HINT}")
        return path
    for name in TRAINING_FILES:
        if (folder / name).is_file():
            return folder / name
    raise DataError(
        f"NLI-bias: no training file in {folder} (looked for {', '.join(TRAINING_FILES)}). "
        f"{TRAINING_HINT}"
    )


def cell(record: Mapping[str, Any], names: Sequence[str]) -> str | None:
    """The first of `names` holding non-blank text, stripped; None if none does."""
    for name in names:
        value = record.get(name)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _nli_label(value: Any, field: str, where: str) -> NliLabel | None:
    text = str(value).strip().lower()
    if text in ("-", ""):
        return None  # no gold label (annotators disagreed): left out, as usual
    if text in LABEL_NAMES:
        return LABEL_NAMES[text]
    raise DataError(
        f"{where}: {field} {value!r} is not one of {', '.join(LABEL_NAMES)} (any case) or "
        "'-' (no gold label: left out); integer codes are not guessed: export the label "
        "names"
    )


def _rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        yield from iter_jsonl(path)
    elif suffix in (".tsv", ".txt", ".csv"):
        table = (
            read_table(path, ",", blank_rows="skip")
            if suffix == ".csv"
            else read_table(path, "\t", quoting="none", blank_rows="skip")
        )
        yield from ((r.line, r.cells) for r in table.records)
    else:
        raise DataError(
            f"NLI-bias: {path} has the suffix {path.suffix or '(none)'}; expected "
            f"{', '.join(TRAINING_SUFFIXES)} (.txt: the tab-separated MultiNLI/SNLI files)"
        )


def load_nli_training(path: Path | str) -> list[NliExample]:
    """Labelled pairs of the official MultiNLI/SNLI JSON Lines files (sentence1, sentence2,
    gold_label) or their tab-separated .txt twins, the GLUE MNLI/SNLI TSV files (header
    with sentence1, sentence2, gold_label; no quoting), or a CSV/JSONL file with premise,
    hypothesis, label. Pairs without a gold label ("-") are left out. A DataError names
    the file and line of a missing file (with what to download), a missing column or
    sentence, an unknown label (with the field and value), or a file with no labelled
    pair."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"NLI-bias: {path} does not exist. {TRAINING_HINT}")
    out: list[NliExample] = []
    for line, row in _rows(path):
        where = f"{path}:{line}"
        premise = cell(row, ("sentence1", "premise"))
        hypothesis = cell(row, ("sentence2", "hypothesis"))
        keys = ", ".join(sorted(map(str, row))) or "none"
        field = next((k for k in ("gold_label", "label") if k in row), None)
        if field is None:
            raise DataError(f"{where}: no gold_label or label (fields: {keys})")
        label = _nli_label(row[field], field, where)
        if label is None:
            continue
        if premise is None or hypothesis is None:
            which = "sentence1/premise" if premise is None else "sentence2/hypothesis"
            raise DataError(
                f"{where}: the {which} is missing or empty (a labelled pair needs both "
                f"sentences; fields: {keys})"
            )
        out.append(NliExample(premise=premise, hypothesis=hypothesis, label=label))
    if not out:
        raise DataError(f"{path}: no labelled pair")
    return out


def read_nli_training_splits(data_dir: Path, options: NliTrainingReading, seed: int) -> TaskSplits:
    """The training file's labelled pairs as "train" and "dev": a seeded hold-out of
    `DEV_SHARE` of them (at most `DEV_MAX`), the rest in file order."""
    import numpy as np

    path = find_nli_training_file(data_dir, file=options.training_file)
    examples = load_nli_training(path)
    rng = np.random.default_rng(seed)
    n_dev = min(DEV_MAX, int(len(examples) * DEV_SHARE))
    held_out = set(rng.choice(len(examples), size=n_dev, replace=False).tolist())
    return TaskSplits(
        dataset=ENTRY.name,
        splits={
            "train": [e for i, e in enumerate(examples) if i not in held_out],
            "dev": [e for i, e in enumerate(examples) if i in held_out],
        },
        files={"train": path},
    )


ENTRY = TaskDatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="nli",
        title="MultiNLI / SNLI training pairs",
        summary="Premise/hypothesis pairs labelled entailment, neutral or contradiction (not "
        "shipped), the training set of NLI-bias.",
        shape=TASK_DATASET_SHAPE,
        citation="Williams et al. 2018 (MultiNLI); Bowman et al. 2015 (SNLI)",
    ),
    options=NoSpecOptions,
    target="audit.data.tasks.nli:read_nli_training_splits",
    folder=NLI_FOLDER,
    files=TRAINING_FILES,
    splits=("train", "dev"),
    rows="a premise, a hypothesis and the gold label",
    shipped=False,
    size="about 393,000 (MultiNLI) or 550,000 (SNLI) training pairs",
    source="https://cims.nyu.edu/~sbowman/multinli/, https://nlp.stanford.edu/projects/snli/",
    licence="MultiNLI: mostly OANC (free) with some CC BY-SA parts; SNLI: CC BY-SA 4.0",
)
