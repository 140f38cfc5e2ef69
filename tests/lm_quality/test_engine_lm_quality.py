"""The language-modelling cost through the engine on tiny models: the held-out text is
planned, scored through the score cache with the other units (a second run computes
nothing), each variant is compared with its base, the numbers match a perplexity
computed by hand from the model, results.json carries them (an older file still loads)
and the report shows them."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from audit.display import SilentDisplay
from audit.engine import RunOutcome, RunSettings, executed_steps, plan_audit, run_audit
from audit.errors import AuditUserError
from audit.lm_quality.heldout import HELD_OUT_DATASET
from audit.pipeline.plan_text import describe_plan
from audit.results_io import read_results
from audit.scoring.cache import ScoreCache
from audit.spec.loader import load_spec
from tests.models.tiny import save_tiny_bert, save_tiny_gpt2

SPEC = """\
spec_version: 1
name: lm-cost-test
seed: 4
bootstrap: 60
models:
  - {id: tiny-gpt2, source: {path: models/gpt2}}
  - {id: tiny-bert, source: {path: models/bert}}
datasets:
  - {name: crows_pairs, limit: 12}
scorers: {masked: [cps], causal: [ll]}
measures: [bias_score]
lm_quality: {text: {path: heldout.txt}, sentences: 12, damage_threshold: 0.2}
variants:
  - id: gpt2-dropout
    base: tiny-gpt2
    method: dropout
    corpus: {path: corpus.txt}
    training: {steps: 2, batch_size: 4, max_length: 16}
  - id: bert-cda
    base: tiny-bert
    method: cda
    corpus: {path: corpus.txt}
    training: {steps: 2, batch_size: 4, max_length: 16}
report: {formats: []}
"""

CORPUS = ["he is a doctor .", "she is a nurse .", "the man went home .", "a woman sat down ."]
HELD_OUT = [
    "the cat sat on the mat .",
    "it rained all day .",
    "we went to the shop .",
    "the dog ran home .",
    "a bird sang in the tree .",
    "the sun is warm .",
    "they ate bread .",
    "the car is red .",
    "he is a doctor .",  # also in the training corpus: removed
    "the book was long .",
    "she read the letter .",
    "the river is cold .",
    "the cat sat on the mat .",  # a repeat: dropped
    "the door was open .",
    "the house is old .",
]


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    root = tmp_path_factory.mktemp("lm-cost")
    # a data folder without sts_b/ (the default held-out text is missing)
    for name in ("crows_pairs", "wordlists", "winogender"):
        shutil.copytree(shared_data / name, root / "data" / name)
    save_tiny_gpt2(root / "models" / "gpt2")
    save_tiny_bert(root / "models" / "bert")
    (root / "spec.yaml").write_text(SPEC)
    (root / "corpus.txt").write_text("\n".join(CORPUS * 3) + "\n")
    (root / "heldout.txt").write_text("\n".join(HELD_OUT) + "\n")
    return root


def _settings(root: Path, cache: Path, out: str, data: Path | None = None) -> RunSettings:
    data_dir = root / "data" if data is None else data
    return RunSettings(out_dir=root / out, cache_dir=cache, data_dir=data_dir, device="cpu")


@pytest.fixture(scope="module")
def runs(
    spec_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[RunOutcome, RunOutcome, Path]:
    cache = tmp_path_factory.mktemp("cache")
    loaded = load_spec(spec_dir / "spec.yaml")
    first = run_audit(loaded, _settings(spec_dir, cache, "out1"), SilentDisplay())
    second = run_audit(loaded, _settings(spec_dir, cache, "out2"), SilentDisplay())
    return first, second, cache


def test_held_out_text_is_kept_apart_from_training_and_sampled(
    runs: tuple[RunOutcome, RunOutcome, Path],
) -> None:
    section = runs[0].result.lm_quality
    assert section is not None
    text = section.text
    # 14 unique sentences, 1 of them in the training corpus, 12 of the 13 left drawn
    assert (text.read, text.overlap_removed, text.available, text.sentences) == (14, 1, 13, 12)
    assert text.label == "heldout.txt" and text.seed == 4
    assert section.damage_threshold == 0.2


def test_each_variant_against_its_base(runs: tuple[RunOutcome, RunOutcome, Path]) -> None:
    section = runs[0].result.lm_quality
    assert section is not None
    assert [(r.variant, r.base, r.kind, r.scorer.label) for r in section.records] == [
        ("gpt2-dropout", "tiny-gpt2", "perplexity", "ll"),
        ("bert-cda", "tiny-bert", "pseudo-perplexity", "pll"),
    ]
    for r in section.records:
        assert r.sentences == 12
        assert r.ratio == pytest.approx(r.variant_perplexity.value / r.base_perplexity.value)
        assert r.ratio_ci_low is not None and r.ratio_ci_high is not None
        assert r.damage in ("damaged", "not damaged", "unclear")
    units = [(u.model, u.dataset, u.scorer.label) for u in section.units]
    assert units == [
        ("tiny-gpt2", HELD_OUT_DATASET, "ll"),
        ("gpt2-dropout", HELD_OUT_DATASET, "ll"),
        ("tiny-bert", HELD_OUT_DATASET, "pll"),
        ("bert-cda", HELD_OUT_DATASET, "pll"),
    ]
    # the held-out units are not among the audit's own units, nor in scores.parquet
    assert all(u.dataset != HELD_OUT_DATASET for u in runs[0].result.units)
    assert HELD_OUT_DATASET not in set(runs[0].scores["dataset"])


def test_the_causal_perplexity_is_the_models_own(
    runs: tuple[RunOutcome, RunOutcome, Path], spec_dir: Path
) -> None:
    """exp(-sum log P(w_t | w_<t) / tokens), BOS prepended, computed here from the model."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    section = runs[0].result.lm_quality
    assert section is not None
    record = section.records[0]
    plan = plan_audit(
        load_spec(spec_dir / "spec.yaml"),
        _settings(spec_dir, runs[2], "o"),
        SilentDisplay(),
    )
    assert plan.lm_quality is not None
    sentences = [item.text for item in plan.lm_quality.text.dataset.labelled_items()]
    tokenizer = AutoTokenizer.from_pretrained(spec_dir / "models" / "gpt2")
    model = AutoModelForCausalLM.from_pretrained(spec_dir / "models" / "gpt2").eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for sentence in sentences:
            ids = [tokenizer.bos_token_id, *tokenizer(sentence)["input_ids"]]
            logits = model(torch.tensor([ids])).logits[0].double()
            logp = torch.log_softmax(logits, dim=-1)
            total += sum(float(logp[t - 1, ids[t]]) for t in range(1, len(ids)))
            tokens += len(ids) - 1
    assert record.base_perplexity.tokens == tokens
    assert record.base_perplexity.value == pytest.approx(math.exp(-total / tokens), rel=1e-6)


