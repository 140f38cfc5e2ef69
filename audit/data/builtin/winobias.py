"""WinoBias (Zhao et al. 2018): pro- vs anti-stereotyped occupation sentences.

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
from typing import Literal

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_text
from audit.errors import DataError

_LINE = re.compile(r"^(\d+)\s+(\S.*)$")
_SPACES = re.compile(r"\s+")
_SOURCE = (
    "https://raw.githubusercontent.com/uclanlp/corefBias/"
    "0bce984dd081bbc10b0622f326727a024c607895/WinoBias/wino/data"
)
#: (file name, sha256, size) of every type and split.
_FILES: tuple[tuple[str, str, int], ...] = (
    (
        "pro_stereotyped_type1.txt.dev",
        "dd55a0d220fe4c0ceb63dd4648223fb4fe1a58d5ad95c116a002ad24b0e292a5",
        32786,
    ),
    (
        "anti_stereotyped_type1.txt.dev",
        "a4e0ebae344e78b56f657a42e8ae684b9db7747d177c5e7149c0907ebb7f3bf6",
        32782,
    ),
    (
        "pro_stereotyped_type1.txt.test",
        "db7838907238a758eeb5779e48f38c013b892910d6fe864456c59f04245c6689",
        34820,
    ),
    (
        "anti_stereotyped_type1.txt.test",
        "331db5bd74bfefebf146a60b67645152a4a1991570d2a56f57154103ac361dd2",
        34778,
    ),
    (
        "pro_stereotyped_type2.txt.dev",
        "8f0250de723cea9328e3eaf7169e07936f01aa5909ce7aa580db66eb803f4e86",
        30884,
    ),
    (
        "anti_stereotyped_type2.txt.dev",
        "763ad829ad724f9a85ead689ba8ca69072020cb1238def6210f0fc6a47b97e59",
        30875,
    ),
    (
        "pro_stereotyped_type2.txt.test",
        "ea1c1fd94fa612e3cc44d7fa3cc4cb76021bb63fdf94f9826f430051e9052438",
        31749,
    ),
    (
        "anti_stereotyped_type2.txt.test",
        "336571ac1ea8c06cd2aba8e5dd2bd98e00acc0c48da3e4ec5ec7e54eb2633a8f",
        31769,
    ),
)


class WinoBiasOptions(DatasetOptions):
    """WinoBias: sentence type (1: semantic cues only, 2: syntactic cues) and split."""

    type: Literal[1, 2] = 1
    split: Literal["dev", "test"] = "dev"

    def file_names(self) -> tuple[str, ...]:
        return (
            f"pro_stereotyped_type{self.type}.txt.{self.split}",
            f"anti_stereotyped_type{self.type}.txt.{self.split}",
        )


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


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="winobias",
        title="WinoBias",
        summary="WinoBias (Zhao et al. 2018): pro- vs anti-stereotyped occupation sentences.",
        shape="pairs",
        citation="Zhao et al. 2018, Gender Bias in Coreference Resolution: Evaluation and "
        "Debiasing Methods (NAACL).",
        limitations=(
            "WinoBias contrasts binary genders through occupation statistics of one country and "
            "year; it says nothing about other genders or other groups.",
        ),
    ),
    options=WinoBiasOptions,
    target=f"{__name__}:read_winobias",
    files=tuple(RemoteFile(name, f"{_SOURCE}/{name}", sha, size) for name, sha, size in _FILES),
    folder="winobias",
    bias_types=("gender",),
    size="396 pairs per type and split",
    source="uclanlp/corefBias @0bce984, WinoBias/wino/data/",
    licence="MIT",
)
