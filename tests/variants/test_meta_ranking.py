"""The meta-evaluation's ranking states its ties (issue 20 items 3 and 7): a measure is the
best only when a paired bootstrap tells it apart from every other; identical series are
ranked once and named together; the bootstrap seed does not depend on a label.

The values are those of the committed example `docs/examples/meta-evaluation` (11
ratio models of minilm-mlm, seed 13, 1,000 resamples)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from audit.ids import PluginId
from audit.report.cards import MeasureCards
from audit.report.meta_evaluation import table_series
from audit.report.meta_leaders import leader_sentence, leaders
from audit.results import Measurement, MetaEvaluation, ProbeRecord
from audit.variants.meta_evaluation import meta_evaluate

RATIOS = [round(0.1 * i, 1) for i in range(11)]
MODELS = [f"minilm-mlm-bc-r{r:g}" for r in RATIOS]
HE_SHARE = [0.1334, 0.3301, 0.317, 0.521, 0.6293, 0.7691, 0.7995, 0.7903, 0.9191, 0.9302, 0.968]

KLS_AULA = [50.8585, 50.9544, 51.0349, 51.8057, 52.285, 51.9908, 52.3772, 52.0908, 52.8427]
KLS_AULA += [52.9399, 53.1464]
JSS_AULA = [99.7479, 99.715, 99.6952, 99.4169, 99.2288, 99.3443, 99.1947, 99.3233, 98.9775]
JSS_AULA += [98.95, 98.8502]
SS_SSS = [55.6863, 56.4706, 54.5098, 54.5098, 52.549, 54.1176, 53.7255, 52.1569, 51.3725]
SS_SSS += [51.7647, 51.3725]
JSS_SSS = [90.7462, 91.3176, 99.7349, 88.1441, 85.6064, 88.6012, 80.9816, 79.9987, 79.9542]
JSS_SSS += [75.5104, 73.314]
BIAS_CPS = [49.2366, 49.2366, 46.9466, 50.3817, 48.4733, 47.3282, 50.7634, 45.4198, 48.855]
BIAS_CPS += [50.3817, 50.7634]


def _series(measure: str, dataset: str, scorer: str, values: Sequence[float]) -> list[Measurement]:
    return [
        Measurement(
            model=model,
            dataset=dataset,
            scorer=PluginId.of(scorer),
            measure=PluginId.of(measure),
            group="all",
            value=value,
            n=100,
        )
        for model, value in zip(MODELS, values, strict=True)
    ]


def _probe(share: float) -> ProbeRecord:
    return ProbeRecord(
        template="[MASK] is a/an {occupation}.",
        he="he",
        she="she",
        occupations=[],
        mean_p_he=share,
        mean_p_she=1 - share,
        he_share=share,
    )


def _evaluate(measurements: list[Measurement], *, seed: int = 13) -> MetaEvaluation:
    return meta_evaluate(
        entry="minilm-mlm-bc",
        base="minilm-mlm",
        ratio_models=list(zip(RATIOS, MODELS, strict=True)),
        measurements=measurements,
        probes={m: _probe(s) for m, s in zip(MODELS, HE_SHARE, strict=True)},
        seed=seed,
        n_bootstrap=1000,
        alpha=0.05,
    )


def _example() -> MetaEvaluation:
    return _evaluate(
        _series("kls", "crows_pairs", "aula", KLS_AULA)
        + _series("jss", "crows_pairs", "aula", JSS_AULA)
        + _series("bias_score", "stereoset", "sss", SS_SSS)
        + _series("ss", "stereoset", "sss", SS_SSS)
        + _series("jss", "crows_pairs", "sss", JSS_SSS)
        + _series("bias_score", "crows_pairs", "cps", BIAS_CPS)
    )


CARDS = MeasureCards([])


def test_overlapping_measures_tie_with_the_strongest_and_a_weak_one_is_told_apart() -> None:
    meta = _example()
    assert meta.control.worked
    rows = {r.label: r for r in meta.rows}
    first = rows["kls on crows_pairs (aula)"]
    assert first.rank == 1 and first.spearman == pytest.approx(0.9545, abs=1e-4)
    assert first.ties_first is None and first.gap_to_first is None
    # JSS orders the ratio models exactly as KLS does (mirrored): a gap of 0 on every
    # resample, a tie
    jss = rows["jss on crows_pairs (aula)"]
    assert (jss.rank, jss.ties_first) == (2, True)
    assert jss.gap_to_first == pytest.approx(0.0, abs=1e-12)
    assert jss.gap_to_first_ci_low == pytest.approx(0.0, abs=1e-12)
    # StereoSet SSS (rho -0.945) and JSS with SSS (-0.936): the gap's interval holds 0
    sss = rows["bias_score on stereoset (sss)"]
    assert sss.rank == 3 and sss.ties_first
    assert sss.gap_to_first == pytest.approx(0.009, abs=1e-3)
    assert sss.gap_to_first_ci_low == pytest.approx(-0.196, abs=1e-3)
    assert sss.gap_to_first_ci_high == pytest.approx(0.186, abs=1e-3)
    assert rows["jss on crows_pairs (sss)"].ties_first
    # the CPS bias score on CrowS-Pairs (rho 0.26) falls behind: 0.69 [0.20, 0.95]
    cps = rows["bias_score on crows_pairs (cps)"]
    assert cps.rank == 5 and cps.ties_first is False
    assert cps.gap_to_first == pytest.approx(0.694, abs=1e-3)
    assert cps.gap_to_first_ci_low == pytest.approx(0.198, abs=1e-3)
    top = leaders(meta)
    assert top is not None and not top.clear and len(top.tied) == 3
    assert leader_sentence(CARDS, meta) == (
        "No measure follows it clearly best: rank 1, kls on crows_pairs (aula) (Spearman 0.95 "
        "[0.71, 1.00]), is not told apart by a paired bootstrap from jss on crows_pairs (aula) "
        "(rank 2), bias_score = ss on stereoset (sss) (rank 3) and jss on crows_pairs (sss) "
        "(rank 4); |ρ| 0.94 to 0.95 among these 4. Bias_score and ss have the same values on "
        "every ratio model: one series, ranked once."
    )


def test_a_measure_told_apart_from_every_other_is_named_the_best() -> None:
    steady = [50 + 3 * r for r in RATIOS]  # follows r perfectly
    meta = _evaluate(
        _series("kls", "crows_pairs", "aula", steady)
        + _series("bias_score", "crows_pairs", "cps", BIAS_CPS)
    )
    first, second = meta.rows
    assert (first.rank, first.spearman) == (1, pytest.approx(1.0))
    assert second.gap_to_first == pytest.approx(1 - 0.2609, abs=1e-3)
    assert second.gap_to_first_ci_low is not None and second.gap_to_first_ci_low > 0
    assert second.ties_first is False
    top = leaders(meta)
    assert top is not None and top.clear
    assert leader_sentence(CARDS, meta) == (
        "The measure that follows it best is kls on crows_pairs (aula) (Spearman 1.00 [1.00, "
        "1.00]); a paired bootstrap tells it apart from every other measure."
    )


def test_identical_series_are_ranked_once_and_named_together() -> None:
    meta = _example()
    same = [r for r in meta.rows if r.dataset == "stereoset"]
    assert [r.label for r in same] == ["bias_score on stereoset (sss)", "ss on stereoset (sss)"]
    assert {r.rank for r in same} == {3}
    # one series: the same interval, the same gap, and the next series is rank 4
    intervals = {
        (r.spearman_ci_low, r.spearman_ci_high, r.gap_to_first_ci_low, r.gap_to_first_ci_high)
        for r in same
    }
    assert len(intervals) == 1
    assert [r.rank for r in meta.rows] == [1, 2, 3, 3, 4, 5]
    assert "same values as ss on stereoset (sss) on every ratio model" in same[0].note
    assert "same values as bias_score on stereoset (sss) on every ratio model" in same[1].note


def test_the_bootstrap_seed_does_not_depend_on_the_label() -> None:
    """Before: each series drew from (seed, crc32 of its label), so the bias score and
    StereoSet's ss got different intervals of the same values ([-1, -0.737] and [-1,
    -0.745] in the example)."""
    alone = _evaluate(_series("bias_score", "stereoset", "sss", SS_SSS)).rows[0]
    renamed = _evaluate(_series("jss", "crows_pairs", "cps", SS_SSS)).rows[0]
    assert alone.label != renamed.label
    assert (alone.spearman_ci_low, alone.spearman_ci_high) == (
        renamed.spearman_ci_low,
        renamed.spearman_ci_high,
    )
    assert alone.spearman_ci_low == pytest.approx(-1.0)
    assert alone.spearman_ci_high == pytest.approx(-0.745, abs=1e-3)
    # the seed itself still decides the draws
    other_seed = _evaluate(_series("bias_score", "stereoset", "sss", SS_SSS), seed=14).rows[0]
    assert other_seed.spearman_ci_high != alone.spearman_ci_high


def test_a_file_without_the_test_names_no_best() -> None:
    """A results.json before 3.0 has ranks but no gap to rank 1: page 1 does not guess."""
    meta = _example()
    old = meta.model_copy(
        update={
            "rows": [
                r.model_copy(
                    update={
                        "ties_first": None,
                        "gap_to_first": None,
                        "gap_to_first_ci_low": None,
                        "gap_to_first_ci_high": None,
                    }
                )
                for r in meta.rows
            ]
        }
    )
    assert leader_sentence(CARDS, old) == (
        "The strongest correlation with r is kls on crows_pairs (aula)'s (Spearman 0.95 "
        "[0.71, 1.00]); this results.json (written before version 3.0) holds no test of "
        "whether it is told apart from the next, so no measure is called the best."
    )


def test_the_report_table_shows_one_row_per_series() -> None:
    meta = _example()
    series = table_series(meta)
    assert [[r.label for r in s] for s in series] == [
        ["kls on crows_pairs (aula)"],
        ["jss on crows_pairs (aula)"],
        ["bias_score on stereoset (sss)", "ss on stereoset (sss)"],
        ["jss on crows_pairs (sss)"],
        ["bias_score on crows_pairs (cps)"],
    ]


def test_rank_runs_writes_runs_of_three_or_more_as_a_to_b() -> None:
    from audit.report.meta_leaders import rank_runs

    assert rank_runs([9, 5, 7, 6]) == ["5 to 7", "9"]
    assert rank_runs([2, 3, 8]) == ["2", "3", "8"]
    assert rank_runs([]) == []
