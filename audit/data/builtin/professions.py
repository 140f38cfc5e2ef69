"""The Bolukbasi et al. (2016) professions list as template pairs (for TBS and others).

`professions.json` holds `[word, definitional, stereotypical]` for 320 words: the
projection of the word on the he-she direction by definition (e.g. "actress") and by
stereotype (e.g. "nurse" negative, "carpenter" positive) in word2vec. A word whose
definitional value is at least 0.5 in size is gendered by meaning (actor, actress,
businessman; smaller values, mostly 0.1-0.2, are projection noise on ordinary words such
as architect), and a word with a zero stereotypical value has no stereotype direction:
both are counted in `skipped`.
Every other word is an item (id: the word; underscores become spaces in the text):
the stereotypical target is "he" when the stereotypical value is positive, else "she";
the sentences are "[TARGET] is a/an [ATTRIBUTE]." filled with each target, so sentence
scorers (PLL, AUL) and pair scorers (CPS) apply as well as the template score TBS.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem, TemplateSlots
from audit.errors import DataError

FILE = "professions.json"
DEFINITIONAL_LIMIT = 0.5
DEFINITIONAL = "gendered by definition (|definitional value| >= 0.5)"
NO_DIRECTION = "no stereotype direction (stereotypical value 0)"
# Only the short commit of tolga-b/debiaswe is known (README of the reference data).
_SOURCE = "https://raw.githubusercontent.com/tolga-b/debiaswe/6bb03ee/data"


class ProfessionsOptions(DatasetOptions):
    """The professions list has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def article(word: str) -> str:
    """'an' before a vowel letter, else 'a' (the rule the TBS templates use)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def read_professions(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """One template pair item per word; gendered and undirected words are skipped."""
    path = files[FILE]
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: cannot read the professions list: {error}") from error
    if not isinstance(rows, list):
        raise DataError(f"{path}: expected a JSON list of [word, definitional, stereotypical]")
    items: list[PairItem] = []
    skipped: dict[str, int] = {}
    for index, row in enumerate(rows):
        if (
            not isinstance(row, list)
            or len(row) != 3
            or not isinstance(row[0], str)
            or not all(isinstance(v, int | float) for v in row[1:])
        ):
            raise DataError(
                f"{path}: entry {index} is {row!r}; expected [word, definitional, stereotypical]"
            )
        word, definitional, stereotypical = row
        if abs(definitional) >= DEFINITIONAL_LIMIT:
            skipped[DEFINITIONAL] = skipped.get(DEFINITIONAL, 0) + 1
            continue
        if stereotypical == 0:
            skipped[NO_DIRECTION] = skipped.get(NO_DIRECTION, 0) + 1
            continue
        attribute = word.replace("_", " ")
        st, at = ("he", "she") if stereotypical > 0 else ("she", "he")
        filled = f"is {article(attribute)} {attribute}."
        items.append(
            PairItem(
                item_id=word,
                bias_type="gender",
                stereotype=f"{st} {filled}",
                anti_stereotype=f"{at} {filled}",
                context="[TARGET] is a/an [ATTRIBUTE].",
                probe=TemplateSlots(attribute=attribute, target_st=st, target_at=at),
            )
        )
    return ParsedRows(items=items, rows_read=len(rows), skipped=skipped)


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="professions",
        title="Professions (Bolukbasi et al.)",
        summary="Bolukbasi et al. (2016) professions: he vs she by word2vec stereotype; "
        "template items.",
        shape="pairs",
        citation="Bolukbasi et al. 2016, Man is to Computer Programmer as Woman is to "
        "Homemaker? (NeurIPS).",
    ),
    options=ProfessionsOptions,
    target=f"{__name__}:read_professions",
    files=(
        RemoteFile(
            FILE,
            f"{_SOURCE}/{FILE}",
            "32cc82c7761e7cfb14e37e06dc1aa9f758bc8441f79ca7288996d3fc7c24639a",
            8143,
        ),
    ),
    folder="wordlists",
    templates=True,
    bias_types=("gender",),
    size="320 words; those gendered by definition or with no stereotype direction skipped",
    source="tolga-b/debiaswe @6bb03ee, data/professions.json",
    licence="MIT",
)
