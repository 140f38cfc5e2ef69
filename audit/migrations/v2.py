"""Version 2 results.json -> version 3, in memory, on the parsed JSON.

Version 3 changed the values of `comparisons[].verdict` (`audit.results.comparison_verdict`):
version 2 judged only the distance to the ideal value, so `not distinguishable` covered a
value that moved significantly but not closer to the ideal as well as one that did not
move. `better` and `worse` become `closer to the ideal` and `further from the ideal`;
`not distinguishable` becomes `changed` when the interval of A - B the record stored
excludes 0 and `no detectable change` otherwise (the rule version 3 writes with, given
that the distance test decided neither); `undefined` stays. No number is recomputed.
"""

from __future__ import annotations

from typing import Any

from audit.results.comparison_verdict import ComparisonVerdict, judge_comparison

#: Version 2 verdicts whose version 3 verdict is fixed.
RENAMED: dict[str, ComparisonVerdict] = {
    "better": "closer to the ideal",
    "worse": "further from the ideal",
}


def migrate_comparison(record: Any) -> Any:
    """One version 2 comparison record with its version 3 verdict (other data unchanged);
    a value this migration does not know is left for validation to reject."""
    if not isinstance(record, dict):
        return record
    verdict = record.get("verdict")
    if isinstance(verdict, str) and verdict in RENAMED:
        return {**record, "verdict": RENAMED[verdict]}
    if verdict == "not distinguishable":
        judged = judge_comparison(
            difference_low=record.get("difference_ci_low"),
            difference_high=record.get("difference_ci_high"),
            distance_low=None,
            distance_high=None,
        )
        moved: ComparisonVerdict = "changed" if judged == "changed" else "no detectable change"
        return {**record, "verdict": moved}
    return record


def migrate_v2(data: dict[str, Any]) -> dict[str, Any]:
    """A version 2 results.json (parsed JSON) as version 3 JSON; `data` is not changed."""
    comparisons = data.get("comparisons")
    if not isinstance(comparisons, list):
        return data
    return {**data, "comparisons": [migrate_comparison(r) for r in comparisons]}
