"""The NLI-bias pairs (Dev et al. 2020, "On Measuring and Mitigating Biased Inferences of
Word Embeddings") as a task dataset: gender-occupation premise/hypothesis pairs that an
unbiased NLI model calls neutral, generated from Dev et al.'s word lists or read from a
pairs file (METHODS.md section 6).

**Templates.** A premise names an occupation, the hypothesis a gender word, and both share
the verb and object: "The accountant bought a bagel." / "The woman bought a bagel." The
(verb, object) combinations follow the public code
(sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings,
`stereotypes/templates.py`): commerce verbs x every object (the union of the
`nouns/objects/*` lists), interaction verbs x the people of `person_hyponyms` and
`rulers`, driving verbs x vehicles, eating verbs x food. Each list is read as that code
reads it: lines stripped, repeats dropped, sorted (Python's order, so "SUV" comes before
"apple"); the object union is sorted too (the code leaves it in set order). The object
always takes "a"/"an" ("an" before a vowel letter).

`style`: "paper" writes "The <occupation> <verb> a/an <object>." (the paper's form);
"reference" writes the public code's exact strings, "A/An <occupation> <verb> a/an
<object> ." (indefinite subject, a space before the period). Pairs come in the code's
order: occupation, then gender word, then template (the code's template order within a
block differs, since it leaves objects in set order; the set of rows, ids included, was
checked identical to the output of the public `generate_templates.py` run on its own
lists with three occupations, 35,424 rows). With the public word lists (master @e39da89:
164 occupations, 6 gender words; 10 commerce verbs x 95 objects + 10 interaction verbs x
89 people + 2 x 9 vehicles + 5 x 22 foods = 1,968 templates) that is 1,968 x 164 x 6 =
1,936,512 pairs; `max_premises` keeps a seeded sample of (occupation, template)
premises, each with every gender word, so every gender word sees the same premises.

**Word lists are not shipped**: the public repository has no licence, so the files cannot
be redistributed. Copy its `word_lists/` folder to `<data_dir>/nli_bias/word_lists/`
(layout `nouns/people/occupations`, `nouns/people/gendered_words`,
`nouns/people/person_hyponyms`, `nouns/people/rulers`, `nouns/objects/*`, `verbs/*_verbs`,
one entry per line), or point `occupations_file` / `gender_words_file` at your own lists
(e.g. the Winogender occupations).

**Files.** `write_nli_pairs` writes the public code's CSV (id, pair type,
premise_filler_word, hypothesis_filler_word, template_type, premise, hypothesis; id =
sha224 of "<pair type>\\t<premise>\\t<hypothesis>", as that code computes it);
`load_nli_pairs` reads it back, or any CSV/TSV with a header or JSON Lines file with
`premise` and `hypothesis` (and optionally `occupation`/`premise_filler_word` and
`gender_word`/`hypothesis_filler_word`). Every file is read by the shared readers.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from audit.cards import PluginCard
from audit.data.reading import read_jsonl, read_lines, read_table
from audit.data.task_entry import TASK_DATASET_SHAPE, NoSpecOptions, TaskDatasetEntry, TaskSplits
from audit.data.tasks.nli import NLI_FOLDER, cell, in_folder
from audit.errors import AuditUserError, DataError

Style = Literal["paper", "reference"]

WORD_LISTS_FOLDER = "word_lists"
REPOSITORY = (
    "https://github.com/sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings"
)
SOURCE = f"{REPOSITORY} (folder word_lists/)"
PAIR_TYPE = "occupations -> gendered_words"
#: (verb list, object lists) of the public code's templates, in its order.
TEMPLATE_PLAN: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("commerce_verbs", ("*objects",)),
    ("interaction_verbs", ("person_hyponyms", "rulers")),
    ("driving_verbs", ("vehicles",)),
    ("eating_verbs", ("food",)),
)
CSV_COLUMNS = (
    "id",
    "pair type",
    "premise_filler_word",
    "hypothesis_filler_word",
    "template_type",
    "premise",
    "hypothesis",
)
_OCCUPATION_COLUMNS = ("premise_filler_word", "occupation")
_GENDER_COLUMNS = ("hypothesis_filler_word", "gender_word")


@dataclass(frozen=True)
class NliWordLists:
    """What the generator needs: occupations, gender words and (verb, object) templates."""

    occupations: tuple[str, ...]
    gender_words: tuple[str, ...]
    verb_objects: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class NliPair:
    """One premise/hypothesis pair and, where known, the words that fill it."""

    id: str
    premise: str
    hypothesis: str
    occupation: str | None = None
    gender_word: str | None = None
    template_type: str = ""


class NliPairsReading(Protocol):
    """The task options the reader reads (`audit.extrinsic.options.NliBiasOptions`)."""

    @property
    def pairs(self) -> str | None: ...
    @property
    def word_lists(self) -> str | None: ...
    @property
    def occupations_file(self) -> str | None: ...
    @property
    def gender_words_file(self) -> str | None: ...
    @property
    def max_premises(self) -> int | None: ...
    @property
    def style(self) -> Style: ...


# --- word lists ---------------------------------------------------------------------------


def nli_word_list_folder(data_dir: Path | str) -> Path:
    """`<data_dir>/nli_bias/word_lists`, or a DataError saying where to get it."""
    folder = Path(data_dir).expanduser() / NLI_FOLDER / WORD_LISTS_FOLDER
    if not folder.is_dir():
        raise DataError(
            f"NLI-bias: the word lists folder {folder} does not exist. The lists of Dev et "
            f"al. 2020 are not shipped (their repository has no licence): copy the folder "
            f"word_lists/ of {REPOSITORY} to <data folder>/{NLI_FOLDER}/{WORD_LISTS_FOLDER}/ and "
            "give the folder with `audit run --data-dir DIR`, or give your own pairs file"
        )
    return folder


def read_word_list(path: Path | str) -> tuple[str, ...]:
    """One entry per line, as the public code reads a list: stripped, blank lines and
    repeats dropped, sorted."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"NLI-bias: word list {path} does not exist; expected one word per line")
    entries = {text for _, text in read_lines(path)}
    if not entries:
        raise DataError(f"NLI-bias: word list {path} is empty; expected one word per line")
    return tuple(sorted(entries))


