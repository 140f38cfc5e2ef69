"""An extrinsic task's code in its fine-tunings' cache key: raising the task's card
version, or the version of the distribution it came from, fine-tunes its models again,
keeps every other task's fine-tunings cached, and `audit plan` says why; a built-in at
version 1 keeps the key it always had. The same for the head kind a fine-tuning's head
is of (`head_kinds.HEAD_KINDS`): raising its version fine-tunes again exactly the tasks
with a head of that kind."""

from __future__ import annotations

from pathlib import Path

from audit.extrinsic.catalog import EXTRINSIC_TASKS
from audit.extrinsic.finetune.settings import FineTuneSettings
from audit.extrinsic.finetune.store import FineTuneStore, finetune_key, finetune_store
from audit.pipeline.plan_text import _finetune_state
from audit.training.store import content_key
from tests.plugin_versions import head_kind_as, registered_as

SETTINGS = FineTuneSettings.model_validate({"steps": 4}).resolved("masked", 0)


#: The kind of each task's head (sts_bias: a regression, biasbios: a classifier).
HEAD_KIND = {"sts_bias": "regression", "biasbios": "classification", "nli_bias": "classification"}


def _store(cache: Path, task: str) -> FineTuneStore:
    """The store of one fine-tuning of `task` (as the registries have it now)."""
    return finetune_store(
        cache,
        head_kind=HEAD_KIND[task],
        model_fingerprint="f" * 64,
        task=task,
        task_options={"options": {}, "evaluation_sha256": "e"},
        settings=SETTINGS,
        data_sha256="d",
    )


def _make(store: FineTuneStore) -> None:
    """Store the fine-tuning as `cached_finetune` does: the weights, then its record."""
    store.root.mkdir(parents=True)
    store.weights_file.write_bytes(b"weights")
    store.finish({"key": store.key})


def test_raising_the_task_s_version_fine_tunes_it_again(tmp_path: Path) -> None:
    for task in ("sts_bias", "biasbios"):
        _make(_store(tmp_path, task))
    with registered_as(EXTRINSIC_TASKS, "sts_bias", version="3"):
        raised, other = _store(tmp_path, "sts_bias"), _store(tmp_path, "biasbios")
        assert not raised.is_done() and other.is_done()
        assert _finetune_state(raised) == (
            "to fine-tune (the cached copy was made by extrinsic task 'sts_bias' version 1, "
            "now version 3)"
        )
        assert _finetune_state(other) == "fine-tuned, in the cache"
    assert _store(tmp_path, "sts_bias").is_done()  # back at version 1


def test_a_new_distribution_version_fine_tunes_it_again(tmp_path: Path) -> None:
    with registered_as(EXTRINSIC_TASKS, "biasbios", version="2", distribution="my-tasks==1.0"):
        _make(_store(tmp_path, "biasbios"))
        _make(_store(tmp_path, "sts_bias"))
    with registered_as(EXTRINSIC_TASKS, "biasbios", version="2", distribution="my-tasks==2.0"):
        raised = _store(tmp_path, "biasbios")
        assert not raised.is_done() and _store(tmp_path, "sts_bias").is_done()
        assert _finetune_state(raised) == (
            "to fine-tune (the cached copy was made by extrinsic task 'biasbios' version 2 "
            "from my-tasks==1.0, now version 2 from my-tasks==2.0)"
        )


def test_a_built_in_at_version_1_keeps_the_key_it_had(tmp_path: Path) -> None:
    """sts_bias (version 1) keys as before versions entered keys; nli_bias, at version 2,
    holds its version (its fine-tunings made before could have been made by version 1)."""
    facts = {
        "model_fingerprint": "f" * 64,
        "task_options": {"options": {}, "evaluation_sha256": "e"},
        "settings": SETTINGS,
        "data_sha256": "d",
    }
    payload = {
        "format": 1,
        "model": "f" * 64,
        "options": facts["task_options"],
        "settings": SETTINGS.training_dump(),
        "data": "d",
    }
    assert _store(tmp_path, "sts_bias").key == content_key({**payload, "task": "sts_bias"})
    assert finetune_key(task="sts_bias", **facts) == _store(tmp_path, "sts_bias").key  # type: ignore[arg-type]
    assert EXTRINSIC_TASKS.entry("nli_bias").card.version == "2"
    assert finetune_key(task="nli_bias", **facts) == content_key(  # type: ignore[arg-type]
        {**payload, "task": "nli_bias", "code": {"version": "2"}}
    )


def test_raising_a_head_kind_s_version_fine_tunes_its_tasks_again(tmp_path: Path) -> None:
    for task in ("sts_bias", "biasbios"):
        _make(_store(tmp_path, task))
    with head_kind_as("regression", version="2"):
        raised, other = _store(tmp_path, "sts_bias"), _store(tmp_path, "biasbios")
        assert not raised.is_done() and other.is_done()
        assert _finetune_state(raised) == (
            "to fine-tune (the cached copy was made by extrinsic task 'sts_bias' version 1, "
            "now version 1 (head kind 'regression' version 2))"
        )
        _make(raised)
    with head_kind_as("regression", version="2", distribution="my-heads==0.1"):
        moved = _store(tmp_path, "sts_bias")
        assert _finetune_state(moved) == (
            "to fine-tune (the cached copy was made by extrinsic task 'sts_bias' version 1 "
            "(head kind 'regression' version 2), now version 1 (head kind 'regression' "
            "version 2 from my-heads==0.1))"
        )
    assert _store(tmp_path, "sts_bias").is_done()  # back at version 1: the old key


def test_a_built_in_head_kind_at_version_1_adds_nothing_to_the_key(tmp_path: Path) -> None:
    without = finetune_store(
        tmp_path,
        model_fingerprint="f" * 64,
        task="sts_bias",
        task_options={"options": {}, "evaluation_sha256": "e"},
        settings=SETTINGS,
        data_sha256="d",
    )
    assert _store(tmp_path, "sts_bias").key == without.key
