"""Run one scoring unit through the score cache, and read its entries back.

Work is done in chunks of `CHUNK` entries (a chunk's sentences are packed into forward
batches together, so chunks keep the batches, and the scores, of an uninterrupted run)
and each chunk's entries are committed as soon as it is scored. Inside a chunk every
forward batch's results are committed to the namespace's batch journal
(`audit.scoring.batch_journal`) as it finishes, and a rerun takes them from there: a
killed run (SIGKILL at any moment) loses at most one forward batch, and the rerun's
scores are bit-identical to an uninterrupted run's. A unit holds its namespace's lock
(`audit.scoring.cache_lock`) while it fills it, so concurrent runs on one cache never
compute an entry twice. A read-only cache is only read: a unit that would have to write
to it is refused (`AuditUserError`) before its model loads. The table's rows are always read back
from the cache (`audit.scoring.table`), never held from the computation. Every unit is
scored the same way: its scorer's registered input shape (`audit.scoring.inputs`) says
which entries it needs and which scoring call fills them. A disk that fills (or turns
read-only, or fails) while the cache is written is reported as an OSError naming the
database (`audit.scoring.cache_write_errors`); what was committed stays.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from audit.errors import AuditUserError
from audit.faults import fault_point
from audit.ids import PluginId
from audit.scoring.base import ScoringCall, ServedScoring
from audit.scoring.batch_journal import journal_batches, journalled_work
from audit.scoring.cache import CacheStats, Entry, ModelIdentity, ScoreCache, ScoreNamespace
from audit.scoring.cache_lock import namespace_lock
from audit.scoring.cache_write_errors import cache_writes
from audit.scoring.catalog import SCORERS
from audit.scoring.inputs import ScorerInput, scorer_input
from audit.scoring.units import ScoreUnit, UnitOutcome

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.display import Display
    from audit.models.chat_template import ChatFormat, DatasetChats
    from audit.models.loaded import LoadedModel

#: Sentences (or pairs) per cache write.
CHUNK = 1024


@dataclass
class ModelHandle:
    """A model known by fingerprint and precision, whose weights load only on first use:
    a rerun whose scores are all cached never loads a model (nor, for a served model,
    connects to its endpoint)."""

    model_id: str
    fingerprint: str
    precision: str  # "<device type>/<dtype>" or "served", part of every cache key
    load: Callable[[], LoadedModel | ServedScoring]
    chat: ChatFormat | None = None  # the chat template of its multiple-choice prompts
    dataset_chats: DatasetChats | None = None  # datasets' own templates (they win there)
    _model: LoadedModel | ServedScoring | None = field(default=None, repr=False)

    def get(self) -> LoadedModel | ServedScoring:
        if self._model is None:
            self._model = self.load()
        return self._model

    @property
    def is_loaded(self) -> bool:
        return self._model is not None

    @property
    def identity(self) -> ModelIdentity:
        if self.dataset_chats is None:
            return ModelIdentity(self.fingerprint, self.precision, self.chat)
        return ModelIdentity(self.fingerprint, self.precision, self.chat, self.dataset_chats)

    def release(self) -> None:
        if isinstance(self._model, ServedScoring):
            self._model.close()
        self._model = None


@dataclass(frozen=True)
class Job:
    """One cache entry to fill: the texts scored together (a sentence, a pair, slots)."""

    key: str
    texts: tuple[str, ...]


def unit_input(scorer: PluginId) -> ScorerInput:
    """The input shape of the unit's scorer, from its registry entry."""
    return scorer_input(SCORERS.entry(scorer.name).info.unit)


def unit_jobs(
    scorer: PluginId, dataset: LoadedDataset, chat: ChatFormat | None = None
) -> list[Job]:
    """The distinct cache entries a unit needs, in dataset order (`chat`: the model's
    chat template, which wraps multiple-choice prompts)."""
    shape = unit_input(scorer)
    jobs: dict[str, Job] = {}
    for item in dataset.items:
        for ref in shape.sides(item, chat):
            jobs.setdefault(ref.key, Job(ref.key, ref.texts))
    return list(jobs.values())


def open_namespace(scorer: PluginId, cache: ScoreCache, model: ModelIdentity) -> ScoreNamespace:
    """The cache namespace of (model, scorer name, code identity and score-changing
    options)."""
    entry = SCORERS.entry(scorer.name)
    return cache.namespace(
        model_fingerprint=model.fingerprint,
        scorer=entry.info,
        options=entry.options_model.model_validate(scorer.options),
        precision=model.precision,
        code=SCORERS.code_identity(scorer.name),
    )


def _chunks(jobs: list[Job], size: int) -> Iterator[list[Job]]:
    for start in range(0, len(jobs), size):
        yield jobs[start : start + size]


