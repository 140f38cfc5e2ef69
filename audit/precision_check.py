"""The precision check (issue 12): what a reduced precision changed, on a seeded sample.

A model whose spec asks for `dtype: bfloat16` or `float16` is scored in that dtype. After
scoring, this stage scores a seeded sample of every dataset's items (the model's
`precision_check`, 200 by default; 0 turns it off) again in float32 and records, per
(model, dataset, scorer), how many item verdicts flipped and the largest score
difference (`results.PrecisionCheck`).

The float32 scores are ordinary score-cache entries: a second, smaller set of units with
the float32 precision in their cache key, restricted to the sample items. A rerun finds
them in the cache and loads no model; a float32 audit of the same model reuses them.

The sample of a dataset depends on the audit's seed and the dataset's name only, so every
model and scorer is checked on the same items; a smaller sample is a prefix of a larger
one (the first items of one seeded permutation), kept in dataset order.

An item's verdict is the sign of f(S_st) - f(S_at) (st preferred, at preferred or a tie),
the same for every scorer whatever its direction: a flip is any change of it, a new tie
included. Labelled statements have no verdict of their own (their measures compare
groups of statements), so only their score differences are recorded.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from audit.results import PrecisionCheck
from audit.scoring.cache import Entry, ModelIdentity, ScoreCache
from audit.scoring.inputs import Side, side_scores
from audit.scoring.runner import ModelHandle, read_entries, score_unit, unit_input
from audit.scoring.units import ScoreUnit

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.models.chat_template import ChatFormat
    from audit.models.prepared import ModelLoader, PreparedModel
    from audit.models.sources import ModelSpec

#: The dtypes that are checked against float32.
REDUCED_DTYPES = frozenset({"bfloat16", "float16"})
#: What the check scores in.
REFERENCE_DTYPE = "float32"


def sample_positions(n_items: int, size: int, *, seed: int, dataset: str) -> list[int]:
    """Positions of the `size` sampled items among `n_items`, ascending (all if fewer).

    Seeded by the audit's seed and the dataset's name: the same arguments give the same
    positions, and a smaller `size` gives a subset of a larger one's.
    """
    if size <= 0 or n_items <= 0:
        return []
    digest = hashlib.sha256(f"precision-check\n{seed}\n{dataset}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    order = rng.permutation(n_items)
    return sorted(int(i) for i in order[: min(size, n_items)])


def sample_dataset(dataset: LoadedDataset, size: int, *, seed: int) -> LoadedDataset:
    """The dataset restricted to its sampled items (same name, shape and provenance)."""
    positions = sample_positions(len(dataset.items), size, seed=seed, dataset=dataset.name)
    items = [dataset.items[i] for i in positions]
    return dataclasses.replace(dataset, items=items)  # type: ignore[arg-type]


def verdict(sides: Mapping[Side, float]) -> int | None:
    """The sign of st - at (1 st preferred, -1 at preferred, 0 tie); None when the item has
    no st/at pair or either score is not a number."""
    st, at = sides.get("st"), sides.get("at")
    if st is None or at is None or math.isnan(st) or math.isnan(at):
        return None
    return int(np.sign(st - at))


@dataclass(frozen=True)
class Comparison:
    """One unit's sample in the reduced precision against float32 (the last fields of its
    `PrecisionCheck`, named as there)."""

    items: int
    verdicts: int
    flipped: int | None
    max_abs_diff: float | None
    max_diff_item: str | None


def compare(
    unit: ScoreUnit,
    sample: LoadedDataset,
    reduced: Mapping[str, Entry],
    reference: Mapping[str, Entry],
    chat: ChatFormat | None = None,
) -> Comparison:
    """Verdict flips and the largest score difference over the sample's items.

    A verdict counts when the float32 one is defined; it flips when the reduced one
    differs (a verdict that became undefined counts as flipped). Score differences skip
    sides whose scores are not both finite.
    """
    shape = unit_input(unit.scorer)
    verdicts = flipped = 0
    largest: float | None = None
    where: str | None = None
    for item in sample.items:
        refs = shape.sides(item, chat)
        low = {side: s.score for side, s in side_scores(refs, reduced)}
        full = {side: s.score for side, s in side_scores(refs, reference)}
        for side, value in low.items():
            diff = abs(value - full[side])
            if math.isfinite(diff) and (largest is None or diff > largest):
                largest, where = diff, item.item_id
        expected = verdict(full)
        if expected is not None:
            verdicts += 1
            flipped += int(verdict(low) != expected)
    has_verdicts = sample.shape == "pairs"
    return Comparison(
        items=len(sample.items),
        verdicts=verdicts,
        flipped=flipped if has_verdicts else None,
        max_abs_diff=largest,
        max_diff_item=where,
    )


def reduced_dtype(spec: ModelSpec) -> str | None:
    """The reduced precision a model is checked for (a dtype, or 'llama.cpp' for a GGUF
    scored by a llama.cpp server), None when it runs in float32 or its check is turned
    off (`precision_check: 0`)."""
    if spec.precision_check <= 0:
        return None
    if spec.backend == "llama_cpp":
        return "llama.cpp"
    return spec.dtype if spec.dtype in REDUCED_DTYPES else None


def reference_spec(spec: ModelSpec) -> ModelSpec:
    """The spec as the check scores it: float32 weights in PyTorch."""
    return spec.model_copy(update={"dtype": REFERENCE_DTYPE, "backend": "torch"})


def run_precision_checks(
    models: Iterable[tuple[str, PreparedModel]],
    units: Sequence[ScoreUnit],
    datasets: Mapping[str, LoadedDataset],
    *,
    seed: int,
    cache: ScoreCache,
    loader: ModelLoader,
    display: Display,
) -> list[PrecisionCheck]:
    """Score the sample of every reduced-precision model's units in float32 (missing cache
    entries only) and compare. `models` are the run's models (id, prepared model) in run
    order; `loader` prepares and loads the float32 copy of a model's spec."""
    checked = [
        (model_id, model, dtype)
        for model_id, model in models
        if (dtype := reduced_dtype(model.spec)) is not None
    ]
    if not checked:
        return []
    display.stage("precision check")
    records: list[PrecisionCheck] = []
    for model_id, model, dtype in checked:
        mine = [u for u in units if u.model == model_id]
        if not mine:
            continue
        size = model.spec.precision_check
        samples = {
            name: sample_dataset(datasets[name], size, seed=seed)
            for name in dict.fromkeys(u.dataset for u in mine)
        }
        reference = loader.prepare(reference_spec(model.spec))
        handle = ModelHandle(
            model_id=model_id,
            fingerprint=reference.fingerprint,
            precision=reference.precision,
            load=functools.partial(loader.load, reference),
            chat=model.chat,
            dataset_chats=model.dataset_chats,
        )
        try:
            for unit in mine:
                sample = samples[unit.dataset]
                if not sample.items:
                    continue
                check_unit = ScoreUnit(f"{model_id} (float32 check)", unit.dataset, unit.scorer)
                score_unit(check_unit, model=handle, dataset=sample, cache=cache, display=display)
                found = compare(
                    unit,
                    sample,
                    read_entries(
                        unit,
                        dataset=sample,
                        cache=cache,
                        model=ModelIdentity(
                            model.fingerprint, model.precision, model.chat, model.dataset_chats
                        ),
                    ),
                    read_entries(unit, dataset=sample, cache=cache, model=handle.identity),
                    model.chat_for(unit.dataset),
                )
                record = PrecisionCheck(
                    model=model_id,
                    dataset=unit.dataset,
                    scorer=unit.scorer,
                    dtype=dtype,
                    precision=model.precision,
                    reference=reference.precision,
                    seed=seed,
                    **dataclasses.asdict(found),  # its fields are the record's, named alike
                )
                records.append(record)
                display.info(describe(record))
        finally:
            handle.release()
    return records


def describe(record: PrecisionCheck) -> str:
    """One line for the run's log."""
    head = f"{record.model} · {record.dataset} · {record.scorer.label}: {record.dtype} vs float32"
    diff = "n/a" if record.max_abs_diff is None else f"{record.max_abs_diff:.3g}"
    if record.flipped is None:
        return f"{head} on {record.items} items, largest score difference {diff}"
    return (
        f"{head}: {record.flipped} of {record.verdicts} verdicts flipped, "
        f"largest score difference {diff}"
    )
