"""BBQ, the Bias Benchmark for QA (Parrish et al. 2022, Findings of ACL).

One multiple-choice question per line of `data/<Category>.jsonl` in the release
(nyu-mll/BBQ): `example_id`, `question_index`, `question_polarity` (neg / nonneg),
`context_condition` (ambig / disambig), `category`, `answer_info` ({ans0..2: [text,
group]}), `additional_metadata` (with `stereotyped_groups`), `context`, `question`,
`ans0`..`ans2` and `label` (the correct answer's index). The item id is
`<category>-<example_id>` (example ids repeat across categories). The unknown answer is
the one whose `answer_info` group is "unknown"; the biased answer comes from
`audit.data.bbq_target`.

BBQ is read from the user's copy of the release (`found_files`): every category file
the folder holds; the `bias_types` filter accepts the categories found (a category
without its file is an unknown name); the run's dataset record lists the item count per
category.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from audit.cards import PluginCard
from audit.data.bbq_target import biased_answer, target_answer
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import ChoiceItem, ContextCondition, Polarity
from audit.data.reading import read_jsonl, require_text
from audit.errors import DataError

#: The release's eleven categories (file `<category>.jsonl`), in the paper's order.
CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Race_x_SES",
    "Race_x_gender",
    "Religion",
    "SES",
    "Sexual_orientation",
)
ANSWERS = ("ans0", "ans1", "ans2")
_FIELDS = (
    "example_id",
    "question_polarity",
    "context_condition",
    "category",
    "answer_info",
    "additional_metadata",
    "context",
    "question",
    *ANSWERS,
    "label",
)
_CONDITIONS: tuple[ContextCondition, ...] = ("ambig", "disambig")
_POLARITIES: tuple[Polarity, ...] = ("neg", "nonneg")
_SOURCE = "https://raw.githubusercontent.com/nyu-mll/BBQ/bea11bd/data"


def file_name(category: str) -> str:
    return f"{category}.jsonl"


class BbqOptions(DatasetOptions):
    """No options: every category file the folder holds is read (choose categories with
    the `bias_types` filter, which accepts the categories found)."""

    def file_names(self) -> tuple[str, ...]:
        return tuple(file_name(c) for c in CATEGORIES)


def read_bbq(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """Every question of the category files found, as ChoiceItems, category by category."""
    assert isinstance(options, BbqOptions)
    items: list[ChoiceItem] = []
    rows_read = 0
    for name in options.file_names():
        if name not in files:
            continue
        rows = read_jsonl(files[name])
        rows_read += len(rows)
        items.extend(_item(row, f"{files[name]}:{line}") for line, row in rows)
    return ParsedRows(items=items, rows_read=rows_read, skipped={})


def found_categories(files: Mapping[str, Path]) -> tuple[str, ...]:
    """The categories whose files are among `files`, in the release's order."""
    return tuple(c for c in CATEGORIES if file_name(c) in files)


def _item(row: dict[str, Any], where: str) -> ChoiceItem:
    missing = [key for key in _FIELDS if key not in row]
    if missing:
        raise DataError(
            f"{where}: missing field(s) {', '.join(repr(m) for m in missing)}; "
            f"fields present: {', '.join(repr(k) for k in row) or 'none'}"
        )
    category = require_text(row["category"], where=where, column="category", strip=True)
    condition = _one_of(row, "context_condition", _CONDITIONS, where)
    polarity = _one_of(row, "question_polarity", _POLARITIES, where)
    answers = tuple(require_text(row[key], where=where, column=key) for key in ANSWERS)
    label = row["label"]
    if not isinstance(label, int) or isinstance(label, bool) or not 0 <= label < len(ANSWERS):
        raise DataError(f"{where}: label is {label!r}; expected 0, 1 or 2")
    texts, groups = _answer_info(row["answer_info"], where)
    unknowns = [i for i, group in enumerate(groups) if group.strip().lower() == "unknown"]
    if len(unknowns) != 1:
        raise DataError(
            f"{where}: answer_info marks {len(unknowns)} answers 'unknown' "
            f"({dict(zip(ANSWERS, groups, strict=True))}); expected exactly one"
        )
    unknown = unknowns[0]
    metadata = row["additional_metadata"]
    stereotyped = metadata.get("stereotyped_groups") if isinstance(metadata, dict) else None
    if not isinstance(stereotyped, list) or not all(isinstance(g, str) for g in stereotyped):
        raise DataError(
            f"{where}: additional_metadata.stereotyped_groups is {stereotyped!r}; "
            "expected a list of group names"
        )
    target = target_answer(texts, groups, unknown, stereotyped)
    return ChoiceItem(
        item_id=f"{category}-{row['example_id']}",
        bias_type=category,
        context=require_text(row["context"], where=where, column="context"),
        question=require_text(row["question"], where=where, column="question"),
        answers=answers,
        label=label,
        unknown=unknown,
        biased=biased_answer(target, unknown, len(ANSWERS), polarity),
        condition=condition,
        polarity=polarity,
    )


