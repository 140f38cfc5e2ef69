"""The measure registry with every built-in measure registered, in headline-preference
order: the door every other module uses (`MEASURES`, `register_measure`, `load_measure`).

Each registration is the measure's whole description: its card (title, input shape,
roles, ideal value and the texts shown by reports, `audit list measures -v` and
docs/measures/), its options model and the lazy path of its implementation. Adding a
measure is its module, one `register_measure` call in `builtin_measures.py` (SEAT's and
BBQ's in `builtin_seat_bbq.py`; the entry and registry are in `entry.py`) and its test; then
`python -m audit.measures.card_docs --write` regenerates its documentation page.

Order matters: the first `headline` measure in registration order heads a dataset's
summary. Importing this module imports no numerical library.
"""

from __future__ import annotations

# the built-ins register as these modules are imported, in this order
import audit.measures.builtin_measures
import audit.measures.builtin_seat_bbq  # noqa: F401
from audit.measures.entry import (
    MEASURES,
    MeasureEntry,
    load_corpus_measure,
    load_measure,
    register_measure,
)

__all__ = ["MEASURES", "MeasureEntry", "load_corpus_measure", "load_measure", "register_measure"]