def test_scored_through_the_cache_and_planned(
    runs: tuple[RunOutcome, RunOutcome, Path], spec_dir: Path
) -> None:
    first, second, cache = runs
    assert first.result.lm_quality is not None and second.result.lm_quality is not None
    assert all(u.computed > 0 for u in first.result.lm_quality.units)
    assert all(u.computed == 0 and u.cached > 0 for u in second.result.lm_quality.units)
    assert second.result.lm_quality.records == first.result.lm_quality.records
    loaded = load_spec(spec_dir / "spec.yaml")
    plan = plan_audit(loaded, _settings(spec_dir, cache, "o"), SilentDisplay())
    assert second.executed == plan.steps() == executed_steps(second.result)
    assert f"score gpt2-dropout x {HELD_OUT_DATASET} x ll" in plan.steps()
    text = describe_plan(plan, ScoreCache(cache))
    assert "Language-modelling cost" in text
    assert "held-out text heldout.txt: 12 of 14 sentences, 1 removed as training text" in text
    assert f"  bert-cda x {HELD_OUT_DATASET} x pll: 12 sentences; all in the cache" in text


def test_results_round_trip_and_an_older_file_loads(
    runs: tuple[RunOutcome, RunOutcome, Path], tmp_path: Path
) -> None:
    first = runs[0]
    path = first.out_dir / "results.json"
    again = read_results(path)
    assert again.lm_quality == first.result.lm_quality
    data = json.loads(path.read_text())
    data.pop("lm_quality")
    data["results_version"] = "2.2"
    old = tmp_path / "results.json"
    old.write_text(json.dumps(data))
    read = read_results(old)
    assert read.lm_quality is None and read.read_notes is None


