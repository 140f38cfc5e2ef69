"""The report of an audit with variants: variants beside their base in every table, the
Variants section (training, corpora, against the base), the meta-evaluation with its control
check stated first, page 1, the small-variants caveat; HTML and PDF."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from audit.report.build import build_report
from audit.report.formatting import fmt_ci, fmt_num, fmt_p
from audit.report.index import MeasurementIndex
from audit.report.model import ReportModel
from audit.report.pdf import ReportOnlyFetcher, write_pdf
from audit.report.render import render_html
from audit.results import COMPARISON_VERDICTS, AuditResult, ModelRecord
from tests.report.conftest import Rendered
from tests.report.html_parse import parse
from tests.report.synthetic_variants import (
    BASE,
    DEBIASED,
    ENTRY,
    MINILM,
    RATIOS,
    ratio_id,
    variant_result,
)
from tests.report.test_layout import MIN_WORDS, _pages, _probe, short_pages_allowed


@dataclass
class Page:
    result: AuditResult
    report: ReportModel
    html: str


@pytest.fixture(scope="module")
def worked() -> Page:
    result = variant_result(control_works=True)
    report = build_report(result)
    return Page(result, report, render_html(report))


@pytest.fixture(scope="module")
def failed() -> Page:
    result = variant_result(control_works=False)
    report = build_report(result)
    return Page(result, report, render_html(report))


@pytest.fixture(scope="module")
def pdf(worked: Page, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReportOnlyFetcher]:
    fetcher = ReportOnlyFetcher()
    path = write_pdf(worked.html, tmp_path_factory.mktemp("variants") / "report.pdf", fetcher)
    return path, fetcher


def _section(html: str, anchor: str) -> str:
    start = html.index(f'<section class="variant-section" id="{anchor}">')
    return html[start : html.index("</section>", start)]


# --------------------------------------------------------------------------- beside the base


def test_models_tables_show_each_variant_with_its_method_and_base(worked: Page) -> None:
    page = parse(worked.html)
    models = [row[0] for row in page.table("models")[1:]]
    assert models[:5] == [
        BASE,
        f"{BASE}-cda CDA of {BASE}",
        f"{BASE}-dropout dropout debiasing of {BASE}",
        f"{BASE}-at AT of {BASE}",
        MINILM,
    ]
    assert models[5] == f"{ratio_id(0.0)} bias-controlled fine-tuning of {MINILM}, r = 0"
    overview = [row[0] for row in page.table("crows-pairs-overview")[1:]]
    assert overview[1] == f"{BASE}-cda CDA of {BASE}"
    assert len(overview) == len(worked.result.models)


def test_per_group_tables_are_split_with_the_base_heading_each_part(worked: Page) -> None:
    page = parse(worked.html)
    parts = [i for i in page.table_ids if i.startswith("crows-pairs-bias-score-groups")]
    assert parts[0] == "crows-pairs-bias-score-groups" and len(parts) > 2
    seen: list[str] = []
    for table_id in parts:
        header = page.table(table_id)[0]
        models = [h.split(" ", 1)[0] for h in header[2::2]]  # model, p, model, p, ...
        seen += models
        assert len(models) <= 5
        if any(m.startswith(ENTRY) for m in models):
            assert models[0] == MINILM  # the base heads every part of its ratio models
    assert seen.count(MINILM) == len(parts) - 1
    assert sorted(set(seen)) == sorted(m.id for m in worked.result.models)
    first = page.table("crows-pairs-bias-score-groups")[0]
    assert first[4] == f"{BASE}-cda CDA of {BASE}"
    # the per-group tables are detail: in the appendix, linked from the dataset's section,
    # not in the contents
    contents = worked.html[worked.html.index('id="contents"') : worked.html.index("</nav>")]
    assert "#crows-pairs-bias-score-groups" not in contents
    appendix = worked.html[worked.html.index('<section id="appendix"') :]
    assert 'id="crows-pairs-bias-score-groups-part2"' in appendix
    start = worked.html.index('id="dataset-crows-pairs"')
    section = worked.html[start : worked.html.index("</section>", start)]
    assert 'href="#detail-dataset-crows-pairs"' in section


def test_group_charts_are_split_and_name_their_variants(worked: Page) -> None:
    charts = [c for d in worked.report.datasets for c in d.charts]
    crows = [c for c in charts if c.id.startswith("crows-pairs-bias-score-chart")]
    assert len(crows) > 1 and [c.listed for c in crows] == [True] + [False] * (len(crows) - 1)
    assert f"Variants: {BASE}-cda is CDA of {BASE}" in crows[0].caption
    ratio_part = crows[-1]
    assert "bias-controlled fine-tuning of minilm-mlm at male shares r =" in ratio_part.caption


def test_unit_parts_keep_families_and_every_model_once(worked: Page) -> None:
    index = MeasurementIndex(worked.result)
    parts = index.unit_parts("crows_pairs", 5)
    flat = [u.model for part in parts for u in part]
    assert [u.model for u in parts[0]] == [BASE, *DEBIASED]
    assert all(part[0].model == MINILM for part in parts[1:])
    assert sorted(set(flat)) == sorted(m.id for m in worked.result.models)
    assert len(flat) == len(set(flat)) + len(parts) - 2  # only the base repeats
    sizes = [len(p) for p in parts[1:]]
    assert max(sizes) - min(sizes) <= 1  # ratio models spread evenly
    assert index.unit_parts("crows_pairs", 100) == [index.units("crows_pairs")]


# --------------------------------------------------------------------------- Variants section


def test_variants_and_training_tables(worked: Page) -> None:
    page = parse(worked.html)
    rows = page.table("variants-table")
    assert rows[0][:5] == ["Variant", "Method and options", "Corpus", "Examples", "This run"]
    body = {row[0].split(" ", 1)[0]: row for row in rows[1:]}
    assert list(body) == [v.id for v in worked.result.variants]
    assert body[f"{BASE}-dropout"][4] == "from the cache"
    assert body[f"{BASE}-cda"][4] == "trained"
    assert body[f"{BASE}-at"][1].endswith("alpha = 0.2, beta = 0.8")
    assert "ratios = 11 values, 0 to 1" in body[ratio_id(0.5)][1]
    for v in worked.result.variants:
        assert v.probe is not None
        assert body[v.id][7].startswith(fmt_num(v.probe.he_share, 2))
    training = {row[0]: row for row in page.table("variant-training")[1:]}
    at = next(v for v in worked.result.variants if v.id == f"{BASE}-at")
    row = training[at.id]
    assert row[1] == "AT: debias + regulariser" and row[2] == "300" and row[7] == "rank 8, alpha 16"
    assert row[-1] == f"{fmt_num(at.summary.first_loss, 3)} → {fmt_num(at.summary.last_loss, 3)}"
    assert 'id="variant-loss-chart"' in worked.html


def test_corpora_table_as_kaneko_table_1(worked: Page) -> None:
    rows = parse(worked.html).table("corpora-table")
    corpus = worked.result.corpora[0]
    assert rows[0][:6] == [
        "Corpus",
        "Sentences",
        "Female-only",
        "Male-only",
        "Mixed",
        "No gendered word",
    ]
    row = rows[1]
    assert row[1:6] == [
        f"{n:,}"
        for n in (
            corpus.sentences,
            corpus.female_only,
            corpus.male_only,
            corpus.mixed,
            corpus.neutral,
        )
    ]
    assert (
        row[6] == f"{fmt_num(corpus.ilps, 3)}{fmt_ci(corpus.ilps_ci_low, corpus.ilps_ci_high, 3)}"
    )
    assert row[7] == "male-skewed"
    assert "negative = male-skewed" in worked.html


def test_variants_against_their_base(worked: Page) -> None:
    rows = parse(worked.html).table("variant-comparison-table")
    assert rows[0][2] == "Variant (of base)"
    records = [c for c in worked.result.comparisons]
    assert len(rows) - 1 == len(records)
    first = rows[1]
    record = next(
        c
        for c in records
        if c.model_a == first[2].split(" ", 1)[0]
        and c.dataset == first[0].rstrip("0123456789")
        and c.measure.name == "bias_score"
    )
    assert first[2].endswith(f" of {BASE}") and record.model_b == BASE
    assert first[-1].rstrip("0123456789") == record.verdict
    # the distance test's p: corrected, with the raw one under it (these hand-made records
    # carry no correction, as a file before 4.0: the raw p alone)
    assert first[-4] == fmt_p(record.p_value)
    # the comparison study does not repeat them
    study = next(s for s in worked.report.studies if s.id == "comparison")
    assert not study.ran and "variants against their base" in study.not_run_reason


# --------------------------------------------------------------------------- meta-evaluation


def test_meta_evaluation_states_the_control_first_then_ranks(worked: Page) -> None:
    anchor = f"meta-{ENTRY}"
    section = _section(worked.html, anchor)
    meta = worked.result.meta_evaluations[0]
    assert meta.control.worked
    notice = section.index("The bias control worked.")
    # the body's copy of the ranking (without the Pearson p) follows the probe
    body_table = section.index(f'id="{anchor}-table-body"')
    assert notice < section.index(f'id="{anchor}-probe"') < body_table
    rows = parse(worked.html).table(f"{anchor}-table")
    # each series after rank 1 that the paired bootstrap does not tell apart from it
    # says so beside its rank
    assert [r[0] for r in rows[1:]] == [
        f"{row.rank}{' ties 1' if row.ties_first else ''}" for row in meta.rows
    ]
    assert [row.rank for row in meta.rows] == list(range(1, len(meta.rows) + 1))
    assert any(row.ties_first for row in meta.rows) and not all(
        row.ties_first for row in meta.rows[1:]
    )
    second = meta.rows[1]
    assert rows[2][9] == (
        f"{fmt_num(second.gap_to_first, 2)}"
        f"{fmt_ci(second.gap_to_first_ci_low, second.gap_to_first_ci_high, 2)}"
    )
    assert rows[1][1] == "Bias score" and rows[1][2] == "crows_pairs"
    top = meta.rows[0]
    assert (
        rows[1][7]
        == f"{fmt_num(top.spearman, 2)}{fmt_ci(top.spearman_ci_low, top.spearman_ci_high, 2)}"
    )
    assert rows[1][5] == fmt_num(top.pearson, 2)
    assert "not ranked" not in section


def test_a_failed_control_is_said_plainly_and_nothing_is_ranked(failed: Page) -> None:
    anchor = f"meta-{ENTRY}"
    meta = failed.result.meta_evaluations[0]
    assert not meta.control.worked
    section = _section(failed.html, anchor)
    assert section.index("The bias control did not work.") < section.index(
        "No ranking of measures."
    )
    assert "ranking measures" in section.lower() and "that is not done" in section
    rows = parse(failed.html).table(f"{anchor}-table")
    assert {r[0] for r in rows[1:]} == {"—"}
    assert "(not ranked)" in section
    summary = next(b for b in failed.report.summary.variants if b.heading == "Meta-evaluation.")
    assert "the bias control did not work, so no measure is ranked" in summary.text
    assert summary.emphasis == "warn"


def test_probe_chart_draws_p_he_p_she_and_the_share(worked: Page) -> None:
    section = next(s for s in worked.report.variant_sections if s.id == f"meta-{ENTRY}")
    chart = section.lead_charts[0]
    values = [
        row
        for data in chart.spec["datasets"].values()
        for row in data
        if row.get("series") in ("P(he)", "P(she)", "P(he) share")
    ]
    shares = [r["value"] for r in values if r["series"] == "P(he) share"]
    assert len(shares) == len(RATIOS)
    probes = {v.id: v.probe for v in worked.result.variants}
    first = probes[ratio_id(0.0)]
    assert first is not None
    assert {"r": 0.0, "series": "P(he)", "value": first.mean_p_he} in values


# --------------------------------------------------------------------------- page 1, caveats


def test_page_one_has_one_sentence_per_variant_study(worked: Page) -> None:
    blocks = worked.report.summary.variants
    assert [b.heading for b in blocks] == ["Debiased variants.", "Meta-evaluation."]
    assert blocks[0].text.startswith(
        f"3 debiased variants of {BASE} (CDA, dropout debiasing and AT) audited beside their base"
    )
    against = [c for c in worked.result.comparisons if c.model_a in DEBIASED]
    counts = {v: sum(c.verdict == v for c in against) for v in COMPARISON_VERDICTS}
    # these hand-made records carry no correction, as a file written before 4.0
    assert (
        f"of {len(against)} distinct paired comparisons with the base on the same items "
        "(uncorrected: results written before 4.0): "
    ) in blocks[0].text
    for verdict, n in counts.items():
        assert (f"{n} {verdict}" in blocks[0].text) == (n > 0)
    assert "the bias control worked" in blocks[1].text
    # the paired bootstrap does not tell KLS (rho 0.70) apart from the bias score (0.96)
    assert (
        "No measure follows it clearly best: rank 1, bias score on crows_pairs (pll) (Spearman "
        "0.96 [0.77, 1.00]), is not told apart by a paired bootstrap from KLS on crows_pairs "
        "(pll) (rank 2); |ρ| 0.70 to 0.96 among these 2."
    ) in blocks[1].text
    scope = worked.report.summary.scope
    assert scope.startswith(f"This audit measured 2 models ({BASE} and {MINILM}) and 14 variants")
    # ratio models are summed up, not listed one by one on page 1
    findings = " ".join(i for b in worked.report.summary.findings for i in b.items)
    assert ratio_id(0.5) not in findings and f"{BASE}-cda (CDA of {BASE})" in findings


def test_small_variants_caveat_is_built_from_steps_and_sizes(worked: Page) -> None:
    caveat = next(c for c in worked.report.caveats if c.id == "small-variants")
    assert "trained for 120 to 300 steps" in caveat.text
    assert f"{MINILM} has 22.7 million" in caveat.text
    assert f"{ENTRY} (11 models): 120 steps each on 412 sentences from {MINILM}" in caveat.trigger
    # long trainings of large models: no caveat
    result = worked.result
    big = [
        m.model_copy(update={"n_parameters": 7_000_000_000}) if isinstance(m, ModelRecord) else m
        for m in result.models
    ]
    long = [
        v.model_copy(update={"summary": v.summary.model_copy(update={"steps": 20_000})})
        for v in result.variants
    ]
    plain = build_report(result.model_copy(update={"models": big, "variants": long}))
    assert "small-variants" not in {c.id for c in plain.caveats}
    only_short = build_report(result.model_copy(update={"models": big}))
    short = next(c for c in only_short.caveats if c.id == "small-variants")
    assert short.title == "Briefly trained variants" and "BERT-size" not in short.text


def test_results_without_variants_have_no_variant_parts(rendered: Rendered) -> None:
    assert rendered.report.variant_sections == []
    assert rendered.report.summary.variants == []
    assert 'class="variant-section"' not in rendered.html
    # the only small labels are the correlation table's directions and the comparison
    # table's raw p-values and power, no variant's method
    subs = re.findall(r'<span class="sub">([^<]*)</span>', rendered.html)
    allowed = ("distance to ideal", "raw values", "raw ")
    assert all(s.startswith(allowed) or s.endswith(" power") for s in subs), subs
    assert "small-variants" not in {c.id for c in rendered.report.caveats}


# --------------------------------------------------------------------------- PDF and layout


def test_pdf_has_the_variant_sections_and_no_near_empty_page(
    worked: Page, pdf: tuple[Path, ReportOnlyFetcher]
) -> None:
    path, fetcher = pdf
    pages = _pages(path)
    text = "\n".join(pages)
    for words in (
        "Training of each variant",
        "Training corpora",
        "Variants against their base",
        f"Meta-evaluation: {ENTRY}",
        "The bias control worked.",
        "Variants of small models, briefly trained",
    ):
        assert words in text, words
    assert fetcher.requested and all(url.startswith("data:") for url in fetcher.requested)
    assert fetcher.blocked == []
    counts = [len(t.split()) for t in pages]
    ends = short_pages_allowed(pages)
    assert min(n for i, n in enumerate(counts) if i not in ends) >= MIN_WORDS, counts
    assert f"Page 1 of {len(pages)}" in text
    contents = next(t for t in pages[:6] if "Contents" in t)
    assert re.search(r"Meta-evaluation: minilm-mlm-bc .*?\.{3,} ?\d+", contents)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
@pytest.mark.parametrize("width", [390, 1280])
def test_in_chromium_variant_tables_fit(worked: Page, tmp_path: Path, width: int) -> None:
    seen = _probe(worked.html, width, tmp_path)
    assert seen["width"] == width
    assert seen["scroll"] <= width
    assert seen["bad"] == []


def test_sparse_variant_records_still_render(worked: Page) -> None:
    """No probe, no loss curve, no comparisons, a meta-evaluation without rows, corpora
    without variants: every part says what it lacks instead of failing."""
    result = worked.result
    bare = [
        v.model_copy(
            update={
                "probe": None,
                "summary": v.summary.model_copy(
                    update={"curve": [], "first_loss": None, "last_loss": None}
                ),
            }
        )
        for v in result.variants
    ]
    meta = result.meta_evaluations[0].model_copy(update={"rows": []})
    sparse = result.model_copy(
        update={"variants": bare, "comparisons": [], "meta_evaluations": [meta]}
    )
    report = build_report(sparse)
    html = render_html(report)
    page = parse(html)
    assert {r[7] for r in page.table("variants-table")[1:]} == {"—"}
    assert {r[-1] for r in page.table("variant-training")[1:]} == {"—"}
    assert "variant-comparison-table" not in page.table_ids
    assert "No paired comparison of a variant with its base is in results.json." in html
    assert 'id="variant-loss-chart"' not in html
    meta_section = next(s for s in report.variant_sections if s.id.startswith("meta-"))
    assert meta_section.lead_charts == [] and meta_section.charts == []
    summary = next(b for b in report.summary.variants if b.heading == "Meta-evaluation.")
    assert "No measure has a defined correlation with r" in summary.text
    corpora_only = build_report(
        result.model_copy(update={"variants": [], "comparisons": [], "meta_evaluations": []})
    )
    section = corpora_only.variant_sections[0]
    assert [t.id for t in section.tables] == ["corpora-table"]
    assert section.intro == "results.json holds training corpora but no trained variant."
