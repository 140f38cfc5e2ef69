"""Cross-model studies run after the measures: robustness to dataset size (Liu 2024),
correlation between measures across models, and paired comparison of models.

Which studies apply:
- robustness: when the spec has `robustness:`, for every (dataset, scorer, measure) whose
  measure is `resamplable`, over the models scored that way;
- correlations (`correlations.py`): when at least two models were measured and two series
  exist: one per intrinsic (measure, dataset, scorer), over the models that scorer
  measured (in the measurements' order), then one per extrinsic (task measure, dataset),
  from the `ExtrinsicRecord`s; every two series with two models in common are correlated.
  Every value enters as its distance to the measure's ideal value (|value - ideal|; a
  measure without an ideal value is left out). An extrinsic value whose fine-tuning
  failed the task's dev check is left out and named in the records (`excluded`), unless
  the spec keeps it (`correlations.failed_dev_check: keep`). Pairs that are one by
  construction are marked `trivial`; the p-values of each family of tests (intrinsic x
  extrinsic, intrinsic, extrinsic) are corrected together (Holm, or Benjamini-Hochberg);
  each record states its detection limit and is conclusive only when its Kendall test had
  the power asked for (`audit.stats.correlation`, `audit.stats.power`); each gets a
  two-level bootstrap interval from the item replicates of its series;
- comparisons (`run.py`): every two models scored with the same scorer on the same
  dataset, for every resamplable measure with an ideal value, group `all`; the later
  model in the spec is the candidate (A), the earlier one the baseline (B). A variant is
  compared with its own base only (A = the variant, B = the base). Each family (variants
  against their base, ratio models against theirs, models against each other) is then
  judged together after Holm / BH (`audit.stats.comparison_family`). A debiased variant is
  also compared with its base on every extrinsic task (`downstream.py`, its own family).
  None when the spec sets `bootstrap: 0` (no intervals): the paired tests are bootstraps.

Inputs are plain: the settings, the plan, the score frames by unit, the measurements and
the extrinsic records (with their replicates); nothing here knows the run's
orchestration. `paired.py` holds the tests of `audit compare`.
"""

from audit.studies.correlations import ExtrinsicKey, correlations, same_fits
from audit.studies.paired import RunComparisonTests, paired_test, retest_with
from audit.studies.run import item_replicates, run_studies
from audit.studies.settings import (
    DOWNSTREAM_FAMILY,
    MODEL_FAMILY,
    RATIO_FAMILY,
    VARIANT_FAMILY,
    ItemReplicates,
    SeriesKey,
    Studies,
    StudySettings,
    UnitKey,
)

__all__ = [
    "DOWNSTREAM_FAMILY",
    "MODEL_FAMILY",
    "RATIO_FAMILY",
    "VARIANT_FAMILY",
    "ExtrinsicKey",
    "ItemReplicates",
    "RunComparisonTests",
    "SeriesKey",
    "Studies",
    "StudySettings",
    "UnitKey",
    "correlations",
    "item_replicates",
    "paired_test",
    "retest_with",
    "run_studies",
    "same_fits",
]