def _one_of(row: dict[str, Any], key: str, accepted: tuple[Any, ...], where: str) -> Any:
    value = row[key]
    if value not in accepted:
        raise DataError(f"{where}: {key} is {value!r}; expected one of {', '.join(accepted)}")
    return value


def _answer_info(info: object, where: str) -> tuple[list[str], list[str]]:
    """Each answer's text and group from `answer_info` ({ans0: [text, group], ...})."""
    texts: list[str] = []
    groups: list[str] = []
    for key in ANSWERS:
        entry = info.get(key) if isinstance(info, dict) else None
        if not (
            isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)
        ):
            raise DataError(
                f"{where}: answer_info.{key} is {entry!r}; expected [answer text, group]"
            )
        texts.append(entry[0])
        groups.append(entry[1])
    return texts, groups


def _pinned(category: str, sha256: str, size: int) -> RemoteFile:
    return RemoteFile(file_name(category), f"{_SOURCE}/{file_name(category)}", sha256, size)


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="bbq",
        title="BBQ",
        summary="BBQ (Parrish et al. 2022): multiple-choice questions about people in "
        "ambiguous and disambiguated contexts, 11 categories; read from your copy of the "
        "release (every category file found).",
        shape="choices",
        citation="Parrish et al. 2022, BBQ: A Hand-Built Bias Benchmark for Question "
        "Answering (Findings of ACL).",
        limitations=(
            "Read from your copy of the release: the categories found are those of its "
            "files (the run's dataset record lists the files and the items per category); "
            "a partial copy gives an overall value over fewer categories than the paper's.",
            "Scored as multiple choice by likelihood, not by a QA head as in the paper: "
            "accuracies of a base LM are near chance, and values depend on the prompt "
            "(docs/measures/methods/bbq.md).",
            "Items whose answers do not single out one stereotyped group have no biased "
            "answer; they count in accuracy but not in the bias scores.",
        ),
    ),
    options=BbqOptions,
    target=f"{__name__}:read_bbq",
    # The checksums known (nyu-mll/BBQ @bea11bd); the other categories are read unverified.
    files=(
        _pinned("Age", "46e805b3fc2d8cbd26eeb8e8430d98cf7b2dc9c83574ff3674e8ce4f0fca2a60", 3091834),
        _pinned(
            "Disability_status",
            "375d40d9b71f056150264445ec189b13934998f3f49a1e311aa7578eb3b45e5f",
            1336984,
        ),
        _pinned(
            "Nationality",
            "a583e74666aec0341ded8aa3983e7cad694eb24de72c254d28b2df3035720090",
            2900040,
        ),
        _pinned(
            "Physical_appearance",
            "e48d7e13508565f4801574e611043470c25c95a0a62af3699cb5ee7cb02608fb",
            1347476,
        ),
        _pinned(
            "Religion", "cb9555f9f3454a52cd2df85956b59bd7fcca5aa922c8527693b1164d08417616", 1118728
        ),
        _pinned(
            "Sexual_orientation",
            "2c71036b9e7584fe589c42aef32c1a42bc01b9a5e9b1b8704342630cdb08cefd",
            729010,
        ),
    ),
    folder="bbq",
    bias_types=CATEGORIES,
    size="58,492 questions in 11 categories (the full release)",
    source="nyu-mll/BBQ data/<Category>.jsonl (git clone https://github.com/nyu-mll/BBQ)",
    licence="CC BY 4.0",
    found_files=True,
)
