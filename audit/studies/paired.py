"""The paired tests of `audit compare`: one at a time (`paired_test`), or all of a
comparison judged together as one family (`RunComparisonTests`); and how a comparison's
bootstrap p-values are redrawn with more resamples (`retest_with`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypedDict, Unpack

from audit.errors import AuditUserError
from audit.ids import PluginId
from audit.results import ComparisonRecord

if TYPE_CHECKING:
    import pandas as pd
    from pydantic import BaseModel

    from audit.comparison.paired import PairedSettings
    from audit.scoring.base import ScorerInfo
    from audit.stats.comparison import PairedData
    from audit.stats.multiple_testing import Correction


class MeasureCode(TypedDict):
    """The registries' part of a paired test's arguments (`_measure_code`)."""

    implementation: object
    scorer_info: ScorerInfo
    options: BaseModel
    exact_difference: bool


#: The seed offset of a redrawn p-value's resamples (apart from the intervals' draws).
RETEST_SEED_OFFSET = 1_000_003


def retest_with(paired: PairedData, *, seed: int) -> Callable[[int], tuple[float | None, float]]:
    """How a comparison's bootstrap p-values are redrawn with more resamples: seeded from
    the audit's seed, apart from the draws of its intervals."""

    def retest(n_resamples: int) -> tuple[float | None, float]:
        return paired.pvalues(n_resamples, seed + RETEST_SEED_OFFSET)

    return retest


def paired_test(
    frame_a: pd.DataFrame, frame_b: pd.DataFrame, **settings: Unpack[PairedSettings]
) -> ComparisonRecord:
    """The paired test `audit compare` runs: `audit.stats.comparison.compare_models` with
    the measure and scorer the ids name. Without the measure code (an install without the
    registries) it is an AuditUserError, and the comparison shows the values untested."""
    try:
        from audit.stats.comparison import compare_models
    except ImportError as error:
        raise AuditUserError(f"the measure code cannot be imported ({error})") from None
    return compare_models(
        frame_a, frame_b, **_measure_code(settings["measure"], settings["scorer"]), **settings
    )


def _measure_code(measure: PluginId, scorer: PluginId) -> MeasureCode:
    """What the paired statistics need from the registries for a measure and a scorer (an
    AuditUserError without the measure code)."""
    try:
        from audit.measures.catalog import MEASURES
        from audit.scoring.catalog import SCORERS
    except ImportError as error:
        raise AuditUserError(f"the measure code cannot be imported ({error})") from None
    entry = MEASURES.entry(measure.name)
    return {
        "implementation": MEASURES.load(measure.name),
        "scorer_info": SCORERS.entry(scorer.name).info,
        "options": entry.options.model_validate(measure.options),
        "exact_difference": entry.has_role("pair_indicator"),
    }


class RunComparisonTests:
    """The paired tests of `audit compare`, then judged together: every record of the
    comparison is one family ("the candidate against the baseline"), corrected by
    `correction`, its bootstrap p-values redrawn with more resamples where the correction
    needs them (`audit.stats.comparison_family`). Called like `paired_test`."""

    FAMILY = "the candidate against the baseline"

    def __init__(self, correction: Correction = "holm", power: float = 0.8) -> None:
        self.correction = correction
        self.power = power
        self._retests: dict[tuple[object, ...], Callable[[int], tuple[float | None, float]]] = {}

    @staticmethod
    def _key(record: ComparisonRecord) -> tuple[object, ...]:
        return (
            record.model_a,
            record.model_b,
            record.measure.key,
            record.dataset,
            record.scorer.key,
            record.group,
        )

    def __call__(
        self, frame_a: pd.DataFrame, frame_b: pd.DataFrame, **settings: Unpack[PairedSettings]
    ) -> ComparisonRecord:
        try:
            from audit.stats.comparison import paired_record, prepare_paired
            from audit.stats.inputs import StatisticsInputError
        except ImportError as error:
            raise AuditUserError(f"the measure code cannot be imported ({error})") from None
        if settings["n_bootstrap"] < 1:
            raise StatisticsInputError(
                f"a paired bootstrap needs n_bootstrap >= 1 (got {settings['n_bootstrap']})"
            )
        measure, scorer = settings["measure"], settings["scorer"]
        paired = prepare_paired(
            frame_a,
            frame_b,
            measure=measure,
            scorer=scorer,
            **_measure_code(measure, scorer),
            ideal_value=settings["ideal_value"],
            model_a=settings["model_a"],
            model_b=settings["model_b"],
        )
        record = paired_record(
            paired,
            frames={settings["model_a"]: frame_a, settings["model_b"]: frame_b},
            model_a=settings["model_a"],
            model_b=settings["model_b"],
            alpha=settings["alpha"],
            n_bootstrap=settings["n_bootstrap"],
            seed=settings["seed"],
        )
        self._retests[self._key(record)] = retest_with(paired, seed=settings["seed"])
        return record

    def judge(self, records: Sequence[ComparisonRecord]) -> list[ComparisonRecord]:
        """The comparison's records corrected together (untested records pass unchanged;
        without the measure code, none was tested and all pass unchanged)."""
        try:
            from audit.stats.comparison_family import PendingComparison, correct_family
        except ImportError:
            return list(records)
        if not records:
            return []
        return correct_family(
            [PendingComparison(r, self._retests.get(self._key(r))) for r in records],
            family=self.FAMILY,
            correction=self.correction,
            alpha=records[0].alpha,
            power=self.power,
        )
