"""The short body and the appendix (issue 21, item 2): a large study's body keeps every
table to its row limit (rows significant after correction first, and a count of any it
left out), the
appendix holds every row, each body section links to its detail, and every link lands;
numbers print to what their interval supports; no Python list repr; scoring units say pairs
or sentences; a phone names the model of each p cell."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from audit.ids import PluginId
from audit.report.build import build_appendix, build_report
from audit.report.cells import interval, mean_sd
from audit.report.formatting import MAX_DIGITS, ci_digits, fixed_digits, fmt_num
from audit.report.index import MeasurementIndex
from audit.report.layout import BODY_ROWS, body_rows, build_layout, shorten
from audit.report.model import Cell, ReportModel, Table
from audit.report.render import render_html, write_report_files
from audit.report.variants import _option_value
from audit.results import AuditResult, MeasureSeries, UnitRecord
from audit.results_io import read_results, read_scores
from tests.report.conftest import Rendered
from tests.report.test_signed_document import check_signed, written_reports

N_EXTRA_MODELS = 30
N_CORRELATIONS = 150
#: Correlations made significant after correction, at the smallest |τ| (last in rank).
SIGNIFICANT = (3, 77, 140)


# ------------------------------------------------------------------------- rounding helpers


@pytest.mark.parametrize(
    ("low", "high", "digits"),
    [
        (53.1, 60.4, 1),  # half-width 3.65: 1 decimal
        (50.01, 50.39, 2),  # 0.19
        (0.01, 0.04, 3),  # 0.015
        (71.0, 100.0, 0),  # 14.5
        (-0.56, -0.418, 3),  # 0.071
        (0.3, 0.3000001, MAX_DIGITS),  # far narrower: capped
    ],
)
def test_ci_digits_are_two_significant_digits_of_the_half_width(
    low: float, high: float, digits: int
) -> None:
    assert ci_digits(low, high) == digits


def test_ci_digits_fall_back_without_an_interval() -> None:
    assert ci_digits(None, 1.0, 3) == 3
    assert ci_digits(1.0, 1.0, 2) == 2  # zero width
    assert ci_digits(float("nan"), 1.0, 1) == 1


def test_fixed_digits_never_print_seven_decimals() -> None:
    # the per-occupation gaps: one near 0 beside ordinary ones
    assert fixed_digits([0.051, -0.02, 2e-7], least=2) == 3
    assert fixed_digits([2e-7]) == MAX_DIGITS
    assert fixed_digits([12.5, 3.0]) == 0
    assert fixed_digits([12.5, 3.0], least=1) == 1
    assert fixed_digits([None, 0.0], least=2) == 2


def test_estimate_cells_round_to_their_interval() -> None:
    cell = interval(56.91234, 53.1, 60.4, 3)
    assert cell.digits == 1 and fmt_num(cell.value, cell.digits) == "56.9"
    assert interval(0.5, None, None, 3).digits == 3
    assert mean_sd(0.4123, 0.021, 1).digits == 3
    assert mean_sd(0.4123, None, 1).digits == 1


# ------------------------------------------------------------------------ the row choice


def _table(n: int, **update: object) -> Table:
    rows = [[Cell(kind="text", text=f"row {i}")] for i in range(n)]
    return Table(id="t", title="T", columns=["Row"], rows=rows).model_copy(update=update)


def test_body_rows_keep_key_rows_then_rank_up_to_the_limit() -> None:
    table = _table(30, key_rows=[29, 28], rank=[5, 4, 3, 2, 1, 0])
    assert body_rows(table, 4) == [4, 5, 28, 29]
    assert body_rows(_table(3), 4) == [0, 1, 2]
    # more key rows than the limit: the limit holds, the key rows in rank order fill it
    assert body_rows(_table(30, key_rows=list(range(10))), 4) == [0, 1, 2, 3]
    assert body_rows(_table(30, key_rows=[1, 7, 8], rank=[8, 7, 1]), 2) == [7, 8]
    long = shorten(_table(30, key_rows=list(range(10))), "B.1")
    assert len(long.rows) == BODY_ROWS and long.more is not None
    few = shorten(_table(30, key_rows=list(range(20))).model_copy(update={"body_limit": 4}), "B.1")
    assert len(few.rows) == 4
    assert few.more is not None and "(20 key rows: 16 of them not shown here)" in few.more.text
    # without a rank, the table's own order
    assert body_rows(_table(30), 3) == [0, 1, 2]


def test_a_shortened_table_links_to_the_whole_one() -> None:
    table = _table(20).model_copy(update={"notes": ["1. a note", "about the whole table"]})
    short = shorten(table, "B.2")
    assert short.id == "t-body" and len(short.rows) == BODY_ROWS
    assert short.more is not None and short.more.href == "#t"
    assert f"{BODY_ROWS} of 20 rows" in short.more.text and "Appendix B.2" in short.more.text
    assert short.notes == ["about the whole table"]  # no shown cell refers to note 1
    assert shorten(_table(5), "B.2") == _table(5)


def test_body_columns_cut_the_columns_and_send_the_table_to_the_appendix() -> None:
    rows = [[Cell(kind="text", text=f"{i}-{j}") for j in range(4)] for i in range(3)]
    table = Table(
        id="w",
        title="W",
        columns=["a", "b", "c", "d"],
        rows=rows,
        key_columns=2,
        column_subs=["", "s", "", ""],
        body_columns=[0, 2],
    )
    short = shorten(table, "A.1")
    assert short.columns == ["a", "c"] and short.column_subs == ["", ""]
    assert [[c.text for c in r] for r in short.rows] == [
        ["0-0", "0-2"],
        ["1-0", "1-2"],
        ["2-0", "2-2"],
    ]
    assert short.key_columns == 1
    assert short.more is not None and "2 of 4 columns" in short.more.text


# --------------------------------------------------------------------- a large study


def _large(result: AuditResult) -> AuditResult:
    """The synthetic audit with N_EXTRA_MODELS more models (copies of bert-base-uncased's
    measurements) and N_CORRELATIONS correlation records, SIGNIFICANT of them significant
    after correction at the weakest |τ|."""
    first = result.models[0]
    models = list(result.models)
    measurements = list(result.measurements)
    for i in range(N_EXTRA_MODELS):
        name = f"extra-{i:02d}"
        models.append(first.model_copy(update={"id": name}))
        measurements += [
            m.model_copy(update={"model": name}) for m in result.measurements if m.model == first.id
        ]
    template = result.correlations[0]
    correlations = []
    for i in range(N_CORRELATIONS):
        significant = i in SIGNIFICANT
        tau = 0.01 if significant else 0.9 - i * 0.005
        p = 0.001 if significant else 0.5
        correlations.append(
            template.model_copy(
                update={
                    "x": MeasureSeries(measure=PluginId.of("kls"), dataset=f"set{i}", label="kls"),
                    "y": MeasureSeries(measure=PluginId.of("jss"), dataset=f"set{i}", label="jss"),
                    "kendall_tau": tau,
                    "kendall_p": p,
                    "kendall_p_corrected": p,
                    "spearman_p_corrected": p,
                    "pearson_p_corrected": p,
                }
            )
        )
    return result.model_copy(
        update={"models": models, "measurements": measurements, "correlations": correlations}
    )


class Blocks(HTMLParser):
    """Per table block (by id): body rows, and whether it sits in the appendix; every id
    and every internal link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, int] = {}
        self.in_appendix: dict[str, bool] = {}
        self.ids: set[str] = set()
        self.links: list[str] = []
        self._block = ""
        self._appendix = False
        self._tbody = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        if tag == "section" and a.get("id") == "appendix":
            self._appendix = True
        if tag == "div" and "table-block" in a.get("class", ""):
            self._block = a["id"]
            self.rows[self._block] = 0
            self.in_appendix[self._block] = self._appendix
        elif tag == "tbody":
            self._tbody = True
        elif tag == "tr" and self._tbody:
            self.rows[self._block] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._tbody = False


