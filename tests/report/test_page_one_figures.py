"""Page 1's words follow the numbers (issue 29 item 5): every figure of page 1 of each
committed example, and of the synthetic results the report tests use, checked against its
results.json by `tests.report.page_figures` (each sentence's figures against the record it
speaks of; every other figure traceable to the file). Then the checker itself: a page with
one figure changed is reported at exactly that sentence and figure.

No model and no scoring: each case reads a results.json (and the scores.parquet beside
it) or builds a synthetic result, and builds the report model. Some cases re-judge a
committed example's records the way results.json 4.0 does (the examples are regenerated
under 4.0 later), so that the 4.0 sentences (corrected comparison families, detection
limits) are checked before then; others set up what no example has (a significant
intrinsic x extrinsic pair, every fine-tuning but one failing its dev check, more moves
than page 1 lists, a perplexity that fell more than the damage threshold). The tests
that change a figure use those cases or the seeded synthetic ones, never an example's
own numbers, so they hold when the examples are regenerated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from audit.report.build import build_report
from audit.report.cards import MeasureCards
from audit.report.lm_cost import _ppl_words
from audit.report.model import ReportModel, SummaryBlock
from audit.results import AuditResult, ComparisonSettings, CorrelationSettings, MeasureSeries
from audit.results_io import read_results, read_scores
from tests.report.page_figures import (
    NumberIndex,
    Problem,
    check_page,
    figures,
    name_pattern,
    run_checks,
)
from tests.report.synthetic import synthetic_scores, synthetic_studied_result
from tests.report.synthetic_variants import variant_result

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.parent.name for p in (REPO / "docs/examples").glob("*/results.json"))


def _example(name: str) -> tuple[AuditResult, pd.DataFrame | None]:
    folder = REPO / "docs/examples" / name
    scores = read_scores(folder) if (folder / "scores.parquet").exists() else None
    return read_results(folder / "results.json"), scores


def comparisons_as_4_0(result: AuditResult) -> AuditResult:
    """The comparisons of variants against their base judged as results.json 4.0 judges
    them (Holm over each family, one finding counted once, borderline decisions,
    detectable differences): each record's difference test is McNemar's exact p for a
    pair-indicator measure, else the normal p of its paired interval, whose width gives
    the standard error."""
    from audit.stats.comparison_family import PendingComparison, correct_families

    cards = MeasureCards.of(result)
    ratios = {v.id for v in result.variants if v.ratio is not None}
    z = float(stats.norm.isf(result.alpha / 2))
    pending = []
    for r in result.comparisons:
        low, high, diff = r.difference_ci_low, r.difference_ci_high, r.difference
        se = None if low is None or high is None else (high - low) / (2 * z)
        exact = cards.has_role(r.measure, "pair_indicator") and r.mcnemar_p is not None
        p = r.mcnemar_p if exact else None
        if p is None and se and diff is not None:
            p = float(2 * stats.norm.sf(abs(diff) / se))
        update = {
            "difference_p": p,
            "difference_test": "exact McNemar" if exact else "paired bootstrap",
            "difference_se": se,
            "resamples_for_p": r.n_bootstrap,
            "verdict_uncorrected": r.verdict_uncorrected or r.verdict,
        }
        pending.append(PendingComparison(r.model_copy(update=update)))
    judged = correct_families(
        pending,
        family_of=lambda r: (
            "ratio models against their base"
            if r.model_a in ratios
            else "variants against their base"
        ),
        correction="holm",
        alpha=result.alpha,
        power=0.8,
    )
    audit = result.audit.model_copy(
        update={"comparisons": ComparisonSettings(correction="holm", power=0.8)}
    )
    return result.model_copy(update={"comparisons": judged, "audit": audit})


def more_moves(result: AuditResult) -> AuditResult:
    """The synthetic study with five more comparisons of one model with another that
    changed, so page 1 lists the three largest and counts the rest."""
    first = result.comparisons[0]
    assert first.value_b is not None
    moves = [
        first.model_copy(
            update={
                "value_a": first.value_b + d,
                "difference": d,
                "difference_ci_low": d - 1.0,
                "difference_ci_high": d + 1.0,
                "verdict": "changed",
                "same_test_as": "",
            }
        )
        for d in (3.0, -5.0, 1.5, 4.0, -2.0)
    ]
    everything = [*result.comparisons, *moves]
    size = len([r for r in everything if not r.same_test_as])
    return result.model_copy(
        update={"comparisons": [r.model_copy(update={"family_size": size}) for r in everything]}
    )


def correlations_as_4_0(result: AuditResult) -> AuditResult:
    """The correlations recomputed as results.json 4.0 computes them (detection limits,
    trivial pairs, intervals), from the example's measurements and extrinsic records."""
    from audit.studies import StudySettings, correlations

    settings = StudySettings(
        model_order=[m.id for m in result.models],
        seed=result.audit.seed,
        alpha=result.alpha,
        bootstrap=result.audit.bootstrap.resamples,
        keep_failed_dev_check=False,
        model_types={m.id: m.model_type for m in result.models},
    )
    intrinsic = [m for m in result.measurements if m.scorer.name != "finetune"]
    records = correlations(settings, intrinsic, result.extrinsic)
    audit = result.audit.model_copy(
        update={"correlations": CorrelationSettings(correction="holm", failed_dev_check="exclude")}
    )
    return result.model_copy(update={"correlations": records, "audit": audit})


