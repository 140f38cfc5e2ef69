"""WinoBias reader (Zhao et al. 2018).

Line i of `pro_stereotyped_type{T}.txt.{split}` and line i of the matching
`anti_stereotyped_...` file are one pair: S_st = the pro-stereotyped sentence, S_at =
the anti-stereotyped one, bias type "gender". Each line reads "<number> <sentence>"
with the entities in brackets; the number and the brackets are removed and runs of
spaces collapsed, nothing else (the published text is kept, typos included). The item
id is the line's number, which must agree between the two files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from audit.data.catalog import DatasetOptions, ParsedRows, WinoBiasOptions
from audit.data.items import PairItem
from audit.data.reading import read_text
from audit.errors import DataError

_LINE = re.compile(r"^(\d+)\s+(\S.*)$")
_SPACES = re.compile(r"\s+")


def clean_sentence(text: str) -> str:
    """Remove WinoBias' entity brackets and collapse the spaces they leave."""
    return _SPACES.sub(" ", text.replace("[", " ").replace("]", " ")).strip()


def read_winobias(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """The pro/anti line pairs of one type and split as PairItems."""
    assert isinstance(options, WinoBiasOptions)
    pro_name, anti_name = options.file_names()
    pro = _numbered_lines(files[pro_name])
    anti = _numbered_lines(files[anti_name])
    if len(pro) != len(anti):
        raise DataError(
            f"{files[pro_name]} has {len(pro)} sentences but {files[anti_name]} has "
            f"{len(anti)}; line i of one pairs with line i of the other"
        )
    items: list[PairItem] = []
    for (line, number, pro_text), (_, anti_number, anti_text) in zip(pro, anti, strict=True):
        if number != anti_number:
            raise DataError(
                f"{files[pro_name]}:{line}: sentence number {number} but line {line} of "
                f"{files[anti_name]} is number {anti_number}"
            )
        items.append(
            PairItem(
                item_id=number,
                bias_type="gender",
                stereotype=clean_sentence(pro_text),
                anti_stereotype=clean_sentence(anti_text),
            )
        )
    return ParsedRows(items=items, rows_read=len(items), skipped={})


def _numbered_lines(path: Path) -> list[tuple[int, str, str]]:
    """(1-based line, number, sentence) of every line; blank lines only at the end."""
    lines = read_text(path).split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    parsed = []
    for line, raw in enumerate(lines, start=1):
        match = _LINE.match(raw.strip())
        if match is None:
            found = repr(raw.strip()) if raw.strip() else "an empty line"
            raise DataError(f"{path}:{line}: expected '<number> <sentence>', found {found}")
        parsed.append((line, match.group(1), match.group(2)))
    return parsed