@pytest.fixture(scope="module")
def large(rendered: Rendered) -> tuple[ReportModel, str, Blocks]:
    report = build_report(_large(rendered.result))
    html = render_html(report)
    blocks = Blocks()
    blocks.feed(html)
    return report, html, blocks


def test_a_large_study_keeps_every_body_table_short(
    large: tuple[ReportModel, str, Blocks],
) -> None:
    report, _, blocks = large
    # the cover's datasets table (one row per dataset) is not cut; its Models table is:
    # 33 models print 8 rows in the body and the whole table in the appendix
    assert blocks.rows["models-body"] == BODY_ROWS and blocks.in_appendix["models"]
    assert blocks.rows["models"] == len(report.cover.models.rows) > BODY_ROWS
    body = {b: n for b, n in blocks.rows.items() if not blocks.in_appendix[b] and b != "datasets"}
    assert body, "the body has tables"
    for block, n in body.items():
        assert n <= BODY_ROWS, (block, n)
    # the body never shows a detail table (per group, diagnostics)
    detail = {t.id for d in report.datasets for t in d.tables if t.detail}
    assert detail and not detail & set(body)
    # a body of some pages, whatever the size of the study: 30 more models added no table
    assert len(body) <= 12 and sum(body.values()) <= 12 * BODY_ROWS


def test_the_appendix_holds_every_row(large: tuple[ReportModel, str, Blocks]) -> None:
    report, _, blocks = large
    whole = [
        *[t for d in report.datasets for t in d.tables],
        *[t for s in report.studies for t in s.tables],
    ]
    for table in whole:
        if table.detail or len(table.rows) > BODY_ROWS or table.body_columns:
            assert blocks.in_appendix[table.id], table.id
            assert blocks.rows[table.id] == len(table.rows), table.id
    assert blocks.rows["correlation-table"] == N_CORRELATIONS


