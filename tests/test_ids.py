"""Plug-in ids: a label is for people (no Python list repr), the key is the identity."""

from __future__ import annotations

from audit.ids import PluginId, label_of
from audit.migrations.v1 import IdResolver


def test_a_label_shows_list_options_without_quotation_marks() -> None:
    assert label_of("ll", {}) == "ll"
    assert label_of("jss", {"compat": "reference"}) == "jss[compat=reference]"
    assert (
        label_of("seat", {"tests": ["sent-weat6", "weat7"], "pooling": "mean"})
        == "seat[pooling=mean,tests=[sent-weat6, weat7]]"
    )
    assert label_of("x", {"m": {"a": [1, 2]}}) == "x[m={a: [1, 2]}]"


def test_the_label_is_not_the_identity() -> None:
    made = PluginId.of("self_debias", {"bias_types": ["religion"]})
    assert made.label == "self_debias[bias_types=[religion]]"
    stored = PluginId(name="self_debias", options={"bias_types": ["religion"]}, label="old")
    assert stored == made and stored.label == "old"  # a stored label is kept as written


def test_version_1_labels_still_resolve_to_their_ids() -> None:
    ref = PluginId.of("seat", {"tests": ["weat6"]})
    assert IdResolver([ref])("seat[tests=['weat6']]") == ref
