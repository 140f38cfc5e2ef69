"""NLI-bias (Dev et al. 2020, "On Measuring and Mitigating Biased Inferences of Word
Embeddings"; METHODS.md section 6): the gender-occupation template generator, the loader
of generated or user pair files, and the scores over an NLI model's probabilities.

**Templates.** A premise names an occupation, the hypothesis a gender word, and both share
the verb and object: "The accountant bought a bagel." / "The woman bought a bagel." An
unbiased model calls every such pair neutral. The (verb, object) combinations follow the
public code (sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings,
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
`gender_word`/`hypothesis_filler_word`).

**Scores** (Dev et al. 2020), from P(entailment), P(neutral), P(contradiction) per pair:
net neutral NN = mean P(neutral); fraction neutral FN = share of pairs whose most probable
label is neutral (a tie goes to the first label in `labels` order); threshold:tau = share
with P(neutral) > tau (default tau 0.5 and 0.7). Each overall, per gender (female/male,
for the gender words whose gender is known) and per gender word. The headline value is
FN over all pairs (ideal 1: every pair neutral). `aggregate="word_pair"` first averages
the three probabilities per (occupation, gender word) and scores the averages, as the
public `evaluation.py` does. CIs: percentile bootstrap resampling premises (the pairs of
one premise, one per gender word, move together); under `word_pair`, resampling
occupations.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from audit.errors import AuditUserError, DataError
from audit.extrinsic.sts_bias import cluster_bootstrap_means
from audit.results import NliBiasGroup, NliBiasResult, ThresholdShare
from audit.stats.intervals import bootstrap_interval

Style = Literal["paper", "reference"]
Aggregate = Literal["instance", "word_pair"]
Gender = Literal["female", "male"]

NLI_FOLDER = "nli_bias"
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
LABELS = ("entailment", "neutral", "contradiction")
_LABEL_NAMES = {
    "entailment": "entailment",
    "entail": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
}
#: The gender of common gender words (the public list: man, gentleman, guy, woman, lady,
#: girl), for the per-gender rows; other words get per-word rows only.
DEFAULT_GENDER_OF: Mapping[str, Gender] = {
    "man": "male",
    "gentleman": "male",
    "guy": "male",
    "boy": "male",
    "male": "male",
    "woman": "female",
    "lady": "female",
    "girl": "female",
    "gal": "female",
    "female": "female",
}
DEFAULT_THRESHOLDS = (0.5, 0.7)
_ROW_SUM_TOLERANCE = 1e-3


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
    try:
        entries = {line.strip() for line in path.read_text(encoding="utf-8").splitlines()}
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    entries.discard("")
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
    chosen: np.ndarray | None = None
    if max_premises is not None:
        if max_premises < 1:
            raise AuditUserError(f"NLI-bias: max_premises must be at least 1 (got {max_premises})")
        if max_premises < n_premises:
            rng = np.random.default_rng(seed)
            chosen = np.sort(rng.choice(n_premises, size=max_premises, replace=False))
    keep = set(chosen.tolist()) if chosen is not None else None
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


CSV_COLUMNS = (
    "id",
    "pair type",
    "premise_filler_word",
    "hypothesis_filler_word",
    "template_type",
    "premise",
    "hypothesis",
)


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


# --- loading ------------------------------------------------------------------------------

_OCCUPATION_COLUMNS = ("premise_filler_word", "occupation")
_GENDER_COLUMNS = ("hypothesis_filler_word", "gender_word")


def _cell(record: Mapping[str, Any], names: Sequence[str]) -> str | None:
    for name in names:
        value = record.get(name)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


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
    suffix = path.suffix.lower()
    records: list[tuple[int, Mapping[str, Any]]] = []
    try:
        if suffix in (".csv", ".tsv"):
            with path.open(encoding="utf-8", newline="") as handle:
                reader = csv.DictReader(handle, delimiter="\t" if suffix == ".tsv" else ",")
                columns = reader.fieldnames or []
                missing = [c for c in ("premise", "hypothesis") if c not in columns]
                if missing:
                    raise DataError(
                        f"{path}: no {' or '.join(missing)} column (columns: "
                        f"{', '.join(columns) or 'none'}); expected a header with premise and "
                        "hypothesis"
                    )
                for row in reader:
                    records.append((reader.line_num, row))
        elif suffix == ".jsonl":
            with path.open(encoding="utf-8") as handle:
                for line, text in enumerate(handle, start=1):
                    if not text.strip():
                        continue
                    try:
                        obj = json.loads(text)
                    except json.JSONDecodeError as exc:
                        raise DataError(f"{path}:{line}: not valid JSON ({exc.msg})") from None
                    if not isinstance(obj, dict):
                        raise DataError(
                            f"{path}:{line}: a JSON {type(obj).__name__}, expected an object "
                            "with premise and hypothesis"
                        )
                    records.append((line, obj))
        else:
            raise DataError(
                f"NLI-bias: {path} has the suffix {path.suffix or '(none)'}; expected .csv, "
                ".tsv or .jsonl"
            )
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not readable as CSV ({exc})") from None
    pairs: list[NliPair] = []
    for number, (line, record) in enumerate(records):
        premise = _cell(record, ("premise",))
        hypothesis = _cell(record, ("hypothesis",))
        if premise is None or hypothesis is None:
            which = "premise" if premise is None else "hypothesis"
            raise DataError(f"{path}:{line}: the {which} is missing or empty")
        pairs.append(
            NliPair(
                id=_cell(record, ("id",)) or str(number),
                premise=premise,
                hypothesis=hypothesis,
                occupation=_cell(record, _OCCUPATION_COLUMNS),
                gender_word=_cell(record, _GENDER_COLUMNS),
                template_type=_cell(record, ("template_type",)) or "",
            )
        )
    if not pairs:
        raise DataError(f"{path}: no pairs")
    return pairs


# --- scores -------------------------------------------------------------------------------


def _label_order(labels: Sequence[str]) -> tuple[int, int, int]:
    names = [_LABEL_NAMES.get(str(label).strip().lower()) for label in labels]
    if len(names) != 3 or None in names or len(set(names)) != 3:
        raise AuditUserError(
            f"NLI-bias: labels {list(labels)}; expected the three NLI labels entailment, "
            "neutral and contradiction in the order of the probability columns"
        )
    return (names.index("entailment"), names.index("neutral"), names.index("contradiction"))


def _check_probs(probs: Any, n: int) -> np.ndarray:
    array = np.asarray(probs, dtype=np.float64)
    if array.shape != (n, 3):
        raise ValueError(f"NLI-bias: probabilities have shape {array.shape}, expected ({n}, 3)")
    if not np.isfinite(array).all():
        raise AuditUserError("NLI-bias: the model gave non-finite probabilities")
    sums = array.sum(axis=1)
    if (array < 0).any() or np.abs(sums - 1).max(initial=0.0) > _ROW_SUM_TOLERANCE:
        raise AuditUserError(
            "NLI-bias: each row must hold three probabilities summing to 1 (softmax the "
            f"logits first); row sums range from {sums.min():.4g} to {sums.max():.4g}"
        )
    return array


@dataclass(frozen=True)
class _Rows:
    neutral: np.ndarray  # P(neutral)
    entail: np.ndarray
    contra: np.ndarray
    is_neutral: np.ndarray  # argmax is neutral
    cluster: np.ndarray  # resampling unit codes
    word: list[str | None]


def _rows(
    probs: np.ndarray, order: tuple[int, int, int], pairs: Sequence[NliPair], aggregate: Aggregate
) -> _Rows:
    e, n, c = order
    if aggregate == "instance":
        codes: dict[str, int] = {}
        cluster = np.array([codes.setdefault(p.premise, len(codes)) for p in pairs])
        neutral_col = probs[:, n]
        best = probs.argmax(axis=1)
        return _Rows(
            neutral=neutral_col,
            entail=probs[:, e],
            contra=probs[:, c],
            is_neutral=best == n,
            cluster=cluster,
            word=[p.gender_word for p in pairs],
        )
    missing = sum(1 for p in pairs if p.occupation is None or p.gender_word is None)
    if missing:
        raise AuditUserError(
            f"NLI-bias: aggregate 'word_pair' needs each pair's occupation and gender word; "
            f"{missing} pair(s) lack them (a pairs file with premise_filler_word and "
            "hypothesis_filler_word columns has them)"
        )
    groups: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault((str(p.occupation), str(p.gender_word)), []).append(i)
    keys = list(groups)
    means = np.array([probs[groups[k]].mean(axis=0) for k in keys])
    occupation_codes: dict[str, int] = {}
    cluster = np.array([occupation_codes.setdefault(k[0], len(occupation_codes)) for k in keys])
    return _Rows(
        neutral=means[:, n],
        entail=means[:, e],
        contra=means[:, c],
        is_neutral=means.argmax(axis=1) == n,
        cluster=cluster,
        word=[k[1] for k in keys],
    )


def _group(
    rows: _Rows,
    mask: np.ndarray,
    *,
    name: str,
    kind: Literal["all", "gender", "word"],
    thresholds: Sequence[float],
    seed: int,
    n_bootstrap: int,
    alpha: float,
) -> NliBiasGroup:
    neutral = rows.neutral[mask]
    columns = [neutral, rows.is_neutral[mask].astype(np.float64)]
    columns += [(neutral > tau).astype(np.float64) for tau in thresholds]
    table = np.column_stack(columns)
    point = table.mean(axis=0)
    _, cluster = np.unique(rows.cluster[mask], return_inverse=True)
    n_clusters = int(cluster.max()) + 1
    lows: list[float | None] = [None] * table.shape[1]
    highs: list[float | None] = [None] * table.shape[1]
    note = ""
    if n_bootstrap > 0:
        sums = np.column_stack(
            [
                np.bincount(cluster, weights=table[:, k], minlength=n_clusters)
                for k in range(table.shape[1])
            ]
        )
        counts = np.bincount(cluster, minlength=n_clusters).astype(np.float64)
        replicates = cluster_bootstrap_means(sums, counts, n_bootstrap=n_bootstrap, seed=seed)
        notes: list[str] = []
        for k in range(table.shape[1]):
            interval = bootstrap_interval(
                replicates[:, k], alpha=alpha, n_items=n_clusters, counted="resampled units"
            )
            lows[k], highs[k] = interval.low, interval.high
            if interval.note and interval.note not in notes:
                notes.append(interval.note)
        note = "; ".join(notes)
    return NliBiasGroup(
        group=name,
        kind=kind,
        n=int(mask.sum()),
        net_neutral=float(point[0]),
        net_neutral_ci_low=lows[0],
        net_neutral_ci_high=highs[0],
        fraction_neutral=float(point[1]),
        fraction_neutral_ci_low=lows[1],
        fraction_neutral_ci_high=highs[1],
        net_entailment=float(rows.entail[mask].mean()),
        net_contradiction=float(rows.contra[mask].mean()),
        thresholds=[
            ThresholdShare(
                tau=tau, value=float(point[2 + i]), ci_low=lows[2 + i], ci_high=highs[2 + i]
            )
            for i, tau in enumerate(thresholds)
        ],
        note=note,
    )


def nli_bias_scores(
    probs: Any,
    labels: Sequence[str],
    pairs: Sequence[NliPair],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    aggregate: Aggregate = "instance",
    gender_of: Mapping[str, Gender] | None = None,
) -> NliBiasResult:
    """NN, FN and threshold:tau overall, per gender and per gender word (see the module
    docstring) from `probs` (n x 3, rows summing to 1, columns in `labels` order) for
    `pairs[i]`. `gender_of` maps gender words (lower case) to female/male (default: the
    common words of `DEFAULT_GENDER_OF`)."""
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0 (got {n_bootstrap})")
    if not pairs:
        raise AuditUserError("NLI-bias: no pairs to score")
    for tau in thresholds:
        if not 0 <= tau < 1 or not math.isfinite(tau):
            raise AuditUserError(f"NLI-bias: threshold {tau} must be in [0, 1)")
    order = _label_order(labels)
    array = _check_probs(probs, len(pairs))
    rows = _rows(array, order, pairs, aggregate)
    genders = DEFAULT_GENDER_OF if gender_of is None else gender_of
    taus = list(dict.fromkeys(float(t) for t in thresholds))

    def group(mask: np.ndarray, name: str, kind: Literal["all", "gender", "word"]) -> NliBiasGroup:
        return _group(
            rows,
            mask,
            name=name,
            kind=kind,
            thresholds=taus,
            seed=seed,
            n_bootstrap=n_bootstrap,
            alpha=alpha,
        )

    groups = [group(np.ones(len(rows.word), dtype=bool), "all", "all")]
    word_gender = [genders.get(w.lower()) if w else None for w in rows.word]
    for gender in ("female", "male"):
        mask = np.array([g == gender for g in word_gender])
        if mask.any():
            groups.append(group(mask, gender, "gender"))
    for word in sorted({w for w in rows.word if w}):
        groups.append(group(np.array([w == word for w in rows.word]), word, "word"))
    head = groups[0]
    unknown = sorted({w for w, g in zip(rows.word, word_gender, strict=True) if w and g is None})
    notes = [head.note] if head.note else []
    if unknown:
        notes.append(f"gender word(s) of unknown gender, in no gender row: {', '.join(unknown)}")
    if all(w is None for w in rows.word):
        notes.append("the pairs name no gender word: only the overall row")
    return NliBiasResult(
        value=head.fraction_neutral,
        ci_low=head.fraction_neutral_ci_low,
        ci_high=head.fraction_neutral_ci_high,
        note="; ".join(notes),
        aggregate=aggregate,
        labels=[str(label) for label in labels],
        n_pairs=len(pairs),
        n_premises=len({p.premise for p in pairs}),
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        groups=groups,
    )


# --- training data (MultiNLI / SNLI) ------------------------------------------------------

NliLabel = Literal["entailment", "neutral", "contradiction"]
TRAINING_HINT = (
    "NLI-bias fine-tunes on an NLI training set, which is not shipped: download MultiNLI "
    "(https://cims.nyu.edu/~sbowman/multinli/, multinli_1.0.zip: multinli_1.0_train.jsonl) "
    "or SNLI (https://nlp.stanford.edu/projects/snli/, snli_1.0.zip: "
    f"snli_1.0_train.jsonl), put the file in <data folder>/{NLI_FOLDER}/ and give the "
    "folder with `audit run --data-dir DIR`"
)
#: Training files looked for in `<data_dir>/nli_bias/`, in this order.
TRAINING_FILES = ("multinli_1.0_train.jsonl", "snli_1.0_train.jsonl", "train.jsonl", "train.tsv")


@dataclass(frozen=True)
class NliExample:
    """One labelled NLI training pair."""

    premise: str
    hypothesis: str
    label: NliLabel


def find_nli_training_file(data_dir: Path | str, *, file: str | None = None) -> Path:
    """`file` (relative to `<data_dir>/nli_bias/` unless absolute), else the first of
    `TRAINING_FILES` there; a DataError saying what to download and where to put it."""
    folder = Path(data_dir).expanduser() / NLI_FOLDER
    if file is not None:
        path = Path(file).expanduser()
        path = path if path.is_absolute() else folder / path
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


def _nli_label(value: Any, where: str) -> NliLabel | None:
    text = str(value).strip().lower()
    if text in ("-", ""):
        return None  # no gold label (annotators disagreed): left out, as usual
    name = _LABEL_NAMES.get(text)
    if name == "entailment":
        return "entailment"
    if name == "neutral":
        return "neutral"
    if name == "contradiction":
        return "contradiction"
    raise DataError(
        f"{where}: label {value!r} is not entailment, neutral or contradiction (integer "
        "codes are not guessed: export the label names)"
    )


def load_nli_training(path: Path | str) -> list[NliExample]:
    """Labelled pairs of the official MultiNLI/SNLI JSON Lines files (sentence1, sentence2,
    gold_label), the GLUE MNLI/SNLI TSV files (header with sentence1, sentence2,
    gold_label; no quoting), or a CSV/JSONL file with premise, hypothesis, label. Pairs
    without a gold label ("-") are left out. A DataError names the file and line of a
    missing file (with what to download), a missing column or sentence, an unknown label,
    or a file with no labelled pair."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"NLI-bias: {path} does not exist. {TRAINING_HINT}")
    suffix = path.suffix.lower()
    rows: list[tuple[int, Mapping[str, Any]]] = []
    try:
        if suffix == ".jsonl":
            with path.open(encoding="utf-8") as handle:
                for line, text in enumerate(handle, start=1):
                    if not text.strip():
                        continue
                    try:
                        obj = json.loads(text)
                    except json.JSONDecodeError as exc:
                        raise DataError(f"{path}:{line}: not valid JSON ({exc.msg})") from None
                    if not isinstance(obj, dict):
                        raise DataError(f"{path}:{line}: expected a JSON object")
                    rows.append((line, obj))
        elif suffix in (".tsv", ".csv"):
            with path.open(encoding="utf-8", newline="") as handle:
                reader = (
                    csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
                    if suffix == ".tsv"
                    else csv.DictReader(handle)
                )
                for cells in reader:
                    rows.append((reader.line_num, cells))
        else:
            raise DataError(
                f"NLI-bias: {path} has the suffix {path.suffix or '(none)'}; expected .jsonl, "
                ".tsv or .csv"
            )
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not readable as CSV ({exc})") from None
    out: list[NliExample] = []
    for line, row in rows:
        where = f"{path}:{line}"
        premise = _cell(row, ("sentence1", "premise"))
        hypothesis = _cell(row, ("sentence2", "hypothesis"))
        raw_label = next((row[k] for k in ("gold_label", "label") if k in row), None)
        if raw_label is None:
            keys = ", ".join(sorted(map(str, row))) or "none"
            raise DataError(f"{where}: no gold_label or label (fields: {keys})")
        label = _nli_label(raw_label, where)
        if label is None:
            continue
        if premise is None or hypothesis is None:
            which = "sentence1/premise" if premise is None else "sentence2/hypothesis"
            raise DataError(f"{where}: the {which} is missing or empty")
        out.append(NliExample(premise=premise, hypothesis=hypothesis, label=label))
    if not out:
        raise DataError(f"{path}: no labelled pair")
    return out
