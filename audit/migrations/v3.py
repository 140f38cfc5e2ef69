"""Version 3 results.json -> version 4, in memory, on the parsed JSON.

Version 4 gives two fields a new meaning (`audit.results.version`):

- `comparisons[].verdict` is decided after a multiple-comparison correction over the
  record's family. A version 3 verdict was judged on its own: it moves to
  `verdict_uncorrected` and stays the `verdict`, and `correction` stays None, which the
  report reads as "not corrected (written before 4.0)".
- `correlations[].conclusive` means "the test had the power asked for at the spec's
  effect size". Version 3 meant "the corrected test could reach significance at all"; a
  version 3 file holds no power, so its records become not conclusive, `detection`
  stays None, and the report says the power was not computed.

No number is recomputed.
"""

from __future__ import annotations

from typing import Any


def _comparison(record: Any) -> Any:
    if not isinstance(record, dict) or "verdict_uncorrected" in record:
        return record
    return {**record, "verdict_uncorrected": record.get("verdict")}


def _correlation(record: Any) -> Any:
    if not isinstance(record, dict):
        return record
    return {**record, "conclusive": False}


def migrate_v3(data: dict[str, Any]) -> dict[str, Any]:
    """A version 3 results.json (parsed JSON) as version 4 JSON; `data` is not changed."""
    out = dict(data)
    if isinstance(data.get("comparisons"), list):
        out["comparisons"] = [_comparison(r) for r in data["comparisons"]]
    if isinstance(data.get("correlations"), list):
        out["correlations"] = [_correlation(r) for r in data["correlations"]]
    return out