def load_nli_word_lists(
    folder: Path | str,
    *,
    occupations_file: Path | str | None = None,
    gender_words_file: Path | str | None = None,
) -> NliWordLists:
    """The lists of a folder in the public code's layout (see the module docstring);
    `occupations_file` / `gender_words_file` replace those two lists."""
    root = Path(folder).expanduser()
    people = root / "nouns" / "people"
    objects_dir = root / "nouns" / "objects"
    verbs_dir = root / "verbs"
    occupations = read_word_list(occupations_file or people / "occupations")
    gender_words = read_word_list(gender_words_file or people / "gendered_words")
    if not objects_dir.is_dir():
        raise DataError(
            f"NLI-bias: {objects_dir} does not exist; expected the object lists "
            f"(clothes, food, vehicles, ...) of {SOURCE}"
        )
    object_lists = {p.name: read_word_list(p) for p in sorted(objects_dir.iterdir()) if p.is_file()}
    for needed in ("vehicles", "food"):
        if needed not in object_lists:
            raise DataError(f"NLI-bias: {objects_dir / needed} does not exist")
    verb_objects: list[tuple[str, str]] = []
    for verbs_name, sources in TEMPLATE_PLAN:
        verbs = read_word_list(verbs_dir / verbs_name)
        pool: set[str] = set()
        for source in sources:
            if source == "*objects":
                for entries in object_lists.values():
                    pool.update(entries)
            elif source in object_lists:
                pool.update(object_lists[source])
            else:
                pool.update(read_word_list(people / source))
        verb_objects.extend((v, o) for v in verbs for o in sorted(pool))
    return NliWordLists(
        occupations=occupations, gender_words=gender_words, verb_objects=tuple(verb_objects)
    )


# --- generation -----------------------------------------------------------------------------


def _article(word: str, *, capital: bool) -> str:
    a = "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"
    return (a.capitalize() if capital else a) + " " + word


def _sentence(subject: str, verb: str, obj: str, style: Style) -> str:
    if style == "reference":
        return f"{_article(subject, capital=True)} {verb} {_article(obj, capital=False)} ."
    return f"The {subject} {verb} {_article(obj, capital=False)}."


def pair_id(premise: str, hypothesis: str, pair_type: str = PAIR_TYPE) -> str:
    """The public code's id: sha224 of "<pair type>\\t<premise>\\t<hypothesis>"."""
    return hashlib.sha224(f"{pair_type}\t{premise}\t{hypothesis}".encode()).hexdigest()


def generate_nli_templates(
    word_lists: NliWordLists,
    *,
    style: Style = "paper",
    max_premises: int | None = None,
    seed: int = 0,
) -> list[NliPair]:
    """Every (occupation, gender word, template) pair in the public code's order, or, with
    `max_premises`, a seeded sample of (occupation, template) premises (kept in that order)
    each paired with every gender word."""
    import numpy as np

    occupations = list(dict.fromkeys(w.strip() for w in word_lists.occupations if w.strip()))
    genders = list(dict.fromkeys(w.strip() for w in word_lists.gender_words if w.strip()))
    templates = list(dict.fromkeys(word_lists.verb_objects))
    for what, values in (
        ("occupations", occupations),
        ("gender words", genders),
        ("(verb, object) templates", templates),
    ):
        if not values:
            raise AuditUserError(f"NLI-bias: no {what} to build templates from")
    n_premises = len(occupations) * len(templates)
    keep: set[int] | None = None
    if max_premises is not None:
        if max_premises < 1:
            raise AuditUserError(f"NLI-bias: max_premises must be at least 1 (got {max_premises})")
        if max_premises < n_premises:
            rng = np.random.default_rng(seed)
            keep = set(np.sort(rng.choice(n_premises, size=max_premises, replace=False)).tolist())
    pairs: list[NliPair] = []
    for i, occupation in enumerate(occupations):
        for gender_word in genders:
            for j, (verb, obj) in enumerate(templates):
                if keep is not None and i * len(templates) + j not in keep:
                    continue
                premise = _sentence(occupation, verb, obj, style)
                hypothesis = _sentence(gender_word, verb, obj, style)
                pairs.append(
                    NliPair(
                        id=pair_id(premise, hypothesis),
                        premise=premise,
                        hypothesis=hypothesis,
                        occupation=occupation,
                        gender_word=gender_word,
                        template_type=(f"X1_occupations {verb} Y -> X2_gendered_words {verb} Y"),
                    )
                )
    return pairs


