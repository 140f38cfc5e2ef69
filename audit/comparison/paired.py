"""One matched model pair on every measure both runs have: paired tests on common items."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypedDict, Unpack

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.results import AuditResult, ComparisonRecord, Measurement
from audit.results_io import score_rows

if TYPE_CHECKING:
    import pandas as pd

BASELINE = "baseline"
CANDIDATE = "candidate"


class PairedSettings(TypedDict):
    """What a paired test needs besides the two frames, handed on as it is: the measure
    and scorer ids, the ideal value and the models' names, and how to draw."""

    measure: PluginId
    scorer: PluginId
    ideal_value: float
    model_a: str
    model_b: str
    alpha: float
    n_bootstrap: int
    seed: int


class PairedTest(Protocol):
    """A paired test of a measure on two models' scores of the same items: model A (the
    candidate) against model B (the baseline), judged by the distance to `ideal_value`
    (from the measure's card in results.json). Raises AuditUserError when the measure
    cannot be compared this way (a corpus measure, different items, no bootstrap, ...)."""

    def __call__(
        self, frame_a: pd.DataFrame, frame_b: pd.DataFrame, **settings: Unpack[PairedSettings]
    ) -> ComparisonRecord: ...


def common_items(
    frame_a: pd.DataFrame, frame_b: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Both frames cut to the items both scored, and a note when any item was left out."""
    ids_a, ids_b = set(frame_a["item_id"]), set(frame_b["item_id"])
    common = ids_a & ids_b
    if ids_a == ids_b:
        return frame_a, frame_b, ""
    problem = (
        f"{len(ids_a - ids_b)} item(s) only in the baseline, {len(ids_b - ids_a)} only in the "
        f"candidate; compared on the {len(common)} common item(s)"
    )
    keep_a = frame_a[frame_a["item_id"].isin(common)].reset_index(drop=True)
    keep_b = frame_b[frame_b["item_id"].isin(common)].reset_index(drop=True)
    return keep_a, keep_b, problem


def ideal_value(measure: PluginId, *results: AuditResult) -> float | None:
    """The measure's ideal value from the first result whose cards know it."""
    for result in results:
        card = result.card("measure", measure.name)
        if card is not None:
            return card.ideal_value
    return None


def unpaired_record(
    m_base: Measurement,
    m_cand: Measurement,
    *,
    ideal: float,
    candidate: AuditResult,
    why: str,
) -> ComparisonRecord:
    """A row with the two recorded values and no paired test (no scores to pair)."""
    values = (m_cand.value, m_base.value)
    return ComparisonRecord(
        measure=m_base.measure,
        dataset=m_base.dataset,
        scorer=m_base.scorer,
        group=m_base.group,
        model_a="",
        model_b="",
        n_items=min(m_base.n, m_cand.n),
        value_a=values[0],
        value_b=values[1],
        difference=None if None in values else values[0] - values[1],  # type: ignore[operator]
        ideal_value=ideal,
        distance_difference=None,
        p_value=None,
        mcnemar_only_a=None,
        alpha=candidate.audit.alpha,
        n_bootstrap=candidate.audit.bootstrap.resamples,
        seed=candidate.audit.seed,
        verdict="undefined",
        note=why,
    )


def compare_pair(
    baseline: AuditResult,
    candidate: AuditResult,
    pair: tuple[str, str],
    *,
    baseline_scores: pd.DataFrame | None,
    candidate_scores: pd.DataFrame | None,
    paired_test: PairedTest,
    mismatches: list[str],
) -> list[ComparisonRecord]:
    """Comparison records of one matched model pair on every measure (group `all`) both
    runs have; A is the candidate, B the baseline. Measures without an ideal value are
    left out; what only one run measured, and items only one run scored, are appended to
    `mismatches`."""
    model_a, model_b = pair
    found_b = {
        (m.dataset, m.scorer, m.measure, m.group): m
        for m in candidate.measurements
        if m.model == model_b
    }
    settings = candidate.audit
    records: list[ComparisonRecord] = []
    item_notes: dict[tuple[str, str], str] = {}
    for m_a in baseline.measurements:
        if m_a.model != model_a or m_a.group != "all":
            continue
        m_b = found_b.get((m_a.dataset, m_a.scorer, m_a.measure, m_a.group))
        if m_b is None:
            mismatches.append(
                f"{m_a.measure.label} on {m_a.dataset} ({m_a.scorer.label}) measured for "
                f"baseline '{model_a}' but not for candidate '{model_b}'"
            )
            continue
        ideal = ideal_value(m_a.measure, baseline, candidate)
        if ideal is None:
            continue
        if baseline_scores is None or candidate_scores is None:
            why = "no scores.parquet: no paired test"
            records.append(unpaired_record(m_a, m_b, ideal=ideal, candidate=candidate, why=why))
            continue
        dataset, scorer = m_a.dataset, m_a.scorer
        frame_a = score_rows(baseline_scores, model=model_a, dataset=dataset, scorer=scorer)
        frame_b = score_rows(candidate_scores, model=model_b, dataset=dataset, scorer=scorer)
        frame_a, frame_b, problem = common_items(frame_a, frame_b)
        if problem:
            item_notes[(m_a.dataset, m_a.scorer.label)] = problem
        try:
            record = paired_test(
                frame_b,
                frame_a,
                measure=m_a.measure,
                scorer=m_a.scorer,
                ideal_value=ideal,
                model_a=f"{model_b} ({CANDIDATE})",
                model_b=f"{model_a} ({BASELINE})",
                alpha=settings.alpha,
                n_bootstrap=settings.bootstrap.resamples,
                seed=settings.seed,
            )
        except AuditUserError as error:
            why = f"no paired test: {error}"
            records.append(unpaired_record(m_a, m_b, ideal=ideal, candidate=candidate, why=why))
            continue
        note = "; ".join(n for n in (record.note, problem) if n)
        records.append(
            record.model_copy(update={"measure": m_a.measure, "scorer": m_a.scorer, "note": note})
        )
    mismatches += [f"{d} ({s}): {p}" for (d, s), p in item_notes.items()]
    return records
