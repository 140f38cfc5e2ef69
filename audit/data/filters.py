"""The spec's dataset filters (`bias_types`, `groups`) and row selection (`limit` or
`sample`), each counted.

`bias_types` keeps the pairs of the named types (pair sets only). `groups` keeps the
sentences that name at least one chosen group and narrows each kept item's groups to
the chosen ones (labelled sets only), so per-group measures see only those groups.
Then `limit: N` keeps the first N items, or `sample: N` a seeded random sample of N
items (`sample_positions`), kept in file order; a dataset takes one or the other. A
name that is not known is an error listing the known names. Each filter given is
reported in `filtered` with the number of items it removed (0 included).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from audit.data.items import ChoiceItem, DatasetShape, LabelledItem, PairItem
from audit.data.request import DatasetRequest
from audit.errors import DataError
from audit.registry import did_you_mean

Items = list[PairItem] | list[LabelledItem] | list[ChoiceItem]
#: The filter each shape takes, and the shape the other filter needs.
_SHAPE_FILTERS: dict[DatasetShape, tuple[str, str]] = {
    "pairs": ("bias_types", "pair sets; this one holds labelled sentences"),
    "labelled": ("groups", "labelled sets; this one holds pairs"),
    "choices": ("bias_types", "pair and choice sets; this one holds labelled sentences"),
}


def apply_filters(
    items: Items, shape: DatasetShape, request: DatasetRequest, known: Sequence[str]
) -> tuple[Items, dict[str, int]]:
    """Filtered items and, per filter given, how many items it removed.

    `known` lists the dataset's bias types (pair sets) or target groups (labelled sets).
    """
    _check_shape(request, shape)
    filtered: dict[str, int] = {}
    if request.bias_types is not None:
        chosen = _checked(request.name, "bias type", request.bias_types, known)
        pairs = [
            item
            for item in items
            if isinstance(item, PairItem | ChoiceItem) and item.bias_type in chosen
        ]
        filtered["bias_types"] = len(items) - len(pairs)
        items = pairs  # type: ignore[assignment]
    if request.groups is not None:
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
    if request.sample is not None:
        positions = sample_positions(
            [item.item_id for item in items], request.sample, seed=request.seed
        )
        filtered["sample"] = len(items) - len(positions)
        items = [items[i] for i in positions]  # type: ignore[assignment]
    return items, filtered


def sample_positions(item_ids: Sequence[str], size: int, *, seed: int) -> list[int]:
    """Positions of a seeded random sample of `size` items (all when fewer), ascending.

    The sample is the `size` items whose sha256 of "<seed>:<item id>" is smallest: the same
    seed and ids give the same sample on every machine and Python version, a smaller
    sample is part of a larger one, and an item's chance does not depend on its place.
    """

    def key(position: int) -> bytes:
        return hashlib.sha256(f"{seed}:{item_ids[position]}".encode()).digest()

    return sorted(sorted(range(len(item_ids)), key=key)[:size])


def unknown_name(what: str, name: str, known: Sequence[str], *, listed: str = "known") -> str:
    """The message for an unknown name: "unknown <what> 'name'; did you mean 'x'?
    (<listed>: a, b)", with the hint only when a known name is close."""
    hint = did_you_mean(name, list(known))
    return f"unknown {what} {name!r}{'; ' + hint if hint else ''} ({listed}: {', '.join(known)})"


def _check_shape(request: DatasetRequest, shape: DatasetShape) -> None:
    """A filter of the other shape, and `limit` with `sample`, are errors."""
    for key, where in _SHAPE_FILTERS.values():
        if key != _SHAPE_FILTERS[shape][0] and getattr(request, key) is not None:
            other = _SHAPE_FILTERS[shape][0]
            raise DataError(
                f"dataset '{request.name}': `{key}` filters {where} (filter them with `{other}`)"
            )
    if request.limit is not None and request.sample is not None:
        raise DataError(
            f"dataset '{request.name}': give `limit` (the first N items) or `sample` (a "
            "seeded random sample of N items), not both"
        )


def _checked(dataset: str, what: str, names: Sequence[str], known: Sequence[str]) -> set[str]:
    for name in names:
        if name not in known:
            raise DataError(f"dataset '{dataset}': " + unknown_name(what, name, known))
    return set(names)
