"""The base of every results.json record: a pydantic model that forbids unknown keys.

Writing and validating within one results version are strict; reading a file of a newer
minor version first strips (and notes) what this version does not know
(`audit.results.unknown`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")