def all_but_one_failed(result: AuditResult) -> AuditResult:
    """The intrinsic-vs-extrinsic example with every fine-tuning but the first failing its
    dev check: no intrinsic x extrinsic pair is left to correlate."""
    records = []
    for i, r in enumerate(result.extrinsic):
        check = r.dev_check
        if i and check is not None:
            check = check.model_copy(update={"passed": False, "value": check.floor / 2})
        records.append(r.model_copy(update={"dev_check": check}))
    return correlations_as_4_0(result.model_copy(update={"extrinsic": records}))


def two_intrinsic_series(result: AuditResult, *, follows: bool) -> AuditResult:
    """The intrinsic-vs-extrinsic example's models with two intrinsic series against its
    extrinsic task, as 4.0 records (detection limits, intervals): with `follows`, one
    series ranks the models exactly as the task does (significant after Holm); without,
    both are seeded shuffles of that order (not significant, and 2 tests on 12 models
    are underpowered). Only the order of the task's values matters, not the values."""
    import numpy as np

    from audit.ids import PluginId
    from audit.stats.correlation import correlate_measures

    ext = {r.model: abs(r.value) for r in result.extrinsic if r.value is not None}
    task = result.extrinsic[0]
    models = sorted(ext, key=lambda m: ext[m])

    def series(name: str | None, dataset: str, ideal: float) -> MeasureSeries:
        return MeasureSeries(
            measure=task.measure if name is None else PluginId.of(name),
            dataset=dataset,
            scorer=None if name is None else PluginId.of("aula"),
            label=name or task.measure.label,
            scale="distance",
            ideal_value=ideal,
        )

    rng = np.random.default_rng(7)
    orders = [rng.permutation(len(models)) for _ in range(2)]
    if follows:
        orders[0] = np.arange(len(models))
    bias = series("bias_score", "crows_pairs", 50.0)
    kls = series("kls", "crows_pairs", 50.0)
    target = series(None, task.dataset, 0.0)
    values = {
        bias: {m: float(orders[0][i]) for i, m in enumerate(models)},
        kls: {m: float(orders[1][i]) for i, m in enumerate(models)},
        target: {m: ext[m] for m in models},
    }
    records = correlate_measures(
        values,
        seed=0,
        family_of=lambda x, y: "intrinsic x extrinsic" if target in (x, y) else "intrinsic",
        n_bootstrap=200,
    )
    return result.model_copy(update={"correlations": records})


