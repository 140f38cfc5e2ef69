"""The version of the results.json format: MAJOR.MINOR, written as a string ("2.3").

- A new field or section raises MINOR. A reader accepts a file of a newer MINOR of its
  MAJOR: it leaves out what it does not know and says so (`audit.results.unknown`).
- A change that an older reader cannot skip (a field renamed, removed or given a new
  meaning) raises MAJOR. A reader refuses a newer MAJOR and migrates older ones
  (`audit/migrations/`).
- Files written before this scheme carry a bare integer: 1 (migrated) or 2, read as 2.0.
  Version 2.0 is every section written under "2" (variants, corpora, meta_evaluations,
  extrinsic, precision_checks included).
- 2.2 adds `units[].set_aside`: cache database files set aside as corrupt.
- 2.3 adds `extrinsic[].chosen_checkpoint`: the fine-tuning checkpoint a task was
  measured at (best dev score by default); older files were measured at the last step.

MAJOR and MINOR are integers compared as numbers: 2.10 is newer than 2.9.
"""

from __future__ import annotations

import re
from typing import Annotated, NamedTuple

from pydantic import BeforeValidator

_PATTERN = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
ACCEPTED = "'MAJOR.MINOR' (e.g. '2.1') or a bare integer major version (e.g. 2)"


class ResultsVersion(NamedTuple):
    """A results.json format version, ordered as (major, minor)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, value: object) -> ResultsVersion:
        """`"2.1"` -> (2, 1); a bare integer `2` (files before MAJOR.MINOR) -> (2, 0).

        Raises ValueError naming the value and what is accepted."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return cls(value, 0)
        if isinstance(value, str) and (match := _PATTERN.fullmatch(value)):
            return cls(int(match[1]), int(match[2]))
        raise ValueError(f"results_version {value!r} is not a version; expected {ACCEPTED}")

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


#: The version this code writes. 2.1 added `version` to every plug-in card.
RESULTS_VERSION = ResultsVersion(2, 3)


def _normalise(value: object) -> str:
    return str(ResultsVersion.parse(value))


#: `results_version` as results.json holds it: "MAJOR.MINOR" (a bare integer is read as N.0).
VersionText = Annotated[str, BeforeValidator(_normalise)]
