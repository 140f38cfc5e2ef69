"""What `load_dataset` is asked to load: plain data, free of the spec package.

The spec layer turns one `datasets:` entry into a `DatasetRequest`
(`audit.spec.dataset_request.dataset_request`); tests and other callers may build one
directly, e.g. `DatasetRequest(name="crows_pairs", limit=10)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from audit.data.items import DatasetShape

#: Label values (case-insensitive) that mean harmful in a user labelled file by default.
DEFAULT_HARMFUL_LABELS: tuple[str, ...] = ("hate", "harmful", "toxic", "1", "true")

FileFormat = Literal["csv", "json", "jsonl", "tsv"]


@dataclass(frozen=True)
class DatasetRequest:
    """One dataset to load: a built-in by name, or a user file (`path` + `kind`).

    `path` is used as given ('~' is expanded; the spec layer has already made a relative
    path absolute against the spec's folder). `columns` maps a user file's roles to its
    column names (only the mapped roles; None when the spec gives no mapping). The
    filters `bias_types`, `groups`, `limit` and `sample` are None when not given; `seed`
    (the spec's run seed) draws the `sample` (`audit.data.filters.sample_positions`).
    """

    name: str
    kind: DatasetShape | None = None
    path: Path | None = None
    format: FileFormat | None = None
    columns: Mapping[str, str] | None = None
    harmful_labels: tuple[str, ...] = DEFAULT_HARMFUL_LABELS
    bias_types: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    options: Mapping[str, object] = field(default_factory=dict)
