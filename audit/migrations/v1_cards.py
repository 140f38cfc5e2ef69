"""The cards of the plug-ins of the version 1 era (before results.json carried cards).

`v1_cards.json` was written once from the version 1 registries by
`tests/fixtures/make_v1_cards.py` and is committed: migrating a version 1 file needs no
registry. Measures come first, the headline measures in the version 1 report's order of
preference.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files

from audit.cards import PluginCard

CARDS_FILE = "v1_cards.json"


@lru_cache(maxsize=1)
def v1_cards() -> tuple[PluginCard, ...]:
    """Every version-1-era card, in the order the migration lists them."""
    raw = json.loads(files("audit.migrations").joinpath(CARDS_FILE).read_text(encoding="utf-8"))
    return tuple(PluginCard.model_validate(entry) for entry in raw)
