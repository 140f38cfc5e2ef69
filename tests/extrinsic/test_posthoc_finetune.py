"""Post-hoc debiased variants (INLP, SentenceDebias: a fixed projection of the last hidden
states, `audit.models.projection`) are fine-tuned like any model: the task head reads the
projected states (a projection that zeroes everything leaves the head nothing to read,
so every prediction is the same), the projection stays fixed (it is no parameter of the
fine-tuning), a cached fine-tuning is rebuilt with it, and the fine-tuning's cache key
holds it (through the variant's fingerprint): a variant with its base's weights is
fine-tuned and measured apart from its base."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from audit.display import SilentDisplay
from audit.engine import RunOutcome, run_audit
from audit.extrinsic.finetune.store import cached_finetune, load_finetuned
from audit.extrinsic.finetune.tune import finetune
from audit.extrinsic.kinds.regression import REGRESSION, predict_similarity
from audit.models.loaded import LoadedModel
from audit.models.projection import attach_projection
from audit.spec.loader import load_spec
from tests.extrinsic.test_engine_extrinsic import make_spec_dir, settings_for
from tests.extrinsic.test_finetune import learnable_rows, load_tiny, settings, tiny_dirs
from tests.variants.test_engine_variants import corpus_lines

__all__ = ["tiny_dirs"]


def projected(dirs: dict[str, Path], matrix: torch.Tensor | None) -> LoadedModel:
    loaded = load_tiny(dirs, "bert")
    if matrix is not None:
        attach_projection(loaded.model, matrix)
    return loaded


def hidden(loaded: LoadedModel) -> int:
    return int(loaded.model.config.hidden_size)


def pairs() -> list[tuple[str, str]]:
    return [(r.sentence1, r.sentence2) for r in learnable_rows()]


def test_the_head_reads_the_projected_states(tiny_dirs: dict[str, Path], tmp_path: Path) -> None:
    rows = learnable_rows()
    plain = projected(tiny_dirs, None)
    zero = projected(tiny_dirs, torch.zeros(hidden(plain), hidden(plain)))
    tuned = {
        name: finetune(
            loaded, REGRESSION, rows, rows[:8], settings=settings(), work_dir=tmp_path / name
        )
        for name, loaded in (("plain", plain), ("zero", zero))
    }
    constant = predict_similarity(tuned["zero"].model, pairs())
    varied = predict_similarity(tuned["plain"].model, pairs())
    assert np.ptp(constant) < 1e-5 < np.ptp(varied)
    # fixed: the projection is no parameter, so both fine-tune the same weights
    sizes = {k: v.summary.trainable_parameters for k, v in tuned.items()}
    assert sizes["zero"] == sizes["plain"]
    assert torch.count_nonzero(zero.model.base_model(**_batch(zero)).last_hidden_state) == 0


def _batch(loaded: LoadedModel) -> dict[str, torch.Tensor]:
    return dict(loaded.tokenizer(["a nurse is walking ."], return_tensors="pt"))


def test_a_cached_fine_tuning_is_rebuilt_with_its_projection(
    tiny_dirs: dict[str, Path], tmp_path: Path
) -> None:
    rows = learnable_rows()
    zero = projected(tiny_dirs, None)
    attach_projection(zero.model, torch.zeros(hidden(zero), hidden(zero)))
    options = {
        "task": "sts_bias",
        "task_options": {},
        "settings": settings(),
        "cache_dir": tmp_path,
    }
    stored = cached_finetune(zero, REGRESSION, rows, rows[:8], **options)
    again = cached_finetune(zero, REGRESSION, rows, rows[:8], **options)
    assert again.cached and again.key == stored.key
    rebuilt = load_finetuned(zero, again)
    assert np.ptp(predict_similarity(rebuilt, pairs())) < 1e-5


SPEC = """\
spec_version: 1
name: posthoc-extrinsic
seed: 5
bootstrap: 40
models:
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 16}
scorers: {masked: [cps]}
measures: [bias_score]
lm_quality: {enabled: false}
variants:
  - {id: bert-inlp, base: tiny-bert, method: inlp, corpus: {path: corpus.txt},
     training: {batch_size: 8, max_length: 16}, options: {iterations: 3}}
  - {id: bert-sd, base: tiny-bert, method: sentence_debias, corpus: {path: corpus.txt},
     training: {batch_size: 8, max_length: 16}}
extrinsic:
  - task: sts_bias
    options: {max_templates: 6, occupations_file: occupations.tsv}
    finetune: {steps: 6, batch_size: 8, max_length: 32, checkpoint_every: 3,
               learning_rate: 1.0e-3}
report: {formats: []}
"""


@pytest.fixture(scope="module")
def posthoc_run(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> RunOutcome:
    root = make_spec_dir(tmp_path_factory.mktemp("posthoc-extrinsic"), shared_data)
    (root / "data" / "seat").mkdir()
    words = shared_data / "seat" / "bias_attribute_words.json"
    (root / "data" / "seat" / words.name).write_bytes(words.read_bytes())
    (root / "corpus.txt").write_text("\n".join(corpus_lines()) + "\n")
    (root / "spec.yaml").write_text(SPEC)
    cache = tmp_path_factory.mktemp("cache")
    return run_audit(load_spec(root / "spec.yaml"), settings_for(root, cache), SilentDisplay())


def test_projected_variants_are_fine_tuned_apart_from_their_base(posthoc_run: RunOutcome) -> None:
    records = {r.model: r for r in posthoc_run.result.extrinsic}
    assert list(records) == ["tiny-bert", "bert-inlp", "bert-sd"]
    # the same weights, seed and data: only the projection (in the fingerprint) differs
    fingerprints = {m.id: m.fingerprint for m in posthoc_run.result.models}
    assert len(set(fingerprints.values())) == 3
    assert len({r.key for r in records.values()}) == 3, "the key holds the projection"
    sizes = {r.finetune.trainable_parameters for r in records.values()}
    assert len(sizes) == 1, "the projection is not fine-tuned"
    base = records["tiny-bert"]
    for variant in ("bert-inlp", "bert-sd"):
        curve = [p.value for p in records[variant].curve]
        assert curve != [p.value for p in base.curve], f"{variant} measured as its base"
