"""Each extrinsic task entry is a dataset + a head + a metric: it names registered task
datasets, a known head kind and the record type its metric emits; a bad entry is refused
when it is made."""

from __future__ import annotations

import pytest

from audit.cards import PluginCard
from audit.data.catalog import TASK_DATASETS
from audit.extrinsic.catalog import EXTRINSIC_TASKS, ExtrinsicTaskEntry
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.extrinsic.options import StsBiasOptions
from audit.results import NliBiasResult, StsBiasResult, TprGapResult


def test_entries_name_their_datasets_head_and_metric() -> None:
    found = {e.name: (e.training, e.dataset, e.head, e.result) for e in EXTRINSIC_TASKS.entries()}
    assert found == {
        "sts_bias": ("sts_b", "sts_b", "regression", StsBiasResult),
        "biasbios": ("biasbios", "biasbios", "classification", TprGapResult),
        "nli_bias": ("nli", "nli_bias", "classification", NliBiasResult),
    }
    for entry in EXTRINSIC_TASKS.entries():
        assert entry.training in TASK_DATASETS and entry.dataset in TASK_DATASETS
        assert entry.head in HEAD_KINDS and entry.metric
        assert entry.card.has_role("extrinsic")


def _entry(**changes: object) -> ExtrinsicTaskEntry:
    card = PluginCard(kind="extrinsic_task", name="toy", title="Toy", summary="s", shape="pairs")
    fields: dict[str, object] = {
        "card": card,
        "options": StsBiasOptions,
        "target": "x:y",
        "training": "sts_b",
        "dataset": "sts_b",
        "head": "regression",
        "metric": "m",
        "result": StsBiasResult,
    }
    fields.update(changes)
    return ExtrinsicTaskEntry(**fields)  # type: ignore[arg-type]


def test_a_bad_entry_is_refused() -> None:
    assert _entry().head == "regression"
    with pytest.raises(ValueError, match="head 'ranking' is no registered head kind"):
        _entry(head="ranking")
    scorer = PluginCard(kind="scorer", name="toy", title="Toy", summary="s", shape="pairs")
    with pytest.raises(ValueError, match="has a scorer card"):
        _entry(card=scorer)
