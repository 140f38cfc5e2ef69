"""A variant method's code in the variant's cache key: raising the method's card version,
or the version of the distribution it came from, makes its variants (trained ones and
post-hoc projections alike) be made again, keeps every other variant cached, and
`audit plan` says why; a built-in at version 1 keeps the key it always had."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from audit.pipeline.plan_text import describe_variants
from audit.training.store import content_key
from audit.variants.catalog import VARIANT_METHODS
from audit.variants.jobs import (
    BaseModelFacts,
    VariantJob,
    VariantPlan,
    data_sha256,
    plan_variants,
)
from audit.variants.settings import VariantSpec
from tests.plugin_versions import registered_as
from tests.variants.test_engine_variants import corpus_lines

VARIANTS = [
    {"id": "m-cda", "method": "cda"},  # trained
    {"id": "m-dropout", "method": "dropout"},  # trained
    {"id": "m-sd", "method": "sentence_debias"},  # a post-hoc projection
    {"id": "m-inlp", "method": "inlp", "options": {"iterations": 2}},  # a projection
]


@pytest.fixture
def planned(tmp_path: Path, shared_data: Path) -> Any:
    """`plan()`: the variants above of one base model, planned on one cache."""
    (tmp_path / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    specs = [
        VariantSpec.model_validate({**v, "base": "m", "corpus": {"path": "corpus.txt"}})
        for v in VARIANTS
    ]

    def plan() -> VariantPlan:
        return plan_variants(
            specs,
            bases={"m": BaseModelFacts(fingerprint="f" * 64, model_type="masked")},
            seed=0,
            data_dir=shared_data,
            base_dir=tmp_path,
            cache_dir=tmp_path / "cache",
        )

    return plan


def _make(job: VariantJob) -> None:
    """Store the job's variant as training would: the model, then its record."""
    job.store.model_dir.mkdir(parents=True)
    (job.store.model_dir / "config.json").write_text("{}")
    job.store.finish(job.describe())


def _plan_text(plan: VariantPlan) -> str:
    device = SimpleNamespace(device="cpu")
    return "\n".join(describe_variants(SimpleNamespace(variants=plan, models={"m": device})))  # type: ignore[arg-type]


def _line(text: str, model_id: str) -> str:
    (line,) = [x for x in text.splitlines() if x.startswith(f"  {model_id}: ")]
    return line


@pytest.mark.parametrize(("raised", "other"), [("cda", "m-dropout"), ("sentence_debias", "m-inlp")])
def test_raising_the_card_version_makes_that_method_s_variants_again(
    planned: Any, raised: str, other: str
) -> None:
    for job in planned().jobs:
        _make(job)
    assert all(job.cached for job in planned().jobs)
    with registered_as(VARIANT_METHODS, raised, version="2"):
        jobs = {job.model_id: job for job in planned().jobs}
        remade = [model_id for model_id, job in jobs.items() if not job.cached]
        assert remade == [job.model_id for job in jobs.values() if job.method.name == raised]
        assert jobs[other].cached
        text = _plan_text(planned())
        assert (
            f"(the cached copy was made by variant method '{raised}' version 1, now version 2)"
            in _line(text, remade[0])
        )
        assert _line(text, other).endswith("in the cache")
        _make(jobs[remade[0]])
        assert all(job.cached for job in planned().jobs)
    # back at version 1: its first variant is still there
    assert all(job.cached for job in planned().jobs)


def test_a_new_distribution_version_makes_its_variants_again(planned: Any) -> None:
    with registered_as(VARIANT_METHODS, "inlp", distribution="my-methods==1.0"):
        for job in planned().jobs:
            _make(job)
    with registered_as(VARIANT_METHODS, "inlp", distribution="my-methods==1.1"):
        jobs = {job.model_id: job for job in planned().jobs}
        assert [m for m, job in jobs.items() if not job.cached] == ["m-inlp"]
        assert (
            "to compute (the cached copy was made by variant method 'inlp' version 1 from "
            "my-methods==1.0, now version 1 from my-methods==1.1)"
        ) in _line(_plan_text(planned()), "m-inlp")
        assert jobs["m-inlp"].describe()["code"]["distribution"] == "my-methods==1.1"


def test_a_built_in_at_version_1_keeps_the_key_it_had(planned: Any) -> None:
    """The key of a built-in at version 1 is the payload's alone, as before versions
    entered keys (users' stored variants stay valid)."""
    job = planned().jobs[0]
    payload = {
        "format": 1,
        "base": "f" * 64,
        "method": "cda",
        "options": job.options.model_dump(mode="json"),
        "ratio": None,
        "training": {
            k: v for k, v in job.training.model_dump(mode="json").items() if k != "checkpoint_every"
        },
        "corpus": job.corpus.sha256,
        "data": data_sha256(job.data),
    }
    assert job.key == content_key(payload) == job.store.default_key


def test_a_variant_made_before_keys_held_versions_is_explained(planned: Any) -> None:
    """A variant stored under the default key with no record (made before versions
    entered keys) is not reused at version 2, and the plan says so."""
    job = planned().jobs[0]
    _make(job)
    records = job.store.root.parent / "code"
    for record in records.iterdir():
        record.unlink()
    with registered_as(VARIANT_METHODS, "cda", version="2"):
        line = _line(_plan_text(planned()), "m-cda")
    assert "at a version its key does not hold (version 1, or made before keys held " in line
    assert "now version 2)" in line
