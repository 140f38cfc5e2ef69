"""Load a spec file: YAML with positions -> pydantic -> semantic checks.

`load_spec` returns the frozen `AuditSpec` or raises `SpecError` carrying every problem
at once, each as `file:line:col: field: message (got X; expected Y)`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from audit.spec.checks import run_checks
from audit.spec.models import AuditSpec
from audit.spec.problems import Finding, SpecError, SpecProblem, field_path, one_of
from audit.spec.sections import SpecSections
from audit.spec.spec_paths import resolve_spec_path
from audit.spec.validation_errors import dedupe, problems_from_validation
from audit.spec.yaml_source import YamlDocument, YamlSyntaxError, parse_yaml


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec with the exact text it came from (the text's sha256 goes into
    results.json), the parsed YAML as written (`raw`), and the warnings found while
    checking it."""

    spec: AuditSpec
    text: str
    sha256: str
    path: Path
    raw: dict[str, Any]
    warnings: tuple[SpecProblem, ...] = ()

    @property
    def base_dir(self) -> Path:
        """The folder that relative paths in the spec are read from."""
        return self.path.resolve().parent

    def resolve_path(self, value: str) -> Path:
        """A path written in the spec: '~' expanded, relative to the spec file's folder."""
        return resolve_spec_path(value, self.base_dir)


def load_spec(path: Path) -> LoadedSpec:
    """Read, parse and validate the spec at `path`. Raises SpecError with every problem."""
    path = Path(path)
    text = _read(path)
    spec, raw, problems = _validate_text(text, path)
    errors = [p for p in problems if p.is_error]
    if errors or spec is None:
        raise SpecError(errors)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    warnings = tuple(p for p in problems if not p.is_error)
    return LoadedSpec(spec=spec, text=text, sha256=digest, path=path, raw=raw, warnings=warnings)


def validate_spec_file(path: Path) -> list[SpecProblem]:
    """Every error and warning of the spec at `path`, in file order (empty: all good).

    Use `SpecProblem.is_error` to tell errors (which make `load_spec` fail) from warnings.
    """
    path = Path(path)
    try:
        text = _read(path)
    except SpecError as exc:
        return exc.problems
    return _validate_text(text, path)[2]


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SpecError([_whole_file(path, "no such spec file")]) from None
    except IsADirectoryError:
        raise SpecError([_whole_file(path, "is a folder, not a spec file")]) from None
    except OSError as exc:
        raise SpecError([_whole_file(path, f"cannot read the file: {exc.strerror}")]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"the file is not UTF-8 text (bad byte at offset {exc.start})"
        raise SpecError([_whole_file(path, message)]) from None


def _whole_file(path: Path, message: str) -> SpecProblem:
    return SpecProblem(file=str(path), line=None, col=None, field="", message=message)


def _validate_text(
    text: str, path: Path
) -> tuple[AuditSpec | None, dict[str, Any], list[SpecProblem]]:
    """(the spec or None, the parsed YAML, every error and warning in file order)."""
    file = str(path)
    try:
        doc = parse_yaml(text)
    except YamlSyntaxError as exc:
        return None, {}, [SpecProblem(file, exc.line, exc.col, "", exc.message)]
    if not isinstance(doc.data, dict):
        return None, {}, [_not_a_mapping(file, doc)]

    problems: list[SpecProblem] = []
    spec: AuditSpec | None = None
    try:
        spec = AuditSpec.model_validate(doc.data)
    except ValidationError as exc:
        problems += problems_from_validation(exc, doc, file)
    sections = SpecSections.of_spec(spec) if spec else SpecSections.of_data(doc.data)
    base_dir = path.resolve().parent
    findings = run_checks(sections, base_dir=base_dir)
    # A warning about a default the user did not write (say, the default measures on a
    # spec with pairs only) is noise; errors about defaults are kept (they are bugs).
    findings = [f for f in findings if f.severity == "error" or f.loc[0] in doc.data]
    problems += [_located(f, doc, file) for f in findings]
    problems = dedupe(problems)
    problems.sort(key=lambda p: (p.line or 0, p.col or 0))
    return spec, doc.data, problems


def _not_a_mapping(file: str, doc: YamlDocument) -> SpecProblem:
    got = "an empty file" if doc.data is None else f"a {type(doc.data).__name__}"
    keys = one_of(["spec_version", "name", "models", "datasets", "..."])
    return SpecProblem(
        file, 1, 1, "", "a spec is a mapping of keys to values", got=got, expected=keys
    )


def _located(finding: Finding, doc: YamlDocument, file: str) -> SpecProblem:
    walk = doc.walk(finding.loc, skip_unfound=False)
    shown = walk.found if walk.at_scalar else finding.loc
    return SpecProblem(
        file=file,
        line=walk.line,
        col=walk.col,
        field=field_path(shown),
        message=finding.message,
        got=finding.got,
        expected=finding.expected,
        severity=finding.severity,
    )
