"""Reading what `audit run` wrote: results.json (any version this tool knows) and the
scores.parquet beside it.

`read_results` is the one way in for every reader (`audit render`, `audit compare`,
tests): it checks `results_version`, migrates older files in memory and refuses newer
ones with a message naming the file. Imports no registry, no spec package, no torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from audit.errors import AuditUserError
from audit.ids import PluginId, canonical_options
from audit.results import RESULTS_VERSION, AuditResult

if TYPE_CHECKING:
    import pandas as pd

#: The results.json versions this tool reads (older ones are migrated on read).
READABLE_VERSIONS = (1, RESULTS_VERSION)
SCORES_FILE = "scores.parquet"
#: Column renamed since version 1 score tables: the harm class was `label`.
V1_SCORE_COLUMNS = {"label": "harm_label"}
EXPECTED = "expected the results.json written by `audit run`"


def _readable() -> str:
    return " and ".join(str(v) for v in READABLE_VERSIONS)


def _version(data: Any, path: Path) -> int:
    version = data.get("results_version") if isinstance(data, dict) else None
    if isinstance(version, bool) or not isinstance(version, int):
        raise AuditUserError(
            f"{path}: not a results.json (no integer `results_version`, found "
            f"{version!r}); {EXPECTED}, versions {_readable()}"
        )
    if version > RESULTS_VERSION:
        raise AuditUserError(
            f"{path}: results_version {version} was written by a newer bias-audit; this "
            f"version reads results_version {_readable()}. Upgrade bias-audit to read it."
        )
    if version not in READABLE_VERSIONS:
        raise AuditUserError(
            f"{path}: results_version {version} is not one this tool reads ({_readable()})"
        )
    return version


def parse_results(data: Any, path: Path) -> AuditResult:
    """Parsed results.json content as the current `AuditResult`, migrated if older."""
    version = _version(data, path)
    try:
        if version == 1:
            from audit.migrations.v1 import migrate_v1

            return migrate_v1(data, str(path))
        return AuditResult.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise AuditUserError(
            f"{path}: not a valid results.json version {version} ({error.error_count()} "
            f"problem(s); first at {where}: {first['msg']}); {EXPECTED}"
        ) from None


def read_results(path: Path) -> AuditResult:
    """Read a results.json of any version this tool knows, as the current `AuditResult`.

    A missing or unreadable file, invalid JSON, a file that is not a results.json, or one
    written by a newer version raise `AuditUserError` naming the file (exit code 2).
    """
    if not path.is_file():
        raise AuditUserError(f"{path}: no such results file ({EXPECTED})")
    try:
        text = path.read_bytes()
    except OSError as error:
        raise AuditUserError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise AuditUserError(f"{path}: not a valid results.json (not JSON: {error})") from None
    return parse_results(data, path)


def scores_path(results_path: Path) -> Path:
    """Where a run's per-item scores lie: scores.parquet beside its results.json."""
    return results_path.parent / SCORES_FILE


def read_scores(folder: Path, result: AuditResult | None = None) -> pd.DataFrame | None:
    """folder/scores.parquet when it exists (charts and paired tests need it), else None.

    A version 1 table (its `scorer` column held the label, its harm class was `label`)
    gets the current columns: the scorer's name, options and label come from the ids of
    `result` whose label is the one in the table.
    """
    import pandas as pd

    path = folder / SCORES_FILE
    if not path.is_file():
        return None
    try:
        scores = pd.read_parquet(path)
    except (OSError, ValueError) as error:
        raise AuditUserError(f"{path}: cannot be read as a score table ({error})") from None
    if "scorer_options" in scores.columns:
        return scores
    return _upgrade_v1_scores(scores, result)


def _upgrade_v1_scores(scores: pd.DataFrame, result: AuditResult | None) -> pd.DataFrame:
    known: dict[str, PluginId] = {}
    if result is not None:
        scorers = [u.scorer for u in result.units] + [m.scorer for m in result.measurements]
        scorers += [s.scorer for s in result.skipped_units]
        for scorer in scorers:
            known.setdefault(scorer.label, scorer)
    ids = {label: known.get(label, PluginId(name=label)) for label in scores["scorer"].unique()}
    labels = scores["scorer"]
    upgraded = scores.rename(
        columns={k: v for k, v in V1_SCORE_COLUMNS.items() if v not in scores.columns}
    )
    upgraded["scorer"] = labels.map({k: i.name for k, i in ids.items()})
    upgraded["scorer_options"] = labels.map(
        {k: canonical_options(i.options) for k, i in ids.items()}
    )
    upgraded["scorer_label"] = labels
    return upgraded


def score_rows(scores: pd.DataFrame, *, model: str, dataset: str, scorer: PluginId) -> pd.DataFrame:
    """The score table's rows of one model x dataset x scorer (matched by name and
    options), re-indexed from 0."""
    rows = scores[
        (scores["model"] == model)
        & (scores["dataset"] == dataset)
        & (scores["scorer"] == scorer.name)
        & (scores["scorer_options"] == canonical_options(scorer.options))
    ]
    return rows.reset_index(drop=True)