@dataclass(frozen=True)
class UnitWork:
    """What one unit needs from the cache: every entry (`jobs`), those missing (to be
    scored) and what looking them up found."""

    unit: ScoreUnit
    jobs: list[Job]
    missing: list[Job]
    stats: CacheStats
    set_aside: tuple[Path, ...] = ()  # database files found corrupt and renamed

    def work(self, jobs: list[Job] | None = None) -> int:
        """Sentences scored for `jobs` (default: all the unit's), as progress counts them."""
        shape = unit_input(self.unit.scorer)
        return sum(shape.work(j.texts) for j in (self.jobs if jobs is None else jobs))

    def outcome(self, seconds: float) -> UnitOutcome:
        return UnitOutcome(
            unit=self.unit,
            sentences=self.work(),
            computed=len(self.missing),
            cached=self.stats.hits,
            corrupt=self.stats.corrupt,
            seconds=round(seconds, 3),
            set_aside=tuple(str(p) for p in self.set_aside),
        )


def unit_work(
    unit: ScoreUnit,
    *,
    dataset: LoadedDataset,
    namespace: ScoreNamespace,
    chat: ChatFormat | None = None,
) -> UnitWork:
    """The unit's entries and which of them are missing from its (open) namespace.

    Raises `AuditUserError` when some are missing and the namespace cannot be written:
    a read-only cache is only read, before any model loads or anything is scored."""
    jobs = unit_jobs(unit.scorer, dataset, chat)
    found, stats = namespace.get_many(j.key for j in jobs)
    missing = [j for j in jobs if j.key not in found]
    if missing and namespace.read_only:
        raise AuditUserError(
            f"the score cache {namespace.folder} cannot be written, and "
            f"{unit.model}/{unit.dataset}/{unit.scorer.label} needs {len(missing)} scores "
            "that are not in it: make the cache folder writable, or choose a writable "
            "cache folder with --cache-dir"
        )
    return UnitWork(unit, jobs, missing, stats, namespace.set_aside)


def score_unit(
    unit: ScoreUnit,
    *,
    model: ModelHandle,
    dataset: LoadedDataset,
    cache: ScoreCache,
    display: Display,
) -> UnitOutcome:
    """Fill the cache for every entry of `unit` that is not there yet; the model's
    weights are loaded only if something is missing. Holds the namespace's lock while it
    looks up and fills entries; every forward batch is journaled as it finishes."""
    started = time.monotonic()
    identity = model.identity
    namespace = open_namespace(unit.scorer, cache, identity)
    chat = identity.chat_for(unit.dataset)
    try:
        with cache_writes(namespace.db_path):
            if namespace.read_only:
                work = unit_work(unit, dataset=dataset, namespace=namespace, chat=chat)
            else:
                with namespace_lock(namespace.folder):
                    work = unit_work(unit, dataset=dataset, namespace=namespace, chat=chat)
                    warn_repairs(work, display)
                    if work.missing:
                        _fill(work, namespace, model.get(), display)
    finally:
        namespace.close()
    return work.outcome(time.monotonic() - started)


def warn_repairs(work: UnitWork, display: Display) -> None:
    """Say on the terminal what the report's caveats say: a cache database set aside as
    corrupt, and entries that failed their checksum; both are computed again."""
    label = unit_label(work.unit)
    for path in work.set_aside:
        display.warn(
            f"{label}: the score cache database failed its integrity check and was set "
            f"aside as {path} (kept for inspection); its scores are computed again"
        )
    if work.stats.corrupt:
        one = work.stats.corrupt == 1
        entries = "entry does not match its" if one else "entries do not match their"
        display.warn(
            f"{label}: {work.stats.corrupt} score cache {entries} checksum; "
            f"{'it is' if one else 'they are'} computed again"
        )


def _fill(
    work: UnitWork,
    namespace: ScoreNamespace,
    loaded: LoadedModel | ServedScoring,
    display: Display,
) -> None:
    """Score the missing entries, committing every chunk's entries and, inside a chunk,
    every forward batch's results (`batch_journal`); the journal is emptied at the end."""
    unit = work.unit
    key = f"{unit.model}/{unit.dataset}/{unit.scorer.label}"
    served = isinstance(loaded, ServedScoring)
    label = unit_label(unit) + (" · via endpoint" if served else "")
    display.start(key, label, work.work(work.missing))
    started = time.monotonic()
    with journal_batches(namespace.db, journal_owner(unit)) as journal:
        for entries in compute_entries(
            unit.scorer, work.missing, loaded, progress=lambda n: display.advance(key, n)
        ):
            fault_point("score-batch-before-commit")
            namespace.put_many(entries)
            fault_point("score-batch-committed")
            # the chunk's batches are in its entries now: the journal keeps only the
            # chunk being scored, so `audit plan` counts each saved sentence once
            journal.clear()
    display.finish(key)
    if isinstance(loaded, ServedScoring):
        display.info(f"{unit_label(unit)}: {loaded.traffic(time.monotonic() - started)}")


