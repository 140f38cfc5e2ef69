"""The dataset filters and row selection: `limit` keeps the first N items, `sample` a
seeded random sample of N kept in file order; a dataset takes one or the other."""

from __future__ import annotations

import hashlib

import pytest

from audit.data.filters import apply_filters, sample_positions, unknown_name
from audit.data.items import LabelledItem, PairItem
from audit.data.request import DatasetRequest
from audit.errors import DataError


def _pairs(n: int, bias_types: tuple[str, ...] = ("x",)) -> list[PairItem]:
    return [
        PairItem(
            item_id=f"p{i}",
            bias_type=bias_types[i % len(bias_types)],
            stereotype=f"s{i}",
            anti_stereotype=f"a{i}",
        )
        for i in range(n)
    ]


def _ids(items: object) -> list[str]:
    assert isinstance(items, list)
    return [item.item_id for item in items]


def test_limit_keeps_the_first_items_and_counts_the_rest() -> None:
    items, filtered = apply_filters(_pairs(10), "pairs", DatasetRequest("d", limit=3), ["x"])
    assert _ids(items) == ["p0", "p1", "p2"] and filtered == {"limit": 7}
    items, filtered = apply_filters(_pairs(2), "pairs", DatasetRequest("d", limit=3), ["x"])
    assert len(items) == 2 and filtered == {"limit": 0}


def test_sample_is_seeded_reproducible_and_in_file_order() -> None:
    pairs = _pairs(200)
    request = DatasetRequest("d", sample=20, seed=7)
    items, filtered = apply_filters(pairs, "pairs", request, ["x"])
    assert filtered == {"sample": 180} and len(items) == 20
    assert items == apply_filters(list(pairs), "pairs", request, ["x"])[0]
    positions = [pairs.index(item) for item in items]  # type: ignore[arg-type]
    assert positions == sorted(positions) and positions != list(range(20))
    other_seed = apply_filters(pairs, "pairs", DatasetRequest("d", sample=20, seed=8), ["x"])
    assert other_seed[0] != items
    everything, filtered = apply_filters(pairs, "pairs", DatasetRequest("d", sample=500), ["x"])
    assert everything == pairs and filtered == {"sample": 0}


def test_sample_positions_are_the_smallest_seeded_hashes() -> None:
    ids = [f"id{i}" for i in range(50)]
    digests = {i: hashlib.sha256(f"3:{ids[i]}".encode()).digest() for i in range(50)}
    expected = sorted(sorted(digests, key=digests.__getitem__)[:5])
    assert sample_positions(ids, 5, seed=3) == expected
    assert set(sample_positions(ids, 5, seed=3)) <= set(sample_positions(ids, 12, seed=3))
    # An item's draw depends on its id, not its place: reversing the file keeps the sample.
    reversed_ids = ids[::-1]
    assert {reversed_ids[i] for i in sample_positions(reversed_ids, 5, seed=3)} == {
        ids[i] for i in expected
    }


def test_sample_follows_the_other_filters() -> None:
    pairs = _pairs(30, bias_types=("x", "y", "z"))
    request = DatasetRequest("d", bias_types=("x",), sample=4, seed=1)
    items, filtered = apply_filters(pairs, "pairs", request, ["x", "y", "z"])
    assert filtered == {"bias_types": 20, "sample": 6}
    assert {item.bias_type for item in items} == {"x"}  # type: ignore[union-attr]


def test_limit_with_sample_and_filters_of_the_other_shape_are_errors() -> None:
    with pytest.raises(DataError, match=r"dataset 'd': give `limit` .* or `sample` .* not both"):
        apply_filters(_pairs(3), "pairs", DatasetRequest("d", limit=1, sample=1), ["x"])
    with pytest.raises(DataError, match=r"`groups` filters labelled sets; this one holds pairs"):
        apply_filters(_pairs(3), "pairs", DatasetRequest("d", groups=("g",)), ["x"])
    labelled = [LabelledItem("0", "t", "harmful", 1.0, ("g",))]
    with pytest.raises(DataError, match=r"`bias_types` filters pair sets; .* with `groups`"):
        apply_filters(labelled, "labelled", DatasetRequest("d", bias_types=("x",)), ["g"])


def test_unknown_name_hints_and_lists() -> None:
    assert unknown_name("bias type", "gendr", ["gender", "age"]) == (
        "unknown bias type 'gendr'; did you mean 'gender'? (known: gender, age)"
    )
    assert unknown_name("dataset", "zzz", ["a"], listed="built-ins") == (
        "unknown dataset 'zzz' (built-ins: a)"
    )