def test_the_body_never_hides_a_significant_correlation(
    large: tuple[ReportModel, str, Blocks],
) -> None:
    _, html, _ = large
    body = html[html.index('id="correlation-table-body"') : html.index('<section id="appendix"')]
    body = body[: body.index("</table>")]
    for i in SIGNIFICANT:
        assert f"set{i}" in body, i
    # 6 rows: the significant ones, then the strongest |τ| (rows 0 to 3 but 3)
    shown = {int(n) for n in re.findall(r"set(\d+)", body)}
    assert shown == {*SIGNIFICANT, 0, 1, 2}


def test_each_section_links_to_its_detail_and_every_link_lands(
    large: tuple[ReportModel, str, Blocks],
) -> None:
    report, html, blocks = large
    missing = sorted({link for link in blocks.links if link not in blocks.ids})
    assert missing == []
    layout = build_layout(report)
    for d in report.datasets:
        links = layout.see_also[d.anchor]
        assert links and links[0].href == f"#detail-{d.anchor}"
        assert re.search(rf'<details class="appendix-part" id="detail-{d.anchor}"', html)
    assert [a.letter for a in layout.appendix] == ["A", "B", "C", "D"][: len(layout.appendix)]
    # the measure cards and the environment are appendix parts, after the sign-off
    assert html.index('id="signoff"') < html.index('id="appendix"') < html.index('id="cards"')
    assert html.index('id="cards"') < html.index('id="units"')


def test_the_pdf_starts_the_appendix_on_a_new_page() -> None:
    from audit.report.templating import read_asset

    css = read_asset("report.css")
    printed = css[css.index("@media print") :]
    assert re.search(r"#appendix \{ break-before: page; \}", printed)


# -------------------------------------------------------------------------- defects


def test_option_lists_print_as_lists_not_as_python() -> None:
    assert _option_value(["age", "socioeconomic"]) == "age, socioeconomic"
    assert _option_value([]) == "none"
    assert _option_value(list(range(10))) == "10 values, 0 to 9"
    assert _option_value({"r": 8}) == "r 8"


def test_scoring_units_count_pairs_for_a_pair_scorer(rendered: Rendered) -> None:
    result = rendered.result
    cps = PluginId.of("cps")
    units = [
        UnitRecord(
            model="bert-base-uncased",
            dataset="crows_pairs",
            scorer=cps,
            sentences=300,
            computed=150,
            cached=0,
            seconds=1.0,
        ),
        UnitRecord(
            model="bert-base-uncased",
            dataset="crows_pairs",
            scorer=PluginId.of("aul"),
            sentences=300,
            computed=300,
            cached=0,
            seconds=1.0,
        ),
    ]
    from audit.migrations.v1_cards import v1_cards

    scorer_cards = [c for c in v1_cards() if c.kind == "scorer" and c.name in ("cps", "aul")]
    assert {c.name: c.shape for c in scorer_cards} == {"cps": "pair", "aul": "sentence"}
    plugins = [c for c in result.plugins if c.kind != "scorer"] + scorer_cards
    changed = result.model_copy(update={"units": units, "plugins": plugins})
    table = next(t for t in build_appendix(MeasurementIndex(changed)) if t.id == "units")
    assert table.columns[3:6] == ["Sentences", "Scored now", "From cache"]
    assert [r[4].text for r in table.rows] == ["150 pairs", "300 sentences"]
    assert [r[5].text for r in table.rows] == ["0 pairs", "0 sentences"]


def test_a_phone_names_the_model_of_each_p_cell(rendered: Rendered) -> None:
    html = rendered.html
    block = html[html.index('id="crows-pairs-bias-score-groups"') :]
    block = block[: block.index("</table>")]
    labels = re.findall(r'data-label="(p[^"]*)"', block)
    assert labels and all(re.fullmatch(r"p \(.+\)", label) for label in labels), labels
    assert 'data-label="p (bert-base-uncased)"' in block


# ------------------------------------------------------------- the committed examples

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"


#: The most pages a committed example's body (everything before the Appendix) may have.
@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "debiasing",
        "debiasing-downstream",
        "intrinsic-vs-extrinsic",
        "meta-evaluation",
        "posthoc-debiasing",
        "chat-template/raw",
    ],
)
def test_committed_examples_sign_a_document_of_at_most_12_pages(name: str, tmp_path: Path) -> None:
    """The signed report.pdf (page 1 with its sign-off, and the body) has at most 12
    pages whatever the example holds (debiasing-downstream: debiased variants, an
    extrinsic task, its correlations and the literature together); the appendix is its
    own file, whose sha256 page 1 prints."""
    folder = EXAMPLES / name
    result = read_results(folder / "results.json")
    report = build_report(result, read_scores(folder, result))
    write_report_files(report, tmp_path, ["html", "pdf"])
    check_signed(written_reports(tmp_path))


def test_a_phone_names_each_p_of_the_correlation_table(rendered: Rendered) -> None:
    html = rendered.html
    block = html[html.index('id="correlation-table"') :]
    labels = set(re.findall(r'data-label="([^"]*p[^"]*)"', block[: block.index("</table>")]))
    assert {"Pearson p", "Spearman p (corr.)", "Kendall p (corr.)"} <= labels
    assert "p" not in labels and "p (corr.)" not in labels