def journal_owner(unit: ScoreUnit) -> str:
    """Whose batches a namespace's journal holds (a namespace serves every dataset)."""
    return unit.dataset


def unit_label(unit: ScoreUnit) -> str:
    """How progress lines name a unit."""
    return f"{unit.model} · {unit.dataset} · {unit.scorer.label}"


def compute_entries(
    scorer_id: PluginId,
    missing: list[Job],
    loaded: LoadedModel | ServedScoring,
    *,
    progress: Callable[[int], None],
    chunk: int | None = None,
) -> Iterator[dict[str, Entry]]:
    """Score the `missing` entries with a loaded (or served) model, yielding each chunk's
    entries as soon as it is scored (default chunk: `CHUNK`). Nothing is written: the
    caller puts them into the cache (here, or on the driver when a worker elsewhere
    scored them). A served model scores the entries itself (`ServedScoring`)."""
    shape = unit_input(scorer_id)
    entry = SCORERS.entry(scorer_id.name)
    call = ScoringCall(entry.options_model.model_validate(scorer_id.options), progress)
    served = loaded if isinstance(loaded, ServedScoring) else None
    if served is not None and not entry.info.served:
        raise AuditUserError(
            f"scorer '{scorer_id.name}' needs more than the log-probabilities of given text, "
            f"so it cannot score the served model '{served.model_id}'"
        )
    scorer = SCORERS.load(scorer_id.name) if served is None else None
    if chunk is None:
        chunk = CHUNK if served is None else served.entries_per_commit
    for part in _chunks(missing, chunk):
        batch = [j.texts for j in part]
        if served is not None:
            results = served.score(scorer_id.name, shape.shape, shape.inputs(batch), call)
            scored = [shape.entry(r) for r in results]
        else:
            assert scorer is not None and not isinstance(loaded, ServedScoring)
            scored = shape.score(scorer, loaded, batch, call)
        yield {j.key: s for j, s in zip(part, scored, strict=True)}


def read_entries(
    unit: ScoreUnit, *, dataset: LoadedDataset, cache: ScoreCache, model: ModelIdentity
) -> dict[str, Entry]:
    """Every cache entry of the unit (the cache must be complete)."""
    namespace = open_namespace(unit.scorer, cache, model)
    try:
        jobs = unit_jobs(unit.scorer, dataset, model.chat_for(unit.dataset))
        found, _ = namespace.get_many(j.key for j in jobs)
    finally:
        namespace.close()
    missing = [j for j in jobs if j.key not in found]
    if missing:
        raise RuntimeError(
            f"score cache lacks {len(missing)} entries of {unit.model}/{unit.dataset}/"
            f"{unit.scorer.label} after scoring; rerun to recompute them"
        )
    return found


def planned_work(
    unit: ScoreUnit,
    *,
    dataset: LoadedDataset,
    cache: ScoreCache,
    fingerprint: str,
    precision: str,
    chat: ChatFormat | None = None,
) -> tuple[int, int]:
    """(sentences the unit scores, sentences of them saved), counted as the run's
    progress counts them (a pair scorer's entry is two sentences). Saved: in the cache,
    or in batches a killed run journalled (`batch_journal`), which the next run replays
    instead of scoring."""
    shape = unit_input(unit.scorer)
    namespace = open_namespace(unit.scorer, cache, ModelIdentity(fingerprint, precision))
    try:
        jobs = unit_jobs(unit.scorer, dataset, chat)
        found, _ = namespace.get_many(j.key for j in jobs)
    finally:
        namespace.close()
    total = sum(shape.work(j.texts) for j in jobs)
    cached = sum(shape.work(j.texts) for j in jobs if j.key in found)
    journalled = journalled_work(namespace.db_path, journal_owner(unit)) if cached < total else 0
    return total, min(total, cached + journalled)


def why_scored_again(
    unit: ScoreUnit, *, cache: ScoreCache, fingerprint: str, precision: str
) -> str | None:
    """Why the unit's scores are not in the cache when the same model's scores of its
    scorer and options made by another version of the scorer are (`audit plan` says it);
    None when there are none."""
    entry = SCORERS.entry(unit.scorer.name)
    return cache.why_missing(
        model_fingerprint=fingerprint,
        scorer=entry.info,
        options=entry.options_model.model_validate(unit.scorer.options),
        precision=precision,
        code=SCORERS.code_identity(unit.scorer.name),
    )
