"""The professions list (Bolukbasi et al. 2016) as template pair items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.data.builtin.professions import DEFINITIONAL, NO_DIRECTION, article
from audit.data.loader import load_dataset
from audit.data.request import DatasetRequest
from audit.errors import DataError


def test_real_list_counts(shared_data: Path, tmp_path: Path) -> None:
    ds = load_dataset(DatasetRequest(name="professions"), data_dir=shared_data, cache_dir=tmp_path)
    rows = json.loads((shared_data / "wordlists" / "professions.json").read_text())
    assert ds.rows_read == len(rows) == 320
    definitional = sum(1 for _, d, _ in rows if abs(d) >= 0.5)
    undirected = sum(1 for _, d, s in rows if abs(d) < 0.5 and s == 0)
    assert ds.skipped == {DEFINITIONAL: definitional, NO_DIRECTION: undirected}
    assert ds.rows_kept == 320 - definitional - undirected == 264
    she = [i for i in ds.pair_items() if i.probe and i.probe.target_st == "she"]
    assert len(she) == sum(1 for _, d, s in rows if abs(d) < 0.5 and s < 0)
    nurse = next(i for i in ds.pair_items() if i.item_id == "nurse")
    assert (nurse.stereotype, nurse.anti_stereotype) == ("she is a nurse.", "he is a nurse.")
    assert ds.verified


def test_multi_word_professions_and_articles(shared_data: Path, tmp_path: Path) -> None:
    ds = load_dataset(DatasetRequest(name="professions"), data_dir=shared_data, cache_dir=tmp_path)
    items = {i.item_id: i for i in ds.pair_items()}
    assert items["accountant"].stereotype == "he is an accountant."
    assert items["adjunct_professor"].probe is not None
    assert items["adjunct_professor"].probe.attribute == "adjunct professor"
    assert article("engineer") == "an" and article("doctor") == "a"


def test_malformed_entry_names_the_file_and_entry(tmp_path: Path) -> None:
    path = tmp_path / "professions.json"
    path.write_text('[["nurse", 0.0, -0.5], ["oops", "x"]]')
    with pytest.raises(DataError, match=r"professions\.json: entry 1"):
        load_dataset(
            DatasetRequest(name="professions", path=path), data_dir=None, cache_dir=tmp_path
        )