def perplexity_fell_and_rose(result: AuditResult) -> AuditResult:
    """The debiasing example's language-modelling cost with ratios of 0.6, 1.05, 0.97, ...:
    none damaged, the largest change a fall of 40%."""
    section = result.lm_quality
    assert section is not None and len(section.records) >= 2
    ratios = [0.6, 1.05, 0.97, 1.02, 0.99, 1.01]
    records = []
    for r, ratio in zip(section.records, ratios, strict=False):
        variant = r.variant_perplexity.model_copy(
            update={"value": r.base_perplexity.value * ratio, "ci_low": None, "ci_high": None}
        )
        update = {
            "ratio": ratio,
            "ratio_ci_low": ratio - 0.02,
            "ratio_ci_high": ratio + 0.02,
            "variant_perplexity": variant,
            "damage": "not damaged",
        }
        records.append(r.model_copy(update=update))
    lm = section.model_copy(update={"records": records})
    return result.model_copy(update={"lm_quality": lm})


@dataclass(frozen=True)
class Case:
    result: AuditResult
    report: ReportModel
    index: NumberIndex


LOADERS: dict[str, Callable[[], tuple[AuditResult, pd.DataFrame | None]]] = {
    **{f"example {name}": partial(_example, name) for name in EXAMPLES},
    "synthetic studied": lambda: (synthetic_studied_result(), synthetic_scores()),
    "synthetic variants": lambda: (variant_result(), None),
    "synthetic variants, control failed": lambda: (variant_result(control_works=False), None),
    "synthetic studied, more moves": lambda: (more_moves(synthetic_studied_result()), None),
    "synthetic variants, comparisons judged as 4.0": lambda: (
        comparisons_as_4_0(variant_result()),
        None,
    ),
    "debiasing, comparisons judged as 4.0": lambda: (
        comparisons_as_4_0(_example("debiasing")[0]),
        None,
    ),
    "intrinsic-vs-extrinsic, correlations as 4.0": lambda: (
        correlations_as_4_0(_example("intrinsic-vs-extrinsic")[0]),
        None,
    ),
    "intrinsic-vs-extrinsic, all but one failed the dev check": lambda: (
        all_but_one_failed(_example("intrinsic-vs-extrinsic")[0]),
        None,
    ),
    "intrinsic-vs-extrinsic, a significant pair": lambda: (
        two_intrinsic_series(_example("intrinsic-vs-extrinsic")[0], follows=True),
        None,
    ),
    "intrinsic-vs-extrinsic, no significant pair": lambda: (
        two_intrinsic_series(_example("intrinsic-vs-extrinsic")[0], follows=False),
        None,
    ),
    "debiasing, perplexity fell and rose": lambda: (
        perplexity_fell_and_rose(_example("debiasing")[0]),
        None,
    ),
}


@cache
def case(name: str) -> Case:
    result, scores = LOADERS[name]()
    return Case(result, build_report(result, scores), NumberIndex(result))


def _shown(problems: list[Problem]) -> str:
    return "\n".join(str(p) for p in problems)


@pytest.mark.parametrize("name", list(LOADERS))
def test_page_one_figures_follow_results_json(name: str) -> None:
    c = case(name)
    problems = check_page(c.report, c.result, c.index)
    assert not problems, _shown(problems)


def test_the_committed_examples_are_all_checked() -> None:
    assert {"debiasing", "intrinsic-vs-extrinsic", "meta-evaluation"} <= set(EXAMPLES)


# -- the checker itself: one figure changed, reported at exactly that sentence ----------


def _page_with(
    report: ReportModel, heading: str, old: str, new: str, *, item: int | None = None
) -> ReportModel:
    """The report with `old` replaced by `new` once, in the text (or item `item`) of the
    first page-1 finding whose heading contains `heading` and that holds `old`."""
    page = report.summary.page_one
    assert page is not None
    blocks = list(page.findings)
    i = next(
        i
        for i, b in enumerate(blocks)
        if heading in b.heading and old in (b.text if item is None else b.items[item])
    )
    block = blocks[i]
    if item is None:
        assert block.text.count(old) >= 1, (old, block.text)
        changed = block.model_copy(update={"text": block.text.replace(old, new, 1)})
    else:
        items = list(block.items)
        assert old in items[item], (old, items[item])
        items[item] = items[item].replace(old, new, 1)
        changed = block.model_copy(update={"items": items})
    blocks[i] = changed
    return _with_findings(report, blocks)


