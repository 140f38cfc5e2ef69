"""BiasBios (De-Arteaga et al. 2019): the loaders of its public release formats and the TPR
gap of an occupation classifier (METHODS.md section 6).

**The data is not shipped.** It is the user's own copy, in `<data_dir>/biasbios/`:

- `BIOS.pkl`, built with the Microsoft biosbias repository
  (https://github.com/microsoft/biosbias, MIT): `./recreate.sh` downloads Common Crawl
  archives, extracts the bios and writes a pickled list of dicts with "raw" (the whole
  bio), "start_pos" (where the text after the first sentence starts), "title" (the
  normalised occupation, e.g. "nurse"), "gender" ("F"/"M"), "bio" (a scrubbed copy without
  names and pronouns), "name", "raw_title", "URI", "path". The task is to predict
  `title` from `raw[start_pos:]`, the text without the first sentence (which names the
  title).
- The split pickles of Ravfogel et al. 2020 (`bios_train.pickle`, `bios_dev.pickle`,
  `bios_test.pickle`): lists of dicts with "g" ("f"/"m"), "p" (title), "text", "start",
  "hard_text" (the text after the first sentence, tokenized) and
  "hard_text_untokenized".
- Exports of either as JSON Lines (`.jsonl`, one object per line), JSON (`.json`, a list
  of objects), CSV/TSV with a header row, or Parquet (e.g. the Hugging Face
  LabHC/bias_in_bios files, columns hard_text, profession, gender as integer codes).

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

**TPR gap.** For an occupation y with female bios F_y and male bios M_y,
TPR_{y,g} = share of the bios of gender g and true title y whose predicted title is y, and
gap_y = TPR_{y,female} - TPR_{y,male} (De-Arteaga et al. 2019); > 0 means the classifier
recognises the women of that occupation more often than the men. An occupation needs
at least `min_per_gender` bios of each gender for a gap. Over the occupations with a
gap: `mean_abs` = mean |gap_y| (the default headline: the size of the gaps, whatever
their sign), `rms` = sqrt(mean gap_y^2) (GAP^RMS, Romanov et al. 2019, as later BiasBios
work reports it), `mean` = mean gap_y (signed; gaps of opposite sign cancel, so it is not
a size). The bootstrap resamples bios within each (title, gender) cell, so every cell
keeps its size: a cell's resampled correct count is then Binomial(n, k/n), drawn
directly. The correlation, across occupations, of gap_y with the share of women among
the occupation's bios is the paper's Figure 2 statistic.
"""

from __future__ import annotations

import csv
import json
import math
import pickle
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from audit.errors import AuditUserError, DataError
from audit.extrinsic.sts_bias import correlate_with_share
from audit.results import TprGapOccupation, TprGapResult
from audit.stats.intervals import MIN_ITEMS_FOR_INTERVAL, bootstrap_interval

Gender = Literal["female", "male"]
Aggregate = Literal["mean_abs", "rms", "mean"]
BIASBIOS_FOLDER = "biasbios"
SUFFIXES = (".pkl", ".pickle", ".jsonl", ".json", ".csv", ".tsv", ".parquet")
SPLIT_NAMES = ("train", "dev", "test")
TEXT_FIELDS = ("hard_text_untokenized", "hard_text", "text", "bio")
TITLE_FIELDS = ("title", "profession", "p", "occupation", "label")
GENDER_FIELDS = ("gender", "g")
_GENDER_WORDS: dict[str, Gender] = {
    "f": "female",
    "female": "female",
    "woman": "female",
    "w": "female",
    "m": "male",
    "male": "male",
    "man": "male",
}
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


# --- reading records ----------------------------------------------------------------------


