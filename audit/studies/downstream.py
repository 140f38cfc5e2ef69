"""The downstream study of debiasing (Kaneko et al. 2022, "Debiasing isn't enough"): each
debiased variant against its base on every extrinsic task both were fine-tuned on, the
values being the means over their fine-tuning seeds (`audit.stats.downstream`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from audit.studies.correlations import ExtrinsicKey
from audit.studies.settings import StudySettings

if TYPE_CHECKING:
    import numpy as np

    from audit.results import ExtrinsicRecord
    from audit.stats.comparison_family import PendingComparison


def downstream_comparisons(
    settings: StudySettings,
    extrinsic: Sequence[ExtrinsicRecord],
    seed_replicates: Mapping[ExtrinsicKey, Sequence[np.ndarray]],
) -> list[PendingComparison]:
    """A debiased variant (not a bias-controlled ratio model) against its base on each
    task both have a record of with item replicates; a failed dev check on either side
    makes the comparison undefined (a value of an unlearned task measures noise), unless
    the spec keeps such values (`correlations.failed_dev_check: keep`), which the note
    then says."""
    from audit.stats.comparison_family import PendingComparison
    from audit.stats.downstream import downstream_comparison

    if settings.bootstrap < 1:
        return []
    by_key = {(r.measure.key, r.dataset, r.model): r for r in extrinsic}
    out: list[PendingComparison] = []
    for record in extrinsic:
        base = settings.variant_bases.get(record.model)
        if base is None or record.model in settings.ratio_models:
            continue
        base_record = by_key.get((record.measure.key, record.dataset, base))
        mine = seed_replicates.get((record.measure.key, record.dataset, record.model))
        theirs = seed_replicates.get((record.measure.key, record.dataset, base))
        if base_record is None or not mine or not theirs:
            continue
        compared = downstream_comparison(
            record,
            base_record,
            variant_seeds=mine,
            base_seeds=theirs,
            alpha=settings.alpha,
            seed=settings.seed,
        )
        failed = [
            r.model
            for r in (record, base_record)
            if r.dev_check is not None and not r.dev_check.passed
        ]
        if failed and settings.keep_failed_dev_check:
            kept = (
                f"kept although {', '.join(failed)} did not learn the task (dev check; "
                "correlations.failed_dev_check: keep)"
            )
            compared = compared.model_copy(update={"note": f"{compared.note}; {kept}"})
        elif failed:
            compared = compared.model_copy(
                update={
                    "verdict": "undefined",
                    "verdict_uncorrected": "undefined",
                    "p_value": None,
                    "difference_p": None,
                    "note": f"not compared: {', '.join(failed)} did not learn the task (dev check)",
                }
            )
        out.append(PendingComparison(compared))
    return out
