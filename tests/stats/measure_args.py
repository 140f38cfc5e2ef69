"""What the cross-model statistics take for a registered measure and a scorer, as the
studies hand it over: ids, implementation, validated options and ideal value."""

from __future__ import annotations

from typing import Any

from audit.ids import PluginId
from audit.measures.catalog import MEASURES
from audit.scoring.base import ScorerInfo


def study_args(name: str, scorer: ScorerInfo, **options: Any) -> dict[str, Any]:
    """Keyword arguments of `robustness_study` / `compare_models` for measure `name`."""
    entry = MEASURES.entry(name)
    return {
        "measure": PluginId.of(name, options),
        "scorer": PluginId.of(scorer.name),
        "implementation": MEASURES.load(name),
        "scorer_info": scorer,
        "options": entry.options.model_validate(options),
        "ideal_value": entry.ideal_value,
    }
