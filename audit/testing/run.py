"""One call that runs an audit spec the way `audit run` does and returns what it wrote."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from audit.results import AuditResult


@dataclass(frozen=True)
class AuditRun:
    """What a run left in `folder`: results.json read back, and scores.parquet."""

    result: AuditResult
    scores: pd.DataFrame | None
    folder: Path


def _spec_text(spec: Mapping[str, Any] | str) -> str:
    if isinstance(spec, str):
        return spec
    from ruamel.yaml import YAML

    buffer = io.StringIO()
    YAML(typ="safe", pure=True).dump(dict(spec), buffer)
    return buffer.getvalue()


def run_spec(
    spec: Mapping[str, Any] | str,
    folder: Path | None = None,
    *,
    data_dir: Path | None = None,
    device: str = "cpu",
) -> AuditRun:
    """Run `spec` (a dict, or YAML text) on `device` and return the results it wrote.

    The spec is written to `folder`/spec.yaml (relative paths in it are read from
    `folder`); results go to `folder`/out and the cache to `folder`/cache. Without a
    `folder`, a new temporary one is used (and kept, so the files can be looked at).
    `data_dir` is `audit run --data-dir`. A spec with errors raises `SpecError`.
    """
    from audit.display import SilentDisplay
    from audit.engine import RunSettings, run_audit
    from audit.results_io import read_results, read_scores
    from audit.spec.loader import load_spec

    folder = Path(tempfile.mkdtemp(prefix="audit-run-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "spec.yaml"
    path.write_text(_spec_text(spec), encoding="utf-8")
    settings = RunSettings(
        out_dir=folder / "out", cache_dir=folder / "cache", data_dir=data_dir, device=device
    )
    outcome = run_audit(load_spec(path), settings, SilentDisplay())
    result = read_results(outcome.out_dir / "results.json")
    return AuditRun(result=result, scores=read_scores(outcome.out_dir, result), folder=folder)
