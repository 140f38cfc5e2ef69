"""Winogender schemas (Rudinger et al. 2018): male vs female pronoun, BLS majority gender.

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

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text
from audit.errors import DataError

_SENTENCES = "all_sentences.tsv"
_STATS = "occupations-stats.tsv"
GENDERS = ("male", "female", "neutral")
NO_MAJORITY = "occupation with exactly 50% women by BLS (no majority gender)"
_SOURCE = (
    "https://raw.githubusercontent.com/rudinger/winogender-schemas/"
    "1c7f8b481ad8a234b41e9f76a424d6e856e13f7f/data"
)


class WinogenderOptions(DatasetOptions):
    """Winogender has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (_SENTENCES, _STATS)


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


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="winogender",
        title="Winogender schemas",
        summary="Winogender schemas (Rudinger et al. 2018): male vs female pronoun, BLS "
        "majority gender.",
        shape="pairs",
        citation="Rudinger et al. 2018, Gender Bias in Coreference Resolution (NAACL).",
        limitations=(
            "Winogender's occupations and gender statistics are US-specific, and its small size "
            "(720 sentences) gives wide intervals.",
        ),
    ),
    options=WinogenderOptions,
    target=f"{__name__}:read_winogender",
    files=(
        RemoteFile(
            _SENTENCES,
            f"{_SOURCE}/{_SENTENCES}",
            "bd69da16bf228cb8df63fd0843aec2d8b5c36a7f21bf8c7b168bcc83932556c8",
            83644,
        ),
        RemoteFile(
            _STATS,
            f"{_SOURCE}/{_STATS}",
            "3f7f37c16381a70571356982ea7fe613ac700ad04a6d3b19b9f2be18248df567",
            1578,
        ),
    ),
    folder="winogender",
    bias_types=("gender",),
    size="720 sentences: 240 male/female pairs (+240 neutral, unused)",
    source="rudinger/winogender-schemas @1c7f8b4, data/",
    licence="MIT",
)