def _with_findings(report: ReportModel, blocks: list[SummaryBlock]) -> ReportModel:
    page = report.summary.page_one
    assert page is not None
    summary = report.summary.model_copy(
        update={"page_one": page.model_copy(update={"findings": blocks})}
    )
    return report.model_copy(update={"summary": summary})


def _flagged(name: str, report: ReportModel) -> set[tuple[str, str]]:
    c = case(name)
    return {(p.sentence, p.figure) for p in check_page(report, c.result, c.index)}


def _sentence(text: str, figure: str) -> str:
    """The sentence of `text` that holds `figure`."""
    from tests.report.page_figures import sentence_at

    return sentence_at(text, text.index(figure))


def _block(name: str, heading: str) -> SummaryBlock:
    page = case(name).report.summary.page_one
    assert page is not None
    return next(b for b in page.findings if heading in b.heading)


def _untraceable(index: NumberIndex, token: str) -> str:
    """A figure printed like `token` (sign, decimals, %, separators) as a value that no
    number, share or count of the file rounds to."""
    (figure,) = figures(token)
    sign = token[0] if token[0] in "+-−" else ""
    step = 10.0**-figure.decimals
    for k in range(1, 2000):
        value = abs(figure.value) + k * step * 7
        text = f"{value:,.{figure.decimals}f}" if "," in token else f"{value:.{figure.decimals}f}"
        candidate = sign + text + ("%" if figure.percent else "")
        (moved,) = figures(candidate)
        if not index.traces(moved, absolute=True):
            return candidate
    raise AssertionError(f"every figure near {token} is in the file")


def test_a_changed_value_of_a_move_is_reported() -> None:
    name = "synthetic variants"
    block = _block(name, "Debiased variants.")
    item = block.items[0]
    assert " → 50.5 " in item
    report = _page_with(case(name).report, "Debiased variants.", "→ 50.5", "→ 50.9", item=0)
    assert _flagged(name, report) == {(item.replace("50.5", "50.9"), "50.9")}


def test_moves_out_of_order_are_reported() -> None:
    """The moves listed by |difference|, largest first: two swapped are reported at the
    one listed after a smaller change."""
    name = "synthetic variants"
    report = case(name).report
    page = report.summary.page_one
    assert page is not None
    blocks = list(page.findings)
    i = next(i for i, b in enumerate(blocks) if b.heading == "Debiased variants.")
    first, second, *rest = blocks[i].items
    blocks[i] = blocks[i].model_copy(update={"items": [second, first, *rest]})
    (d,) = re.findall(r"\((-\d+\.\d) \[", first)
    assert _flagged(name, _with_findings(report, blocks)) == {(first, d)}


def test_a_changed_count_of_verdicts_is_reported() -> None:
    name = "synthetic variants"
    text = _block(name, "Debiased variants.").text
    report = _page_with(case(name).report, "Debiased variants.", "3 closer to", "2 closer to")
    changed = text.replace("3 closer to", "2 closer to")
    assert _flagged(name, report) == {(_sentence(changed, "2 closer to"), "2")}


def test_a_changed_detectable_difference_is_reported() -> None:
    name = "synthetic studied"
    text = _block(name, "Paired comparison").text
    assert "below 5.7 were undetectable" in text
    report = _page_with(case(name).report, "Paired comparison", "below 5.7", "below 7.5")
    changed = text.replace("below 5.7", "below 7.5")
    assert _flagged(name, report) == {(_sentence(changed, "below 7.5"), "7.5")}


def test_a_changed_count_of_distinct_comparisons_is_reported() -> None:
    """The 4.0 family counts each finding once: the bias score and StereoSet's SS on the
    same pairs are one test (`same_test_as`); counting the twins too is reported."""
    name = "debiasing, comparisons judged as 4.0"
    c = case(name)
    page = c.report.summary.page_one
    assert page is not None
    block = next(b for b in page.findings if "repeat an identical one" in b.text)
    m = re.search(r"of (\d+) distinct paired comparisons", block.text)
    twins = re.search(r"(\d+) more comparisons? repeats? an identical one", block.text)
    assert m is not None and twins is not None
    wrong = str(int(m.group(1)) + int(twins.group(1)))
    old, new = m.group(0), m.group(0).replace(m.group(1), wrong)
    report = _page_with(c.report, "Debiased variants.", old, new)
    changed = block.text.replace(old, new, 1)
    assert _flagged(name, report) == {(_sentence(changed, new), wrong)}


