"""Errors the user can act on. They print as a short message and exit 2; bugs keep tracebacks."""

from __future__ import annotations


class AuditUserError(Exception):
    """A problem with the user's input (spec, data file, model source). Exit code 2."""

    exit_code = 2


class DataError(AuditUserError):
    """A dataset file is missing, malformed or does not match its checksum."""


class ModelSourceError(AuditUserError):
    """A model source cannot be resolved or loaded."""


class UnknownNameError(AuditUserError):
    """A registry lookup failed; the message carries a "did you mean" hint."""
