"""Hashes of a task's evaluation inputs: a part of a fine-tuning's cache key, since its
curve points are predictions on them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def lines_sha256(lines: Iterable[Iterable[str]]) -> str:
    """sha256 of tab-joined fields, one line each."""
    digest = hashlib.sha256()
    for fields in lines:
        digest.update("\t".join(fields).encode("utf-8") + b"\n")
    return digest.hexdigest()
