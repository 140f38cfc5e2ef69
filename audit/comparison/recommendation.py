"""The comparison's recommendation: adopt the candidate, do not adopt it, or cannot tell,
with the records that decide it.

- **Do not adopt** when any measure is further from the ideal (a detected worsening needs
  no power argument).
- **Cannot tell** when no measure was compared by a paired test; when a measure changed
  without being closer or further, is borderline or undefined; and whenever a measure
  shows no detectable change but the items in common are too few for the comparison's
  stated detection limit (its smallest detectable difference exceeds the limit, or it
  has none). "Adopt" is never offered then.
- **Adopt** when every measure with a stated limit is closer to the ideal or shows no
  detectable change that the comparison could have detected at that limit. A measure
  with no stated limit (a plug-in's, or the score-gap diagnostic) and no detected move
  is not weighed, and the recommendation names it; when no measure is weighed, cannot
  tell.

Only distinct records count: a record repeating an earlier one's test (`same_test_as`)
is the same finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from audit.comparison.detection_limits import limit_of
from audit.results import ComparisonRecord

Decision = Literal["adopt", "do not adopt", "cannot tell"]


@dataclass(frozen=True)
class Underpowered:
    """A measure with no detectable change that could not have detected its limit."""

    record: ComparisonRecord
    limit: float | None


@dataclass
class Recommendation:
    decision: Decision
    worse: list[ComparisonRecord] = field(default_factory=list)
    better: list[ComparisonRecord] = field(default_factory=list)
    unclear: list[ComparisonRecord] = field(default_factory=list)
    underpowered: list[Underpowered] = field(default_factory=list)
    powered: list[ComparisonRecord] = field(default_factory=list)
    unweighed: list[ComparisonRecord] = field(default_factory=list)

    @property
    def tested(self) -> bool:
        return bool(
            self.worse or self.better or self.powered or self.underpowered or self.unweighed
        ) or any(r.verdict != "undefined" for r in self.unclear)


def recommend(records: Sequence[ComparisonRecord], limits: Mapping[str, float]) -> Recommendation:
    """The recommendation from a comparison's records and its stated detection limits
    (measure name -> smallest change that must be detectable)."""
    found = Recommendation("cannot tell")
    for record in (r for r in records if not r.same_test_as):
        verdict = record.verdict
        if verdict == "further from the ideal":
            found.worse.append(record)
        elif verdict == "closer to the ideal":
            found.better.append(record)
        elif verdict == "no detectable change":
            limit = limit_of(record.measure, limits)
            detectable = record.detectable_difference
            if limit is None:
                found.unweighed.append(record)
            elif detectable is None or detectable > limit:
                found.underpowered.append(Underpowered(record, limit))
            else:
                found.powered.append(record)
        else:
            found.unclear.append(record)
    if found.worse:
        found.decision = "do not adopt"
    elif (found.better or found.powered) and not found.unclear and not found.underpowered:
        found.decision = "adopt"
    return found