NULL = "intrinsic-vs-extrinsic, no significant pair"


def test_a_changed_critical_tau_is_reported() -> None:
    text = _block(NULL, "Intrinsic vs extrinsic.").text
    m = re.search(r"\|τ\| had to reach (\d\.\d\d)", text)
    assert m is not None
    wrong = _untraceable(case(NULL).index, m.group(1))
    new = f"|τ| had to reach {wrong}"
    report = _page_with(case(NULL).report, "Intrinsic vs extrinsic.", m.group(0), new)
    assert _flagged(NULL, report) == {(_sentence(text.replace(m.group(0), new), new), wrong)}


def test_a_strongest_pair_with_the_wrong_sign_is_reported() -> None:
    """The strongest pair is the largest |τ|, with its sign."""
    text = _block(NULL, "Intrinsic vs extrinsic.").text
    m = re.search(r"\(τ (-?)(0\.\d\d) \[", text)
    assert m is not None and m.group(2) != "0.00"
    flipped = m.group(2) if m.group(1) else f"-{m.group(2)}"
    new = f"(τ {flipped} ["
    report = _page_with(case(NULL).report, "Intrinsic vs extrinsic.", m.group(0), new)
    assert _flagged(NULL, report) == {(_sentence(text.replace(m.group(0), new), new), flipped)}


def test_an_underpowered_study_that_says_do_not_predict_is_reported() -> None:
    """No pair significant, the test without the power asked for: page 1 says what the
    study could not have detected; 'do not predict' in its place is reported twice, as
    a conclusion and as the detection limit's missing words."""
    text = _block(NULL, "Intrinsic vs extrinsic.").text
    m = re.search(r", so this study could not have detected [^)]*\)\.", text)
    assert m is not None
    claim = "; the intrinsic measures do not predict the downstream bias."
    report = _page_with(case(NULL).report, "Intrinsic vs extrinsic.", m.group(0), claim)
    problems = check_page(report, case(NULL).result, case(NULL).index)
    assert {(p.sentence, p.figure) for p in problems} == {
        (_sentence(text.replace(m.group(0), claim), claim), ""),
        ("", ""),
    }
    assert any("could not have detected" in p.why for p in problems)


def test_a_tie_named_at_a_rank_told_apart_is_reported() -> None:
    """The tied set named with its ranks: a series named at a rank that the paired
    bootstrap tells apart from rank 1 is reported at that rank."""
    name = "synthetic variants"
    text = _block(name, "Meta-evaluation.").text
    meta = case(name).result.meta_evaluations[0]
    apart = next(r for r in meta.rows if r.ties_first is False)
    kls = next(r for r in meta.rows if r.ties_first is True)
    old, new = f"(rank {kls.rank})", f"(rank {apart.rank})"
    report = _page_with(case(name).report, "Meta-evaluation.", old, new)
    changed = text.replace(old, new)
    assert _flagged(name, report) == {(_sentence(changed, new), str(apart.rank))}


LM = "debiasing, perplexity fell and rose"


def test_a_perplexity_change_with_the_wrong_sign_is_reported() -> None:
    text = _block(LM, "Language-modelling cost.").text
    assert "(−40%, ratio 0.600 [0.580, 0.620])" in text
    report = _page_with(case(LM).report, "Language-modelling cost.", "(−40%,", "(+40%,")
    assert _flagged(LM, report) == {(_sentence(text, "(−40%").replace("−40%", "+40%"), "+40%")}