def test_the_report_shows_the_cost_beside_the_bias_change(
    runs: tuple[RunOutcome, RunOutcome, Path],
) -> None:
    from audit.report.build import build_report

    report = build_report(runs[0].result, runs[0].scores)
    tables = [t for s in report.variant_sections for t in s.tables if t.id == "lm-cost-table"]
    (table,) = tables
    assert [row[0].text for row in table.rows] == ["gpt2-dropout", "bert-cda"]
    assert "Bias change (variant − base)" in table.columns
    # The bias-change cell counts the verdicts of every comparison with the base (so it
    # stays short however many measures there are) and names only the measures that moved.
    comparisons = runs[0].result.comparisons
    for row in table.rows:
        mine = [c for c in comparisons if c.model_a == row[0].text and c.group == "all"]
        counts = re.match(r"(\d+) measures?: ([^.]*)", row[-1].text)
        assert counts is not None and int(counts.group(1)) == len(mine) > 0
        tally = {w: int(n) for n, w in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", counts.group(2))}
        assert tally == dict(Counter(c.verdict for c in mine))
        moved = [c for c in mine if c.verdict not in ("no detectable change", "undefined")]
        assert ("Moved:" in row[-1].text) == bool(moved)
    caveat = next(c for c in report.caveats if c.id == "lm-quality-text")
    assert "12 sentences" in caveat.text and "heldout.txt" in caveat.text
    assert any(
        b.heading in ("Damaged by debiasing.", "Possibly damaged.", "Language-modelling cost.")
        for b in report.summary.variants
    )


def test_disabled_and_missing_text(spec_dir: Path, tmp_path: Path) -> None:
    spec = (spec_dir / "spec.yaml").read_text()
    for name in ("corpus.txt", "heldout.txt"):
        (tmp_path / name).write_text((spec_dir / name).read_text())

    def plan_of(text: str) -> object:
        path = tmp_path / "spec.yaml"
        path.write_text(text.replace("path: models/", f"path: {spec_dir}/models/"))
        settings = _settings(tmp_path, tmp_path / "c", "o", data=spec_dir / "data")
        return plan_audit(load_spec(path), settings, SilentDisplay())

    off = spec.replace("{text: {path: heldout.txt}, sentences: 12, damage_threshold: 0.2}",
                       "{enabled: false}")  # fmt: skip
    assert plan_of(off).lm_quality is None  # type: ignore[attr-defined]
    default = spec.replace(
        "lm_quality: {text: {path: heldout.txt}, sentences: 12, damage_threshold: 0.2}\n", ""
    )
    with pytest.raises(AuditUserError, match=r"lm_quality.text \(sts_b_test\): STS-B test "
                       r"split: .*sts-test.tsv does not exist"):  # fmt: skip
        plan_of(default)
    only_training = spec.replace("path: heldout.txt", "path: corpus.txt")
    with pytest.raises(AuditUserError, match="nothing is held out"):
        plan_of(only_training)


def test_page_one_flags_damaged_variants_only(runs: tuple[RunOutcome, RunOutcome, Path]) -> None:
    from audit.report.index import MeasurementIndex
    from audit.report.lm_cost import lm_cost_blocks

    result = runs[0].result
    section = result.lm_quality
    assert section is not None
    gpt2, bert = section.records

    def blocks_for(*records: object) -> dict[str, list[str]]:
        changed = section.model_copy(update={"records": list(records)})
        index = MeasurementIndex(result.model_copy(update={"lm_quality": changed}))
        return {b.heading: b.items for b in lm_cost_blocks(index)}

    damaged = gpt2.model_copy(update={"ratio": 1.5, "ratio_ci_low": 1.3, "ratio_ci_high": 1.7,
                                      "damage": "damaged"})  # fmt: skip
    fine = bert.model_copy(update={"ratio": 1.05, "ratio_ci_low": 1.0, "ratio_ci_high": 1.1,
                                   "damage": "not damaged"})  # fmt: skip
    shown = blocks_for(damaged, fine)
    assert list(shown) == ["Damaged by debiasing."]
    (item,) = shown["Damaged by debiasing."]
    assert item.startswith("gpt2-dropout (of tiny-gpt2): perplexity ")
    assert "(+50%, ratio 1.500 [1.300, 1.700])" in item
    assert list(blocks_for(fine)) == ["Language-modelling cost."]
    unclear = fine.model_copy(update={"ratio": 1.15, "ratio_ci_high": 1.3, "damage": "unclear"})
    assert list(blocks_for(unclear)) == ["Possibly damaged."]


def test_a_report_says_when_the_cost_of_its_variants_was_not_measured(
    runs: tuple[RunOutcome, RunOutcome, Path],
) -> None:
    from audit.report.build import build_report

    result = runs[0].result
    off = result.model_copy(update={"lm_quality": None})
    ids = {c.id: c for c in build_report(off, runs[0].scores).caveats}
    assert "lm-quality-text" not in ids
    assert "enabled: false" in ids["lm-quality-not-measured"].text
    assert "2 variants" in ids["lm-quality-not-measured"].text
    measured = {c.id for c in build_report(result, runs[0].scores).caveats}
    assert "lm-quality-not-measured" not in measured