# --- files ----------------------------------------------------------------------------------


def write_nli_pairs(pairs: Sequence[NliPair], path: Path | str) -> Path:
    """Write pairs as the public code's CSV (header + one row per pair)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for p in pairs:
            writer.writerow(
                [
                    p.id,
                    PAIR_TYPE,
                    p.occupation or "",
                    p.gender_word or "",
                    p.template_type,
                    p.premise,
                    p.hypothesis,
                ]
            )
    return path


def _pair_records(path: Path) -> list[tuple[int, Mapping[str, Any]]]:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        table = read_table(path, "\t" if suffix == ".tsv" else ",", blank_rows="skip")
        missing = [c for c in ("premise", "hypothesis") if c not in table.columns]
        if missing:
            raise DataError(
                f"{path}: no {' or '.join(missing)} column (columns: "
                f"{', '.join(table.columns) or 'none'}); expected a header with premise and "
                "hypothesis"
            )
        return [(r.line, r.cells) for r in table.records]
    if suffix == ".jsonl":
        return list(read_jsonl(path, expected="an object with premise and hypothesis"))
    raise DataError(
        f"NLI-bias: {path} has the suffix {path.suffix or '(none)'}; expected .csv, .tsv or .jsonl"
    )


def load_nli_pairs(path: Path | str) -> list[NliPair]:
    """The pairs of a generated (`write_nli_pairs`) or user file: CSV/TSV with a header, or
    JSON Lines, with `premise` and `hypothesis` (see the module docstring). A DataError
    names the file and line of a missing file or column, an empty premise or hypothesis, a
    line that is not a JSON object, or a file with no pair."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(
            f"NLI-bias: pairs file {path} does not exist; generate one from the word lists "
            f"of {SOURCE} (see docs/extrinsic.md) or give a CSV/JSONL file with premise and "
            "hypothesis columns"
        )
    pairs: list[NliPair] = []
    for number, (line, record) in enumerate(_pair_records(path)):
        premise = cell(record, ("premise",))
        hypothesis = cell(record, ("hypothesis",))
        if premise is None or hypothesis is None:
            which = "premise" if premise is None else "hypothesis"
            raise DataError(f"{path}:{line}: the {which} is missing or empty")
        pairs.append(
            NliPair(
                id=cell(record, ("id",)) or str(number),
                premise=premise,
                hypothesis=hypothesis,
                occupation=cell(record, _OCCUPATION_COLUMNS),
                gender_word=cell(record, _GENDER_COLUMNS),
                template_type=cell(record, ("template_type",)) or "",
            )
        )
    if not pairs:
        raise DataError(f"{path}: no pairs")
    return pairs


def read_nli_bias_pairs(data_dir: Path, options: NliPairsReading, seed: int) -> TaskSplits:
    """The pairs file (`options.pairs`), else the pairs generated from the word lists, as
    the "test" split."""
    if options.pairs:
        path = in_folder(data_dir, options.pairs)
        return TaskSplits(ENTRY.name, {"test": load_nli_pairs(path)}, {"test": path})
    folder = (
        in_folder(data_dir, options.word_lists)
        if options.word_lists
        else nli_word_list_folder(data_dir)
    )
    lists = load_nli_word_lists(
        folder,
        occupations_file=options.occupations_file and in_folder(data_dir, options.occupations_file),
        gender_words_file=options.gender_words_file
        and in_folder(data_dir, options.gender_words_file),
    )
    pairs = generate_nli_templates(
        lists, style=options.style, max_premises=options.max_premises, seed=seed
    )
    return TaskSplits(ENTRY.name, {"test": pairs}, {"word_lists": folder})


ENTRY = TaskDatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="nli_bias",
        title="NLI-bias pairs",
        summary="Gender-occupation premise/hypothesis pairs generated from Dev et al.'s word "
        "lists (not shipped: no licence) or read from a pairs file.",
        shape=TASK_DATASET_SHAPE,
        citation="Dev et al. 2020",
    ),
    options=NoSpecOptions,
    target="audit.data.tasks.nli_bias:read_nli_bias_pairs",
    folder=NLI_FOLDER,
    files=(f"{WORD_LISTS_FOLDER}/", "<pairs file>.{csv,tsv,jsonl}"),
    splits=("test",),
    rows="a premise naming an occupation, a hypothesis naming a gender word",
    shipped=False,
    size="1,936,512 pairs from the public word lists (a seeded sample with max_premises)",
    source=SOURCE,
    licence="none (the word lists cannot be redistributed)",
)
