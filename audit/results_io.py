"""Reading what `audit run` wrote: results.json (any version this tool knows) and the
scores.parquet beside it; and writing results.json (`write_results`, atomically).

`read_results` is the one way in for every reader (`audit render`, `audit compare`,
tests): it checks `results_version` ("MAJOR.MINOR", see `audit.results.version`),
migrates an older major version in memory, reads a newer minor version without what it
does not know (named in the result's `read_notes`) and refuses a newer major version with
a message naming the file. Imports no registry, no spec package, no torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from audit.atomic_write import write_text_atomic
from audit.errors import AuditUserError
from audit.ids import PluginId, canonical_options
from audit.results import RESULTS_VERSION, AuditResult, ReadNotes, ResultsVersion, strip_unknown

if TYPE_CHECKING:
    import pandas as pd

#: The oldest results.json major version this tool reads (older majors are migrated on read).
OLDEST_MAJOR = 1
SCORES_FILE = "scores.parquet"
#: Column renamed since version 1 score tables: the harm class was `label`.
V1_SCORE_COLUMNS = {"label": "harm_label"}
EXPECTED = "expected the results.json written by `audit run`"


def _readable() -> str:
    return f"{OLDEST_MAJOR} to {RESULTS_VERSION} (and newer {RESULTS_VERSION.major}.x)"


def _version(data: Any, path: Path) -> ResultsVersion:
    found = data.get("results_version") if isinstance(data, dict) else None
    try:
        version = ResultsVersion.parse(found)
    except ValueError as error:
        raise AuditUserError(
            f"{path}: not a results.json ({error}); {EXPECTED}, versions {_readable()}"
        ) from None
    if version.major > RESULTS_VERSION.major:
        raise AuditUserError(
            f"{path}: results_version {version} was written by a newer bias-audit (a new "
            f"major version, {version.major}); this version reads results_version "
            f"{_readable()}. Upgrade bias-audit to read it."
        )
    if version.major < OLDEST_MAJOR:
        raise AuditUserError(
            f"{path}: results_version {version} is not one this tool reads ({_readable()})"
        )
    return version


def parse_results(data: Any, path: Path) -> AuditResult:
    """Parsed results.json content as the current `AuditResult`.

    An older major version is migrated; a newer minor version of the current major is
    read without the sections and fields this version does not know, which the result's
    `read_notes` name (the caller prints them; the report says what it could not show).
    """
    version = _version(data, path)
    notes: ReadNotes | None = None
    if version.major == RESULTS_VERSION.major and version > RESULTS_VERSION:
        data, parts = strip_unknown(data, AuditResult)
        notes = ReadNotes(str(path), str(version), str(RESULTS_VERSION), parts)
    try:
        if version.major == 1:
            from audit.migrations.v1 import migrate_v1

            result = migrate_v1(data, str(path))
        elif version.major == 2:
            from audit.migrations.v2 import migrate_v2
            from audit.migrations.v3 import migrate_v3

            result = AuditResult.model_validate(migrate_v3(migrate_v2(data)))
        elif version.major == 3:
            from audit.migrations.v3 import migrate_v3

            result = AuditResult.model_validate(migrate_v3(data))
        else:
            result = AuditResult.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise AuditUserError(
            f"{path}: not a valid results.json version {version} ({error.error_count()} "
            f"problem(s); first at {where}: {first['msg']}); {EXPECTED}"
        ) from None
    current = result.model_copy(update={"results_version": str(RESULTS_VERSION)})
    return current.with_read_notes(notes)


def read_results(path: Path) -> AuditResult:
    """Read a results.json of any version this tool knows, as the current `AuditResult`.

    A missing or unreadable file, invalid JSON, a file that is not a results.json, or one
    of a newer major version raise `AuditUserError` naming the file (exit code 2). A newer
    minor version reads, with what was left out in `result.read_notes`.
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


def write_results(result: AuditResult, path: Path) -> Path:
    """Write results.json atomically (`audit.atomic_write`): an earlier file stays whole
    until the new one is; returns `path`."""
    return write_text_atomic(path, result.model_dump_json(indent=2))


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