class _DataOnlyUnpickler(pickle.Unpickler):
    """Refuses every class: only built-in containers, strings and numbers load."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name}")


def _read_pickle(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return _DataOnlyUnpickler(handle).load()
    except pickle.UnpicklingError as exc:
        raise DataError(
            f"{path}: the pickle holds a Python object of class {exc} (or is not a pickle); "
            "only lists/dicts of strings and numbers are read from a pickle, so no code in "
            "a data file ever runs. Export the bios to JSON Lines (one object per line with "
            "text, title and gender) and read that instead"
        ) from None
    except (EOFError, ValueError, IndexError, KeyError) as exc:
        raise DataError(f"{path}: not a readable pickle ({exc})") from None


def _records(path: Path) -> Iterator[Mapping[str, Any]]:
    suffix = path.suffix.lower()
    if suffix in (".pkl", ".pickle"):
        data = _read_pickle(path)
        if not isinstance(data, list | tuple):
            raise DataError(
                f"{path}: the pickle holds a {type(data).__name__}, expected a list of bio "
                "records (dicts), as biosbias' BIOS.pkl"
            )
        yield from _mappings(path, data)
    elif suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for line, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}:{line}: not valid JSON ({exc.msg})") from None
                if not isinstance(record, dict):
                    raise DataError(
                        f"{path}:{line}: a JSON {type(record).__name__}, expected an object "
                        "with text, title and gender"
                    )
                yield record
    elif suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        if not isinstance(data, list):
            raise DataError(f"{path}: expected a JSON list of bio objects")
        yield from _mappings(path, data)
    elif suffix in (".csv", ".tsv"):
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t" if suffix == ".tsv" else ",")
            if not reader.fieldnames:
                raise DataError(f"{path}: empty file; expected a header row")
            for record in reader:
                if None in record:
                    raise DataError(
                        f"{path}:{reader.line_num}: more cells than the header has columns"
                    )
                yield record
    elif suffix == ".parquet":
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises its own error types
            raise DataError(f"{path}: not a readable Parquet file ({exc})") from None
        for record in frame.to_dict(orient="records"):
            yield {str(k): v for k, v in record.items()}
    else:
        raise DataError(
            f"BiasBios: {path} has the suffix {path.suffix or '(none)'}; expected one of "
            f"{', '.join(SUFFIXES)}"
        )


def _mappings(path: Path, data: Sequence[Any]) -> Iterator[Mapping[str, Any]]:
    for number, record in enumerate(data):
        if not isinstance(record, dict):
            raise DataError(
                f"{path}: record {number} is a {type(record).__name__}, expected a dict with "
                "text, title and gender"
            )
        yield record


def _first(record: Mapping[str, Any], names: Sequence[str]) -> str | None:
    return next((n for n in names if n in record and not _missing(record[n])), None)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_code(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | np.integer):
        return True
    return isinstance(value, str) and value.strip().lstrip("-").isdigit()


def _gender(value: Any, codes: Mapping[str, str] | None, where: str) -> Gender:
    if codes is not None and str(value).strip() in codes:
        mapped = str(codes[str(value).strip()]).strip().lower()
        if mapped in _GENDER_WORDS:
            return _GENDER_WORDS[mapped]
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
    if word in _GENDER_WORDS:
        return _GENDER_WORDS[word]
    raise DataError(
        f"{where}: gender {value!r} is not one of F, M, female, male, woman, man (any case)"
        + (f" nor a key of gender_codes ({', '.join(codes)})" if codes else "")
    )


def _text(
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
        raise DataError(
            f"{where}: no text field: expected raw + start_pos (biosbias) or one of "
            f"{', '.join(TEXT_FIELDS)}, or name it with text_field (fields: {keys})"
        )
    return str(record[name]).strip()


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

    A DataError (an AuditUserError) names the file and record of: a missing file (with
    what to download and where to put it), an unknown suffix, a record without a text,
    title or gender field, an empty text or title, a gender that is neither female nor
    male (integer codes need `gender_codes`), a file with no bio.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise DataError(f"BiasBios: {path} does not exist. {DOWNLOAD_HINT}")
    codes = {str(k).strip(): str(v) for k, v in gender_codes.items()} if gender_codes else None
    bios: list[Bio] = []
    try:
        for number, record in enumerate(_records(path)):
            where = f"{path}: record {number}"
            keys = ", ".join(sorted(map(str, record))) or "none"
            title_name = title_field or _first(record, TITLE_FIELDS)
            if title_name is None or title_name not in record or _missing(record[title_name]):
                wanted = repr(title_field) if title_field else "one of " + ", ".join(TITLE_FIELDS)
                raise DataError(f"{where}: no title field ({wanted}; fields: {keys})")
            gender_name = gender_field or _first(record, GENDER_FIELDS)
            if gender_name is None or gender_name not in record or _missing(record[gender_name]):
                wanted = (
                    repr(gender_field) if gender_field else "one of " + ", ".join(GENDER_FIELDS)
                )
                raise DataError(f"{where}: no gender field ({wanted}; fields: {keys})")
            body = _text(record, text_field, text, where)
            title = str(record[title_name]).strip()
            if not body:
                raise DataError(f"{where}: the text is empty")
            if not title:
                raise DataError(f"{where}: the title ({title_name}) is empty")
            gender = _gender(record[gender_name], codes, where)
            bios.append(Bio(text=body, title=title, gender=gender, index=number))
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not readable as CSV ({exc})") from None
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


# --- the measure ------------------------------------------------------------------------


def _aggregates(gaps: np.ndarray) -> dict[str, np.ndarray]:
    """mean_abs, rms and mean over the last axis (occupations)."""
    return {
        "mean_abs": np.abs(gaps).mean(axis=-1),
        "rms": np.sqrt((gaps**2).mean(axis=-1)),
        "mean": gaps.mean(axis=-1),
    }


def tpr_gap(
    y_true: Sequence[Any],
    y_pred: Sequence[Any],
    gender: Sequence[str],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    aggregate: Aggregate = "mean_abs",
    min_per_gender: int = 1,
) -> TprGapResult:
    """The TPR gap per occupation and its summaries over occupations (see the module
    docstring). Titles compare as strings; `gender` holds "female"/"male".

    CIs: percentile bootstrap within (title, gender) cells (`n_bootstrap` resamples from
    `seed`; 0 = none); an occupation's own gap interval is withheld below 10 bios of either
    gender, a summary's below 10 bios in all.
    """
    n = len(y_true)
    if len(y_pred) != n or len(gender) != n:
        raise ValueError(
            f"TPR gap: y_true, y_pred and gender differ in length ({n}, {len(y_pred)}, "
            f"{len(gender)})"
        )
    if n == 0:
        raise AuditUserError("TPR gap: no bios to score")
    if min_per_gender < 1:
        raise ValueError(f"min_per_gender must be >= 1 (got {min_per_gender})")
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0 (got {n_bootstrap})")
    bad = sorted({str(g) for g in gender} - {"female", "male"})
    if bad:
        raise AuditUserError(f"TPR gap: gender {', '.join(bad)}; expected female or male")
    truth = np.array([str(y) for y in y_true], dtype=object)
    correct = np.array([str(p) == t for p, t in zip(y_pred, truth, strict=True)])
    is_female = np.array([g == "female" for g in gender])

    titles = sorted(set(truth.tolist()))
    n_f = np.array([int(((truth == y) & is_female).sum()) for y in titles])
    n_m = np.array([int(((truth == y) & ~is_female).sum()) for y in titles])
    k_f = np.array([int(((truth == y) & is_female & correct).sum()) for y in titles])
    k_m = np.array([int(((truth == y) & ~is_female & correct).sum()) for y in titles])
    defined = (n_f >= min_per_gender) & (n_m >= min_per_gender)

    with np.errstate(invalid="ignore", divide="ignore"):
        tpr_f = np.where(n_f > 0, k_f / np.maximum(n_f, 1), np.nan)
        tpr_m = np.where(n_m > 0, k_m / np.maximum(n_m, 1), np.nan)
    gaps = tpr_f - tpr_m

    replicates: np.ndarray | None = None
    if n_bootstrap > 0:
        rng = np.random.default_rng(seed)
        rep_f = rng.binomial(
            n_f, np.where(n_f > 0, k_f / np.maximum(n_f, 1), 0.0), (n_bootstrap, len(titles))
        )
        rep_m = rng.binomial(
            n_m, np.where(n_m > 0, k_m / np.maximum(n_m, 1), 0.0), (n_bootstrap, len(titles))
        )
        replicates = rep_f / np.maximum(n_f, 1) - rep_m / np.maximum(n_m, 1)

    rows: list[TprGapOccupation] = []
    for j, title in enumerate(titles):
        low = high = None
        note = ""
        if not defined[j]:
            note = (
                f"no gap: {n_f[j]} female and {n_m[j]} male bio(s), need at least "
                f"{min_per_gender} of each"
            )
        elif replicates is not None:
            interval = bootstrap_interval(
                replicates[:, j],
                alpha=alpha,
                n_items=int(min(n_f[j], n_m[j])),
                counted="bios of the smaller gender",
            )
            low, high, note = interval.low, interval.high, interval.note
        rows.append(
            TprGapOccupation(
                occupation=title,
                n_female=int(n_f[j]),
                n_male=int(n_m[j]),
                tpr_female=_maybe(tpr_f[j]),
                tpr_male=_maybe(tpr_m[j]),
                gap=_maybe(gaps[j]) if defined[j] else None,
                gap_ci_low=low,
                gap_ci_high=high,
                pct_female=100.0 * n_f[j] / (n_f[j] + n_m[j]),
                note=note,
            )
        )

    summary: dict[str, tuple[float | None, float | None, float | None, str]] = {
        name: (None, None, None, "no occupation has bios of both genders")
        for name in ("mean_abs", "rms", "mean")
    }
    n_used = int((n_f + n_m)[defined].sum())
    if defined.any():
        point = _aggregates(gaps[defined])
        boot = _aggregates(replicates[:, defined]) if replicates is not None else None
        for name, estimate in point.items():
            low = high = None
            note = ""
            if boot is not None:
                interval = bootstrap_interval(
                    boot[name],
                    alpha=alpha,
                    n_items=n_used,
                    need=MIN_ITEMS_FOR_INTERVAL,
                    counted="bios",
                )
                low, high, note = interval.low, interval.high, interval.note
            summary[name] = (float(estimate), low, high, note)
    value, ci_low, ci_high, note = summary[aggregate]
    left_out = int((~defined).sum())
    if left_out and defined.any():
        extra = f"{left_out} occupation(s) without bios of both genders left out"
        note = f"{note}; {extra}" if note else extra
    correlation = correlate_with_share(
        {r.occupation: r.gap for r in rows},
        {r.occupation: r.pct_female for r in rows},
        x="TPR gap (female - male)",
        source="share of women among the occupation's bios in the data",
    )
    return TprGapResult(
        aggregate=aggregate,
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        note=note,
        mean_abs_gap=summary["mean_abs"][0],
        mean_abs_ci_low=summary["mean_abs"][1],
        mean_abs_ci_high=summary["mean_abs"][2],
        rms_gap=summary["rms"][0],
        rms_ci_low=summary["rms"][1],
        rms_ci_high=summary["rms"][2],
        mean_gap=summary["mean"][0],
        mean_ci_low=summary["mean"][1],
        mean_ci_high=summary["mean"][2],
        accuracy=float(correct.mean()),
        n_bios=n,
        n_occupations=len(titles),
        n_defined=int(defined.sum()),
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        occupations=rows,
        correlation=correlation,
    )


def _maybe(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def tpr_gap_of_bios(
    bios: Sequence[Bio],
    y_pred: Sequence[Any],
    *,
    seed: int,
    n_bootstrap: int,
    alpha: float = 0.05,
    aggregate: Aggregate = "mean_abs",
    min_per_gender: int = 1,
) -> TprGapResult:
    """`tpr_gap` of predictions for `bios` (true titles and genders from the bios)."""
    return tpr_gap(
        [b.title for b in bios],
        y_pred,
        [b.gender for b in bios],
        seed=seed,
        n_bootstrap=n_bootstrap,
        alpha=alpha,
        aggregate=aggregate,
        min_per_gender=min_per_gender,
    )
