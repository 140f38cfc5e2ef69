"""The caveat on extrinsic means over different sets of fine-tuning seeds: a seed that
failed the dev check for some models but not others, with each seed's mean shown."""

from __future__ import annotations

from audit.report.extrinsic_seeds import seed_set_caveat
from audit.results import ChosenCheckpoint, ExtrinsicRecord, ExtrinsicSeed
from tests.extrinsic.test_head_kinds import summary
from tests.test_studies import STS


def _seed(seed: int, value: float, kept: bool = True) -> ExtrinsicSeed:
    return ExtrinsicSeed(
        seed=seed,
        value=value,
        kept=kept,
        chosen_checkpoint=ChosenCheckpoint(step=10, rule="last", dev=0.7, scored=1, reason="t"),
        key=f"k{seed}",
        cached=False,
        seconds=1.0,
    )


def _record(model: str, seeds: list[ExtrinsicSeed]) -> ExtrinsicRecord:
    kept = [s.value for s in seeds if s.kept and s.value is not None]
    return ExtrinsicRecord(
        task="sts_bias",
        measure=STS,
        model=model,
        dataset="sts_b",
        value=sum(kept) / len(kept),
        n=30,
        finetune=summary("regression"),
        cached=False,
        key=f"k-{model}",
        detail={},
        seeds=seeds,
    )


def test_models_with_different_kept_seeds_get_the_caveat_with_each_seeds_mean() -> None:
    records = [
        _record("a", [_seed(13, 0.01), _seed(14, 0.09)]),
        _record("b", [_seed(13, 0.02), _seed(14, 0.11)]),
        _record("c", [_seed(13, 0.004), _seed(14, 0.2, kept=False)]),
    ]
    caveat = seed_set_caveat(records)
    assert caveat is not None and caveat.id == "seed-sets"
    assert "sts_bias: c (13)" in caveat.trigger
    assert "seed 13: 0.0113 over 3 models, seed 14: 0.1000 over 2 models" in caveat.trigger


def test_the_same_seeds_everywhere_or_no_seeds_give_none() -> None:
    same = [_record(m, [_seed(13, 0.01), _seed(14, 0.02)]) for m in "ab"]
    assert seed_set_caveat(same) is None
    assert seed_set_caveat([]) is None