def test_within_the_threshold_when_the_largest_change_is_not_is_reported() -> None:
    """The damage threshold is one-sided (a rise): 'stayed within +10%' beside a fall of
    40% misstates the change."""
    text = _block(LM, "Language-modelling cost.").text
    m = re.search(r"no variant's perplexity (.*?) rose by more than (\S+%) over", text)
    assert m is not None
    new = f"every variant's perplexity {m.group(1)} stayed within {m.group(2)} of"
    report = _page_with(case(LM).report, "Language-modelling cost.", m.group(0), new)
    changed = text.replace(m.group(0), new)
    assert _flagged(LM, report) == {(_sentence(changed, "within"), m.group(2))}


def test_a_largest_change_that_is_not_largest_is_reported() -> None:
    """'largest change' names the variant with the largest |ratio - 1| (a fall of 40%);
    naming the one that rose 5%, with its own correct numbers, is reported at the name."""
    section = case(LM).result.lm_quality
    assert section is not None
    first, second = section.records[:2]
    old = f"largest change: {first.variant}, {_ppl_words(first)}"
    new = f"largest change: {second.variant}, {_ppl_words(second)}"
    text = _block(LM, "Language-modelling cost.").text
    report = _page_with(case(LM).report, "Language-modelling cost.", old, new)
    assert _flagged(LM, report) == {(_sentence(text.replace(old, new), new), "")}


def test_a_wrong_count_of_moves_left_out_is_reported() -> None:
    name = "synthetic studied, more moves"
    block = _block(name, "Paired comparison")
    assert block.items[-1].startswith("and 2 more")
    report = _page_with(case(name).report, "Paired comparison", "and 2 more", "and 3 more", item=3)
    assert _flagged(name, report) == {(block.items[-1].replace("2", "3", 1), "3")}


def test_a_study_without_its_sentence_is_reported() -> None:
    """A structured check cannot pass by matching nothing: results.json has debiased
    variants, page 1 without their sentence is reported."""
    name = "synthetic variants"
    report = case(name).report
    page = report.summary.page_one
    assert page is not None
    kept = [b for b in page.findings if b.heading != "Debiased variants."]
    problems = check_page(_with_findings(report, kept), case(name).result, case(name).index)
    assert [p.why for p in problems] == ["no sentence on the debiased variants of smollm2-135m"]


def test_a_changed_figure_no_structured_check_reads_is_reported() -> None:
    """The generic check: a robustness agreement that no share of the file rounds to."""
    name = "synthetic studied"
    text = _block(name, "Robustness").text
    m = re.search(r"\(agreement (\d+%)\)", text)
    assert m is not None
    wrong = _untraceable(case(name).index, m.group(1))
    new = f"(agreement {wrong})"
    report = _page_with(case(name).report, "Robustness", m.group(0), new)
    assert _flagged(name, report) == {(_sentence(text.replace(m.group(0), new, 1), new), wrong)}


# -- every figure is checked: changed, it is reported --------------------------------

_WHERE = re.compile(
    r"^(?P<part>gates|findings)\[(?P<i>\d+)\]\.(?P<field>heading|text|items)(?:\[(?P<j>\d+)\])?$"
)


def _report_with(report: ReportModel, where: str, text: str) -> ReportModel:
    """The report with the page-1 text at `where` (a `page_figures.Text.where`) replaced."""
    page = report.summary.page_one
    assert page is not None
    if where == "verdict":
        summary = report.summary.model_copy(update={"verdict_text": text})
        return report.model_copy(update={"summary": summary})
    if where == "caveats":
        page = page.model_copy(update={"caveat_text": text})
    elif where in ("models caption", "gates caption"):
        page = page.model_copy(update={where.replace(" ", "_"): text})
    else:
        m = _WHERE.match(where)
        assert m is not None, where
        blocks = list(getattr(page, m.group("part")))
        block = blocks[int(m.group("i"))]
        if m.group("field") == "items":
            items = list(block.items)
            items[int(m.group("j"))] = text
            block = block.model_copy(update={"items": items})
        else:
            block = block.model_copy(update={m.group("field"): text})
        blocks[int(m.group("i"))] = block
        page = page.model_copy(update={m.group("part"): blocks})
    summary = report.summary.model_copy(update={"page_one": page})
    return report.model_copy(update={"summary": summary})


