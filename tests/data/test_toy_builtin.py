"""Adding a built-in dataset is one module and one registration line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.data.catalog import DATASETS, dataset_shape, describe_dataset, has_templates
from audit.data.loader import load_dataset
from audit.data.request import DatasetRequest
from audit.errors import DataError
from tests.data import toy_builtin


@pytest.fixture
def toy() -> Iterator[str]:
    DATASETS.register(toy_builtin.ENTRY)  # the one registration line
    yield toy_builtin.ENTRY.name
    DATASETS.unregister(toy_builtin.ENTRY.name)


def test_a_toy_builtin_loads_from_its_data_folder(toy: str, tmp_path: Path) -> None:
    folder = tmp_path / "data" / "toys"
    folder.mkdir(parents=True)
    (folder / toy_builtin.FILE).write_bytes(toy_builtin.CONTENT)
    ds = load_dataset(
        DatasetRequest(name=toy, bias_types=("gender",)),
        data_dir=tmp_path / "data",
        cache_dir=tmp_path / "cache",
    )
    assert [i.item_id for i in ds.pair_items()] == ["a", "c"]
    assert ds.verified and ds.rows_read == 3 and ds.filtered == {"bias_types": 1}
    assert dataset_shape(toy) == "pairs" and not has_templates(toy)
    assert "bias types: gender, age" in describe_dataset(toy)
    with pytest.raises(DataError, match=r"unknown bias type 'race' \(known: gender, age\)"):
        load_dataset(
            DatasetRequest(name=toy, bias_types=("race",)),
            data_dir=tmp_path / "data",
            cache_dir=tmp_path / "cache",
        )


def test_a_changed_toy_file_fails_its_checksum(toy: str, tmp_path: Path) -> None:
    folder = tmp_path / "data" / "toys"
    folder.mkdir(parents=True)
    (folder / toy_builtin.FILE).write_bytes(toy_builtin.CONTENT + b"d\tx\ty\tage\n")
    with pytest.raises(DataError, match="checksum mismatch"):
        load_dataset(DatasetRequest(name=toy), data_dir=tmp_path / "data", cache_dir=tmp_path)
