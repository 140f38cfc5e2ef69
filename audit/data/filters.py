"""The spec's dataset filters (`bias_types`, `groups`, `limit`), each counted.

`bias_types` keeps the pairs of the named types (pair sets only). `groups` keeps the
sentences that name at least one chosen group and narrows each kept item's groups to
the chosen ones (labelled sets only), so per-group measures see only those groups.
`limit` keeps the first N items after the other filters. A name that is not known is
an error listing the known names. Each filter given is reported in `filtered` with the
number of items it removed (0 included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from audit.data.items import DatasetShape, LabelledItem, PairItem
from audit.data.request import DatasetRequest
from audit.errors import DataError
from audit.registry import did_you_mean

Items = list[PairItem] | list[LabelledItem]


def apply_filters(
    items: Items, shape: DatasetShape, request: DatasetRequest, known: Sequence[str]
) -> tuple[Items, dict[str, int]]:
    """Filtered items and, per filter given, how many items it removed.

    `known` lists the dataset's bias types (pair sets) or target groups (labelled sets).
    """
    filtered: dict[str, int] = {}
    if request.bias_types is not None:
        if shape != "pairs":
            raise DataError(
                f"dataset '{request.name}': `bias_types` filters pair sets; this one holds "
                "labelled sentences (filter them with `groups`)"
            )
        chosen = _checked(request.name, "bias type", request.bias_types, known)
        pairs = [item for item in items if isinstance(item, PairItem) and item.bias_type in chosen]
        filtered["bias_types"] = len(items) - len(pairs)
        items = pairs
    if request.groups is not None:
        if shape != "labelled":
            raise DataError(
                f"dataset '{request.name}': `groups` filters labelled sets; this one holds "
                "pairs (filter them with `bias_types`)"
            )
        chosen = _checked(request.name, "target group", request.groups, known)
        kept = []
        for item in items:
            assert isinstance(item, LabelledItem)
            groups = tuple(group for group in item.groups if group in chosen)
            if groups:
                kept.append(replace(item, groups=groups))
        filtered["groups"] = len(items) - len(kept)
        items = kept
    if request.limit is not None:
        filtered["limit"] = max(0, len(items) - request.limit)
        items = items[: request.limit]
    return items, filtered


def _checked(dataset: str, what: str, names: Sequence[str], known: Sequence[str]) -> set[str]:
    for name in names:
        if name not in known:
            hint = did_you_mean(name, list(known))
            raise DataError(
                f"dataset '{dataset}': unknown {what} {name!r}"
                + (f"; {hint}" if hint else "")
                + f" (known: {', '.join(known)})"
            )
    return set(names)