def _bumped(token: str) -> str:
    """The figure with its last digit moved by one: '49.2' -> '49.3', '−65%' -> '−66%'."""
    mantissa, e, exponent = token.partition("e")
    i = max(i for i, ch in enumerate(mantissa) if ch.isdigit())
    digit = str((int(mantissa[i]) + 1) % 10)
    return mantissa[:i] + digit + mantissa[i + 1 :] + e + exponent


SWEPT = [
    "synthetic studied, more moves",
    "synthetic variants, comparisons judged as 4.0",
    "intrinsic-vs-extrinsic, correlations as 4.0",
    "intrinsic-vs-extrinsic, a significant pair",
    "example debiasing",
    "example posthoc-debiasing",
]


@pytest.mark.parametrize("name", SWEPT)
def test_every_figure_of_page_one_is_checked(name: str) -> None:
    """Each figure of page 1 changed in turn is reported at that figure: one a structured
    check confirmed, by one unit of its last digit (whatever other number of the file it
    then equals); any other, to a value no number of the file rounds to. (The facts and
    fingerprints are compared whole, by `check_facts`.)"""
    c = case(name)
    page, found = run_checks(c.report, c.result, c.index)
    texts = [
        t
        for t in page.texts
        if t.where == "verdict"
        or t.where == "caveats"
        or "caption" in t.where
        or _WHERE.match(t.where)
    ]
    missed = []
    checked = 0
    for text in texts:
        for figure in found.figures(text):
            if figure.below or figure.scientific:
                continue  # '< 0.001' and '1.15e-06' are read by their structured checks
            vouched = (text.where, figure.start) in found.vouched
            new = _bumped(figure.token) if vouched else _untraceable(c.index, figure.token)
            changed = text.text[: figure.start] + new + text.text[figure.end :]
            report = _report_with(c.report, text.where, changed)
            problems = check_page(report, c.result, c.index)
            checked += 1
            if not any(p.where == text.where and p.figure == new for p in problems):
                missed.append(f"{text.where}: {figure.token!r} -> {new!r} in {text.text!r}")
    assert checked > 20
    assert not missed, "\n".join(missed)


# -- reading figures ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("838 of 1,508 pairs (55.6%)", ["838", "1,508", "55.6%"]),
        ("49.2 → 56.5 (+7.3 [+0.4, +14.1])", ["49.2", "56.5", "+7.3", "+0.4", "+14.1"]),
        ("(−65%, ratio 0.345 [0.322, 0.369])", ["−65%", "0.345", "0.322", "0.369"]),
        ("Spearman 0.98, p < 0.001", ["0.98", "< 0.001"]),
        ("power 19% < 80%", ["19%", "80%"]),
        ("attainable is 1.15e-06, above", ["1.15e-06"]),
        ("Kendall τ from -0.55 to 0.29", ["-0.55", "0.29"]),
        ("sha256 smollm2-135m Q4_1 bias-audit 0.1.0, seed 13", ["13"]),
        ("r=0 to 1; ranks 5, 6 and 15", ["0", "1", "5", "6", "15"]),
    ],
)
def test_figures_are_read_as_printed(text: str, tokens: list[str]) -> None:
    assert [f.token for f in figures(text)] == tokens


def test_ids_with_digits_are_not_figures() -> None:
    names = name_pattern({"minilm-bc-r0.5", "STS-bias[max_templates=30]", "gpt2"})
    text = "minilm-bc-r0.5 (rank 2) with STS-bias[max_templates=30] on gpt2: 0.5"
    assert [f.token for f in figures(text, names)] == ["2", "0.5"]


def test_the_index_traces_numbers_shares_and_counts() -> None:
    index = case("synthetic studied").index
    (share,) = figures("95%")  # 1 - alpha, the intervals' level
    (count,) = figures("45")  # gate checks
    assert index.traces(share) and index.traces(count)
    (no_share,) = figures("95.123%")
    (no_count,) = figures("1,000,001")
    assert not index.traces(no_share) and not index.traces(no_count)
