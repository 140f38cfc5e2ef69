"""Run one scoring unit through the score cache, and read its rows back.

Work is done in chunks and each chunk is written to the cache as soon as it is scored,
so an interrupted run loses at most one chunk. Rows for `scores.parquet` are always read
back from the cache, never held from the computation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit.data.items import LabelledItem, LoadedDataset, PairItem, TemplateSlots
from audit.results import UnitRecord
from audit.scoring.cache import Entry, ScoreCache, ScoreNamespace, text_key
from audit.scoring.catalog import SCORERS, scorer_info, scorer_options_model
from audit.scoring.table import GROUP_SEPARATOR

if TYPE_CHECKING:
    from audit.display import Display
    from audit.models.loaded import LoadedModel
    from audit.plan import ScoreUnit

#: Sentences (or pairs) per cache write.
CHUNK = 1024


@dataclass
class ModelHandle:
    """A model known by fingerprint and precision, whose weights load only on first use:
    a rerun whose scores are all cached never loads a model."""

    model_id: str
    fingerprint: str
    precision: str  # "<device type>/<dtype>", part of every cache key
    load: Callable[[], LoadedModel]
    _model: LoadedModel | None = field(default=None, repr=False)

    def get(self) -> LoadedModel:
        if self._model is None:
            self._model = self.load()
        return self._model

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    def release(self) -> None:
        self._model = None


@dataclass(frozen=True)
class Job:
    """One cache entry to fill: the texts scored together (one sentence, or a pair)."""

    key: str
    texts: tuple[str, ...]


def _slots_texts(item: PairItem) -> tuple[str, ...]:
    if item.probe is None:
        raise ValueError(f"item {item.item_id} has no template slots")
    return ("[template slots]", item.probe.attribute, item.probe.target_st, item.probe.target_at)


def unit_jobs(unit: ScoreUnit, dataset: LoadedDataset) -> list[Job]:
    """The distinct cache entries a unit needs, in dataset order."""
    kind = scorer_info(unit.scorer).unit
    texts: list[tuple[str, ...]] = []
    if dataset.shape == "pairs":
        for item in dataset.pair_items():
            if kind == "template":
                texts.append(_slots_texts(item))
            elif kind == "pair":
                texts.append((item.stereotype, item.anti_stereotype))
            else:
                texts.extend([(item.stereotype,), (item.anti_stereotype,)])
                if item.unrelated is not None:
                    texts.append((item.unrelated,))
    else:
        texts.extend((item.text,) for item in dataset.labelled_items())
    jobs = {text_key(t): Job(text_key(t), t) for t in texts}
    return list(jobs.values())


def open_namespace(
    unit: ScoreUnit, cache: ScoreCache, *, fingerprint: str, precision: str
) -> ScoreNamespace:
    options = scorer_options_model(unit.scorer).model_validate(unit.options)
    return cache.namespace(
        model_fingerprint=fingerprint,
        scorer=scorer_info(unit.scorer),
        options=options,
        precision=precision,
    )


def _work(job: Job, kind: str) -> int:
    """Sentences a job scores: one, two for a pair, and for template slots the two
    targets (progress then counts template x item combinations)."""
    return 2 if kind == "template" else len(job.texts)


def _chunks(jobs: list[Job], size: int) -> Iterator[list[Job]]:
    for start in range(0, len(jobs), size):
        yield jobs[start : start + size]


def score_unit(
    unit: ScoreUnit,
    *,
    model: ModelHandle,
    dataset: LoadedDataset,
    cache: ScoreCache,
    display: Display,
) -> UnitRecord:
    """Fill the cache for every entry of `unit` that is not there yet; the model's
    weights are loaded only if something is missing."""
    started = time.monotonic()
    info = scorer_info(unit.scorer)
    namespace = open_namespace(
        unit, cache, fingerprint=model.fingerprint, precision=model.precision
    )
    try:
        jobs = unit_jobs(unit, dataset)
        found, stats = namespace.get_many(j.key for j in jobs)
        missing = [j for j in jobs if j.key not in found]
        sentences = sum(_work(j, info.unit) for j in missing)
        key = f"{unit.model}/{unit.dataset}/{unit.label}"
        if missing:
            scorer = SCORERS.get(unit.scorer)
            options = scorer.options_model.model_validate(unit.options)
            loaded = model.get()
            display.start(key, f"{unit.model} · {unit.dataset} · {unit.label}", sentences)
        for chunk in _chunks(missing, CHUNK):

            def progress(n: int, key: str = key) -> None:
                display.advance(key, n)

            entries: dict[str, Entry]
            if info.unit == "template":
                slots = [TemplateSlots(*j.texts[1:]) for j in chunk]
                scored = scorer.score_slots(  # type: ignore[attr-defined]
                    loaded, slots, options=options, progress=progress
                )
                entries = {j.key: s for j, s in zip(chunk, scored, strict=True)}
            elif info.unit == "pair":
                pairs = [(j.texts[0], j.texts[1]) for j in chunk]
                scored = scorer.score_pairs(loaded, pairs, options=options, progress=progress)
                entries = {j.key: s for j, s in zip(chunk, scored, strict=True)}
            else:
                flat = [j.texts[0] for j in chunk]
                singles = scorer.score_sentences(loaded, flat, options=options, progress=progress)
                entries = {j.key: (s,) for j, s in zip(chunk, singles, strict=True)}
            namespace.put_many(entries)
        if missing:
            display.finish(key)
    finally:
        namespace.close()
    return UnitRecord(
        model=unit.model,
        dataset=unit.dataset,
        scorer=unit.label,
        options=unit.options,
        sentences=sum(_work(j, info.unit) for j in jobs),
        computed=len(missing),
        cached=stats.hits,
        corrupt=stats.corrupt,
        seconds=round(time.monotonic() - started, 3),
    )


def unit_rows(
    unit: ScoreUnit,
    *,
    dataset: LoadedDataset,
    cache: ScoreCache,
    fingerprint: str,
    precision: str,
) -> list[dict[str, Any]]:
    """The unit's rows of the score table, read from the cache (which must be complete)."""
    namespace = open_namespace(unit, cache, fingerprint=fingerprint, precision=precision)
    try:
        jobs = unit_jobs(unit, dataset)
        found, _ = namespace.get_many(j.key for j in jobs)
    finally:
        namespace.close()
    missing = [j for j in jobs if j.key not in found]
    if missing:
        raise RuntimeError(
            f"score cache lacks {len(missing)} entries of {unit.model}/{unit.dataset}/"
            f"{unit.label} after scoring; rerun to recompute them"
        )
    base = {"model": unit.model, "dataset": unit.dataset, "scorer": unit.label}
    rows: list[dict[str, Any]] = []
    kind = scorer_info(unit.scorer).unit
    for item in dataset.items:
        if isinstance(item, PairItem):
            sides: list[tuple[str, Any]]
            if kind in ("pair", "template"):
                texts = (
                    _slots_texts(item)
                    if kind == "template"
                    else (item.stereotype, item.anti_stereotype)
                )
                entry = found[text_key(texts)]
                sides = [("st", entry[0]), ("at", entry[1])]
            else:
                sides = [
                    ("st", found[text_key((item.stereotype,))][0]),
                    ("at", found[text_key((item.anti_stereotype,))][0]),
                ]
                if item.unrelated is not None:
                    sides.append(("unrelated", found[text_key((item.unrelated,))][0]))
            for side, score in sides:
                rows.append(
                    {
                        **base,
                        "item_id": item.item_id,
                        "bias_type": item.bias_type,
                        "side": side,
                        "score": score.score,
                        "n_tokens": score.n_tokens,
                        "label": None,
                        "toxicity": None,
                        "group": None,
                    }
                )
        else:
            assert isinstance(item, LabelledItem)
            score = found[text_key((item.text,))][0]
            rows.append(
                {
                    **base,
                    "item_id": item.item_id,
                    "bias_type": None,
                    "side": "sentence",
                    "score": score.score,
                    "n_tokens": score.n_tokens,
                    "label": item.label,
                    "toxicity": item.toxicity,
                    "group": GROUP_SEPARATOR.join(item.groups),
                }
            )
    return rows


def cached_entries(
    unit: ScoreUnit,
    *,
    dataset: LoadedDataset,
    cache: ScoreCache,
    fingerprint: str,
    precision: str,
) -> tuple[int, int]:
    """(entries the unit needs, entries already in the cache) — what a run would do."""
    namespace = open_namespace(unit, cache, fingerprint=fingerprint, precision=precision)
    try:
        jobs = unit_jobs(unit, dataset)
        found, _ = namespace.get_many(j.key for j in jobs)
    finally:
        namespace.close()
    return len(jobs), len(found)
