"""Time estimates of the work that encodes sentences with a model instead of scoring or
training on them: a post-hoc projection (INLP, SentenceDebias) and SEAT.

A projection's time (stage "projection"): its sentences times the base model's measured
seconds per sentence encoded (a sample of the job's own sentences through the
projection's encoder, at the variant's batch size and length, the model in float32 as
for training), plus the method's own computation after encoding (its `Rehearsal`, timed
once on random vectors of the real shape: one INLP iteration, counted iterations + 2
times; SentenceDebias's PCA once).

SEAT's time on a model (stage "scoring"): the distinct sentences of its tests times the
measured seconds per sentence (a sample of them through SEAT's encoder, in the run's
precision), plus its permutation tests, timed once on random vectors of each test's
sizes. A model whose SEAT results are in the cache is left out; a variant not made yet
is timed as its base.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from audit.calibration import spread_sample, time_encoding, time_once
from audit.pipeline.calibrator import (
    NOT_MEASURED,
    Calibrator,
    StageEstimate,
    per_unit,
    sample_hash,
    timed_as,
)
from audit.variants.labelled_data import labelled_of

if TYPE_CHECKING:
    from audit.measures.seat_options import SeatOptions
    from audit.models.loaded import LoadedModel
    from audit.pipeline.audit_plan import AuditPlan
    from audit.pipeline.seat_plan import SeatRun
    from audit.variants.jobs import VariantJob
    from audit.variants.methods.base import Rehearsal

Timing = Callable[["LoadedModel"], tuple[float, int]]


def projection_estimate(plan: AuditPlan, calibrator: Calibrator, job: VariantJob) -> StageEstimate:
    """A post-hoc variant's time: its sentences encoded, then its method's computation."""
    base = plan.models[job.base]
    training = job.training
    labelled = labelled_of(job.data)
    sentences = [s for group in labelled.values() for s in group]
    sample = spread_sample(sentences)
    what = f"{job.model_id} ({job.method.label} of {job.base}): {job.work_text()}"
    key = calibrator.key(
        "encode", base, training.batch_size, training.max_length, sample_hash([sample])
    )
    encoding = calibrator.throughput(
        key,
        job.base,
        float32=True,
        timing=_projection_encoding(sample, training.batch_size, training.max_length),
        basis=f"{len(sample)} of its sentences encoded by {job.base} on {base.device}",
    )
    if encoding is None:
        return StageEstimate("projection", what, None, NOT_MEASURED)
    seconds, basis = encoding.seconds(len(sentences)), per_unit(encoding, "sentence")
    if job.rehearsal is not None:
        rehearsal = job.rehearsal(job.options, job.data)
        shape = {name: len(group) for name, group in labelled.items()}
        fit_key = calibrator.key(
            "fit",
            base,
            job.method.name,
            json.dumps(job.options.model_dump(mode="json"), sort_keys=True),
            json.dumps(shape, sort_keys=True),
        )
        fitting = calibrator.throughput(
            fit_key,
            job.base,
            float32=True,
            timing=_rehearsal(rehearsal, sample, training.batch_size, training.max_length),
            basis=f"one {rehearsal.unit} timed on random vectors of its shape on {base.device}",
        )
        if fitting is None:
            return StageEstimate("projection", what, None, NOT_MEASURED)
        seconds += fitting.seconds(rehearsal.count)
        basis += f"; {rehearsal.count:,} x " + per_unit(fitting, rehearsal.unit)
    return StageEstimate("projection", what, seconds, basis)


def _projection_encoding(sample: Sequence[str], batch_size: int, max_length: int) -> Timing:
    from audit.variants.posthoc import projection_vectors

    def timing(loaded: LoadedModel) -> tuple[float, int]:
        def encode(texts: Sequence[str]) -> object:
            return projection_vectors(loaded, texts, batch_size=batch_size, max_length=max_length)

        return time_encoding(encode, sample), len(sample)

    return timing


def _rehearsal(
    rehearsal: Rehearsal, sample: Sequence[str], batch_size: int, max_length: int
) -> Timing:
    from audit.variants.posthoc import projection_vectors

    def timing(loaded: LoadedModel) -> tuple[float, int]:
        vectors = projection_vectors(loaded, sample, batch_size=batch_size, max_length=max_length)
        dim = int(vectors.values.shape[1])
        return time_once(lambda: rehearsal.run(dim)), 1

    return timing


def seat_estimates(plan: AuditPlan, calibrator: Calibrator) -> list[StageEstimate]:
    """Each `seat` entry on each model whose results are not in the cache."""
    if plan.seat is None:
        return []
    from audit.measures.seat_run import seat_texts
    from audit.pipeline.seat_stage import cache_path, seat_cache_key

    seed = plan.loaded.spec.seed
    estimates: list[StageEstimate] = []
    for run in plan.seat.runs:
        texts = seat_texts(run.tests)
        sample = spread_sample(texts)
        for model_id in run.models:
            model = plan.models.get(model_id)
            if model is not None:
                key = seat_cache_key(run, model, seed)
                if cache_path(plan.settings.cache_dir, key).is_file():
                    continue
            timed_on = timed_as(plan, model_id)
            what = (
                f"{model_id} x {run.measure.label}: {len(texts):,} sentences, "
                f"{len(run.tests):,} SEAT test{'' if len(run.tests) == 1 else 's'}"
            )
            if timed_on != model_id:
                what += f" (timed as its base {timed_on})"
            estimates.append(_seat_estimate(plan, calibrator, run, timed_on, sample, texts, what))
    return estimates


def _seat_estimate(
    plan: AuditPlan,
    calibrator: Calibrator,
    run: SeatRun,
    model_id: str,
    sample: list[str],
    texts: list[str],
    what: str,
) -> StageEstimate:
    model = plan.models[model_id]
    options = run.options
    encoding = calibrator.throughput(
        calibrator.key(
            "score", model, "seat", options.pooling, options.batch_size, sample_hash([sample])
        ),
        model_id,
        float32=False,
        timing=_seat_encoding(sample, options),
        basis=f"SEAT's encoder timed on {len(sample)} of its sentences with {model_id} on "
        f"{model.device}",
    )
    sizes = [[len(one.examples) for one in test.sets] for test in run.tests]
    tests = calibrator.throughput(
        calibrator.key("score", model, "seat-tests", options.n_samples, json.dumps(sizes)),
        model_id,
        float32=False,
        timing=_seat_tests(sizes, sample, options),
        basis=f"its {len(sizes)} permutation tests timed on random vectors of their sizes",
    )
    if encoding is None or tests is None:
        return StageEstimate("scoring", what, None, NOT_MEASURED)
    seconds = encoding.seconds(len(texts)) + tests.seconds(len(sizes))
    basis = f"{per_unit(encoding, 'sentence')}; {per_unit(tests, 'test')}"
    return StageEstimate("scoring", what, seconds, basis)


def _seat_encoding(sample: Sequence[str], options: SeatOptions) -> Timing:
    from audit.measures.seat_run import seat_vectors

    def timing(loaded: LoadedModel) -> tuple[float, int]:
        return time_encoding(lambda texts: seat_vectors(loaded, texts, options), sample), len(
            sample
        )

    return timing


def _seat_tests(sizes: list[list[int]], sample: Sequence[str], options: SeatOptions) -> Timing:
    def timing(loaded: LoadedModel) -> tuple[float, int]:
        import numpy as np

        from audit.measures.seat import seat_statistic
        from audit.measures.seat_run import seat_vectors

        dim = int(seat_vectors(loaded, sample[:1], options).shape[1])
        rng = np.random.default_rng(0)
        sets = [[rng.normal(size=(n, dim)) for n in test] for test in sizes]

        def all_tests() -> None:
            for x, y, a, b in sets:
                seat_statistic(x, y, a, b, n_samples=options.n_samples, seed=0)

        return time_once(all_tests), len(sizes)

    return timing
