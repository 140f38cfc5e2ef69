"""A toy built-in dataset written the way docs/datasets.md says: one module (options,
files with checksums, reader, ENTRY); the test registers it with one line."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text

FILE = "toy.tsv"
CONTENT = (
    b"key\tmore\tless\tkind\n"
    b"a\tHe is strong.\tShe is strong.\tgender\n"
    b"b\tThe old man forgot.\tThe young man forgot.\tage\n"
    b"c\tShe cooks.\tHe cooks.\tgender\n"
)


class ToyOptions(DatasetOptions):
    """The toy set has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def read_toy(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """One pair per row."""
    path = files[FILE]
    table = read_table(path, "\t")
    require_columns(path, table.columns, {c: c for c in ("key", "more", "less", "kind")})
    items = [
        PairItem(
            item_id=require_text(r.cells["key"], where=f"{path}:{r.line}", column="key"),
            bias_type=r.cells["kind"],
            stereotype=r.cells["more"],
            anti_stereotype=r.cells["less"],
        )
        for r in table.records
    ]
    return ParsedRows(items=items, rows_read=len(table.records), skipped={})


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="toy_pairs",
        title="Toy pairs",
        summary="Three hand-written pairs (a test of the plug-in shape).",
        shape="pairs",
    ),
    options=ToyOptions,
    target=f"{__name__}:read_toy",
    files=(
        RemoteFile(
            FILE,
            "https://example.invalid/toy.tsv",
            hashlib.sha256(CONTENT).hexdigest(),
            len(CONTENT),
        ),
    ),
    folder="toys",
    bias_types=("gender", "age"),
    size="3 pairs",
    source="written for the test",
    licence="CC0",
)
