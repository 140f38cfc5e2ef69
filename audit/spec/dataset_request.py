"""A spec's `datasets:` entry as the data layer's plain `DatasetRequest`.

The spec package may import `audit.data`; `audit.data` never imports the spec package.
"""

from __future__ import annotations

from pathlib import Path

from audit.data.request import DatasetRequest
from audit.spec.models import DatasetSpec


def dataset_request(
    spec: DatasetSpec, spec_dir: Path | None = None, *, seed: int = 0
) -> DatasetRequest:
    """What `audit.data.loader.load_dataset` needs to load `spec`.

    `path` has '~' expanded and, when relative, is taken from `spec_dir` (the spec
    file's folder; None keeps it relative to the working directory). `seed` is the
    spec's run seed (`AuditSpec.seed`): it draws a `sample:`.
    """
    return DatasetRequest(
        name=spec.name,
        kind=spec.kind,
        path=_resolve(spec.path, spec_dir),
        format=spec.format,
        columns=spec.columns.model_dump(exclude_none=True) if spec.columns is not None else None,
        harmful_labels=tuple(spec.harmful_labels),
        bias_types=tuple(spec.bias_types) if spec.bias_types is not None else None,
        groups=tuple(spec.groups) if spec.groups is not None else None,
        limit=spec.limit,
        sample=spec.sample,
        seed=seed,
        options=dict(spec.options),
    )


def _resolve(path: str | None, spec_dir: Path | None) -> Path | None:
    if path is None:
        return None
    resolved = Path(path).expanduser()
    if not resolved.is_absolute() and spec_dir is not None:
        resolved = spec_dir / resolved
    return resolved
