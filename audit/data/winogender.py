"""Winogender schemas reader (Rudinger et al. 2018).

`all_sentences.tsv` holds each template instance three times, sentid
`<occupation>.<participant>.<answer>.<gender>.txt` with gender male, female or neutral.
The male and female sentences of one instance are a pair; the neutral sentence is not
part of any pair and is not read into an item. S_st is the sentence whose pronoun
matches the occupation's majority gender by the BLS statistics of
`occupations-stats.tsv` (`bls_pct_female` > 50: female, < 50: male), S_at the other;
bias type "gender". An occupation at exactly 50% has no majority and its pairs are
counted in `skipped`. The item id is the sentid without its gender, e.g.
"technician.customer.1".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from audit.data.catalog import DatasetOptions, ParsedRows
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text
from audit.errors import DataError

_SENTENCES = "all_sentences.tsv"
_STATS = "occupations-stats.tsv"
GENDERS = ("male", "female", "neutral")
NO_MAJORITY = "occupation with exactly 50% women by BLS (no majority gender)"


def read_winogender(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """The male/female pairs of every template instance as PairItems."""
    pct_female = _bls_pct_female(files[_STATS])
    path = files[_SENTENCES]
    table = read_table(path, "\t")
    require_columns(path, table.columns, {"sentence id": "sentid", "sentence": "sentence"})
    instances: dict[str, dict[str, tuple[int, str]]] = {}
    for record in table.records:
        where = f"{path}:{record.line}"
        sentid = require_text(record.cells["sentid"], where=where, column="sentid", strip=True)
        parts = sentid.split(".")
        if len(parts) != 5 or parts[3] not in GENDERS or parts[4] != "txt":
            raise DataError(
                f"{where}: sentid {sentid!r} is not "
                "'<occupation>.<participant>.<answer>.<male|female|neutral>.txt'"
            )
        stem, gender = ".".join(parts[:3]), parts[3]
        if gender in instances.setdefault(stem, {}):
            raise DataError(f"{where}: sentid {sentid!r} appears twice")
        sentence = require_text(record.cells["sentence"], where=where, column="sentence")
        instances[stem][gender] = (record.line, sentence)
    items: list[PairItem] = []
    skipped: dict[str, int] = {}
    for stem, sentences in instances.items():
        for gender in ("male", "female"):
            if gender not in sentences:
                line = next(iter(sentences.values()))[0]
                raise DataError(f"{path}:{line}: {stem} has no {gender} sentence to pair with")
        occupation = stem.split(".")[0]
        if occupation not in pct_female:
            raise DataError(
                f"{path}:{sentences['male'][0]}: occupation {occupation!r} is missing from "
                f"{files[_STATS]}"
            )
        share = pct_female[occupation]
        if share == 50:
            skipped[NO_MAJORITY] = skipped.get(NO_MAJORITY, 0) + 1
            continue
        majority, minority = ("female", "male") if share > 50 else ("male", "female")
        items.append(
            PairItem(
                item_id=stem,
                bias_type="gender",
                stereotype=sentences[majority][1],
                anti_stereotype=sentences[minority][1],
            )
        )
    return ParsedRows(items=items, rows_read=len(instances), skipped=skipped)


def _bls_pct_female(path: Path) -> dict[str, float]:
    """occupation -> BLS percentage of women."""
    table = read_table(path, "\t")
    require_columns(
        path, table.columns, {"occupation": "occupation", "BLS % female": "bls_pct_female"}
    )
    shares: dict[str, float] = {}
    for record in table.records:
        where = f"{path}:{record.line}"
        occupation = require_text(
            record.cells["occupation"], where=where, column="occupation", strip=True
        )
        text = require_text(
            record.cells["bls_pct_female"], where=where, column="bls_pct_female", strip=True
        )
        try:
            share = float(text)
        except ValueError:
            share = math.nan
        if not 0 <= share <= 100:
            raise DataError(f"{where}: bls_pct_female is {text!r}; expected a number in [0, 100]")
        shares[occupation] = share
    return shares
