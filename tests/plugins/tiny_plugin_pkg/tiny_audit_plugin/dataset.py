"""The `tiny_pairs` dataset: four hand-written sentence pairs in one TSV file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from audit.cards import PluginCard
from audit.data.entry import DatasetEntry, DatasetOptions, ParsedRows, RemoteFile
from audit.data.items import PairItem
from audit.data.reading import read_table, require_columns, require_text

FILE = "tiny_pairs.tsv"


class TinyPairsOptions(DatasetOptions):
    """The set has no options."""

    def file_names(self) -> tuple[str, ...]:
        return (FILE,)


def read_tiny_pairs(files: Mapping[str, Path], options: DatasetOptions) -> ParsedRows:
    """One pair per row: key, more (stereotypical), less (anti-stereotypical), kind."""
    path = files[FILE]
    table = read_table(path, "\t")
    require_columns(path, table.columns, {c: c for c in ("key", "more", "less", "kind")})
    items = [
        PairItem(
            item_id=require_text(row.cells["key"], where=f"{path}:{row.line}", column="key"),
            bias_type=row.cells["kind"],
            stereotype=row.cells["more"],
            anti_stereotype=row.cells["less"],
        )
        for row in table.records
    ]
    return ParsedRows(items=items, rows_read=len(table.records), skipped={})


ENTRY = DatasetEntry(
    card=PluginCard(
        kind="dataset",
        name="tiny_pairs",
        title="Tiny pairs",
        summary="Four hand-written sentence pairs (bias-audit's plug-in test).",
        shape="pairs",
    ),
    options=TinyPairsOptions,
    target="tiny_audit_plugin.dataset:read_tiny_pairs",
    files=(
        RemoteFile(
            FILE,
            "https://example.invalid/tiny_pairs.tsv",
            "3345141820e121ad73977950575cf5e122e693b89ad4a7acdef62dc1f728d115",
            181,
        ),
    ),
    folder="tiny_pairs",
    bias_types=("gender", "age"),
    size="4 pairs",
    source="written for the test",
    licence="CC0",
)
