"""Several fine-tuning seeds of one task on one model (`finetune.seeds` k > 1) as one
value: the mean over the seeds whose fine-tuning learned the task, its CI over the task's
evaluation items, and the spread across seeds.

Why: one fine-tuning is one draw of the head's initial weights, data order and dropout,
and the extrinsic value moves with it (STS-bias at step 120 vs step 240 of the same
fine-tunings ranks 12 models with Kendall tau 0.27). The mean over k seeds is steadier,
and the spread says how much one seed would have decided.

The rules:

- each seed is measured at its own chosen checkpoint (`finetune.checkpoint`);
- a seed whose fine-tuning failed the task's dev check is left out of the mean and named
  in the note; when every seed failed, the mean is over all of them and the model's dev
  check fails (so the correlations leave it out, as they do one failed fine-tuning);
- the CI of the mean comes from the seeds' item replicates (`ItemReplicates`): every seed
  is resampled with the same draws, so a replicate of the mean is the mean of the seeds'
  replicates; a task that gives no replicates gives the mean no CI;
- the curve is the mean over the kept seeds at each step (each seed's is in its entry).

No torch: this works on what the stage measured (`SeedRun`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audit.extrinsic.tasks.base import ItemReplicates, TaskValue
from audit.results import (
    ChosenCheckpoint,
    CurvePoint,
    DevCheck,
    ExtrinsicSeed,
    FineTuneSummary,
)
from audit.stats.intervals import bootstrap_interval


@dataclass(frozen=True, eq=False)
class SeedRun:
    """One seed's fine-tuning of a task on a model, measured at its chosen checkpoint."""

    seed: int
    summary: FineTuneSummary
    key: str
    cached: bool
    chosen: ChosenCheckpoint
    value: TaskValue
    dev_check: DevCheck | None
    curve: list[CurvePoint]
    replicates: ItemReplicates | None

    @property
    def passed(self) -> bool:
        """The fine-tuning learned the task (no dev set to check counts as learned)."""
        return self.dev_check is None or self.dev_check.passed

    def entry(self, *, kept: bool) -> ExtrinsicSeed:
        """This seed as results.json holds it."""
        return ExtrinsicSeed(
            seed=self.seed,
            value=self.value.value,
            ci_low=self.value.ci_low,
            ci_high=self.value.ci_high,
            note=self.value.note,
            kept=kept,
            dev_check=self.dev_check,
            chosen_checkpoint=self.chosen,
            curve=self.curve,
            key=self.key,
            cached=self.cached,
            seconds=self.summary.seconds,
        )


@dataclass(frozen=True)
class SeedMean:
    """The record's numbers from k seeds: the mean value with its CI and note, the dev
    check and curve of the kept seeds, the spread, each seed's entry, the replicates of
    the mean (None without), and `first`, the seed whose fine-tuning the record shows
    (the first kept one)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    note: str
    dev_check: DevCheck | None
    curve: list[CurvePoint]
    seed_sd: float | None
    seed_min: float | None
    seed_max: float | None
    seeds: list[ExtrinsicSeed]
    replicates: np.ndarray | None
    first: SeedRun


def combine_seeds(runs: Sequence[SeedRun], *, alpha: float, n_bootstrap: int) -> SeedMean:
    """The mean over the seeds that passed the dev check (over all when none did), with
    its CI from the mean of their item replicates (`n_bootstrap` each; 0: no CI asked
    for), the spread and each seed's entry (see the module docstring)."""
    if not runs:
        raise ValueError("no seeds to combine")
    passed = [r for r in runs if r.passed]
    counted = passed or list(runs)
    values = [r.value.value for r in counted if r.value.value is not None]
    mean = float(np.mean(values)) if values else None
    replicates = _mean_replicates(counted)
    ci_low = ci_high = None
    notes: list[str] = []
    if replicates is not None and counted[0].replicates is not None:
        first = counted[0].replicates
        interval = bootstrap_interval(
            replicates, alpha=alpha, n_items=first.n_items, counted=first.counted
        )
        ci_low, ci_high = interval.low, interval.high
        notes += [interval.note] if interval.note else []
    elif n_bootstrap > 0 and values:
        notes.append(
            "no interval: the task gives no replicates over its evaluation items to combine "
            "the seeds with"
        )
    notes.append(_which_seeds(runs, counted, passed))
    return SeedMean(
        value=mean,
        ci_low=ci_low,
        ci_high=ci_high,
        note="; ".join(notes),
        dev_check=_mean_dev_check(counted, passed=bool(passed)),
        curve=_mean_curve(counted),
        seed_sd=float(np.std(values, ddof=1)) if len(values) >= 2 else None,
        seed_min=min(values) if values else None,
        seed_max=max(values) if values else None,
        seeds=[r.entry(kept=r in counted) for r in runs],
        replicates=replicates,
        first=counted[0],
    )


def _mean_replicates(counted: Sequence[SeedRun]) -> np.ndarray | None:
    """The mean of the counted seeds' replicates (the same draws for every seed), None
    when a seed with a value has none."""
    arrays = [r.replicates.values for r in counted if r.replicates is not None]
    with_value = [r for r in counted if r.value.value is not None]
    if not arrays or len(arrays) != len(with_value):
        return None
    return np.mean(np.stack(arrays), axis=0)


def _which_seeds(
    runs: Sequence[SeedRun], counted: Sequence[SeedRun], passed: Sequence[SeedRun]
) -> str:
    """The note's account of the seeds: how many the mean is over, and each left out."""
    seeds = ", ".join(str(r.seed) for r in counted)
    text = f"mean of {len(counted)} fine-tuning seed{'s' if len(counted) > 1 else ''} ({seeds})"
    if not passed:
        return text + ": every seed failed the dev check"
    left = [r for r in runs if r not in counted]
    return text + "".join(f"; seed {r.seed} left out: {_failure(r)}" for r in left)


def _failure(run: SeedRun) -> str:
    check = run.dev_check
    assert check is not None
    value = "none" if check.value is None else f"{check.value:.2f}"
    return f"dev {check.metric} {value} below the floor {check.floor:.2f}"


def _mean_dev_check(counted: Sequence[SeedRun], *, passed: bool) -> DevCheck | None:
    """The counted seeds' dev check: their mean dev score, passed when a seed passed."""
    checks = [r.dev_check for r in counted if r.dev_check is not None]
    if not checks:
        return None
    scores = [c.value for c in checks if c.value is not None]
    return checks[0].model_copy(
        update={"value": float(np.mean(scores)) if scores else None, "passed": passed}
    )


def _mean_curve(counted: Sequence[SeedRun]) -> list[CurvePoint]:
    """At each step of the first counted seed's curve: the mean value and dev score of
    the counted seeds that have that step."""
    points: list[CurvePoint] = []
    for point in counted[0].curve:
        at = [p for r in counted for p in r.curve if p.step == point.step]
        values = [p.value for p in at if p.value is not None and math.isfinite(p.value)]
        devs = [p.dev for p in at if p.dev is not None]
        points.append(
            CurvePoint(
                step=point.step,
                value=float(np.mean(values)) if values else None,
                dev=float(np.mean(devs)) if devs else None,
            )
        )
    return points
