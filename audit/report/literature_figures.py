"""The published figures a report compares an audit with, in one place so that a reviewer
can check every number against its paper: each paper with its venue and proceedings
pages, each figure with its table (or figure), section and page, what it shows, and its
values.

Where the page of a table within its paper could not be established from the texts
available (HTML conversions without page numbers), `page` says PAGE_NOT_ESTABLISHED and
the paper's proceedings pages are given instead; `Paper.pages_source` says how those
were established. docs/report.md ("Compared with the literature") cites the same figures.

The papers name measures, tasks and methods in their own words; `PaperMeasure`,
`PaperTask` and `PaperMethod` say which plug-ins of this tool compute the same thing (by
plug-in name, the one place in the report that keeps such names besides the two noted in
docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The page of a table within its paper, when it could not be established.
PAGE_NOT_ESTABLISHED = "page not established"


@dataclass(frozen=True)
class Paper:
    """A paper and where its numbers come from."""

    citation: str
    short: str
    title: str
    venue: str
    pages: str
    pages_source: str
    text_source: str


@dataclass(frozen=True)
class PaperMeasure:
    """An intrinsic measure as a paper names it, and this tool's measure, scorer and
    dataset that compute it."""

    name: str
    measure: str
    scorer: str
    dataset: str


@dataclass(frozen=True)
class PaperTask:
    """An extrinsic measure as a paper names it, and this tool's extrinsic task measure."""

    name: str
    measure: str


@dataclass(frozen=True)
class PaperMethod:
    """A debiasing method as a paper names it, and this tool's variant method."""

    name: str
    method: str


@dataclass(frozen=True)
class Figure:
    """One published figure: where it is (table or figure, section, page) and what it is."""

    paper: Paper
    table: str
    section: str
    page: str
    what: str
    models: str

    def source(self) -> str:
        """'Kaneko et al. 2022 (COLING 2022), Table 2, §5.2; page not established (the
        paper: pp. 1299–1310)'."""
        page = self.page
        if page == PAGE_NOT_ESTABLISHED:
            page = f"{PAGE_NOT_ESTABLISHED} (the paper: pp. {self.paper.pages})"
        return f"{self.paper.short} ({self.paper.venue}), {self.table}, {self.section}; {page}"


@dataclass(frozen=True)
class MeasureOrder(Figure):
    """Measures ordered by how closely they follow a controlled bias, best first."""

    order: tuple[PaperMeasure, ...]
    by: str

    def headline(self) -> str:
        return f"{' > '.join(m.name for m in self.order)} ({self.by})"


@dataclass(frozen=True)
class TauCell:
    """One cell of a table of Kendall tau: before / after task fine-tuning, and whether
    the paper marked each significant."""

    intrinsic: PaperMeasure
    extrinsic: PaperTask
    before: float
    after: float
    significant_before: bool
    significant_after: bool


@dataclass(frozen=True)
class TauTable(Figure):
    """Kendall tau between intrinsic and extrinsic measures across models."""

    n_models: int
    cells: tuple[TauCell, ...]

    def strongest(self) -> TauCell:
        """The cell with the largest |tau| before task fine-tuning."""
        return max(self.cells, key=lambda c: abs(c.before))

    def headline(self) -> str:
        low, high = self.before_range()
        top = self.strongest()
        marks = sum(c.significant_before for c in self.cells)
        return (
            f"τ {low:.2f} to {high:.2f} over {len(self.cells)} pairs, {self.n_models} models "
            f"({marks} significant); strongest: {top.intrinsic.name} with "
            f"{top.extrinsic.name}, {top.before:.2f}"
        )

    def before_range(self) -> tuple[float, float]:
        values = [c.before for c in self.cells]
        return min(values), max(values)

    def after_range(self) -> tuple[float, float]:
        values = [c.after for c in self.cells]
        return min(values), max(values)


@dataclass(frozen=True)
class DebiasingDirection(Figure):
    """Which way debiasing moved intrinsic bias scores."""

    methods: tuple[PaperMethod, ...]
    measures: tuple[PaperMeasure, ...]
    lowered: bool

    def headline(self) -> str:
        methods = ", ".join(m.name for m in self.methods)
        measures = ", ".join(m.name for m in self.measures)
        return f"{methods} {'lowered' if self.lowered else 'raised'} {measures} bias"


KANEKO_2022 = Paper(
    citation="Kaneko, Bollegala & Okazaki 2022",
    short="Kaneko et al. 2022",
    title="Debiasing Isn't Enough! – On the Effectiveness of Debiasing MLMs and their "
    "Social Biases in Downstream Tasks",
    venue="COLING 2022",
    pages="1299–1310",
    pages_source="Proceedings of the 29th International Conference on Computational "
    "Linguistics, pages 1299–1310, as three later papers cite it in their reference lists "
    "(exact-string search of public repositories); the ACL Anthology page itself was not "
    "reachable",
    text_source="shared/seeds/001 (the paper's text, converted from its HTML)",
)

KANEKO_2023 = Paper(
    citation="Kaneko, Bollegala & Okazaki 2023",
    short="Kaneko et al. 2023",
    title="Comparing Intrinsic Gender Bias Evaluation Measures without using Human "
    "Annotated Examples",
    venue="EACL 2023",
    pages="2857–2863",
    pages_source="ACL Anthology, 2023.eacl-main.209 (Proceedings of the 17th Conference of "
    "the European Chapter of the ACL, pages 2857–2863)",
    text_source="shared/seeds/004 (reading notes on the paper, in Chinese, §4.3; the "
    "paper's own text is not among the seeds)",
)

#: Kaneko et al. 2022 evaluate SSS on StereoSet and CPS and AULA on CrowS-Pairs (§4.1),
#: each as the bias score (the share of pairs whose stereotypical sentence is preferred).
SSS_2022 = PaperMeasure("SSS", "bias_score", "sss", "stereoset")
CPS_2022 = PaperMeasure("CPS", "bias_score", "cps", "crows_pairs")
AULA_2022 = PaperMeasure("AULA", "bias_score", "aula", "crows_pairs")

BIASBIOS = PaperTask("BiasBios", "biasbios")
STS_BIAS = PaperTask("STS-bias", "sts_bias")
NLI_BIAS = PaperTask("NLI-bias", "nli_bias")


def _tau(
    intrinsic: PaperMeasure,
    extrinsic: PaperTask,
    before: float,
    after: float,
    significant: tuple[bool, bool] = (False, False),
) -> TauCell:
    return TauCell(intrinsic, extrinsic, before, after, *significant)


#: Kaneko et al. 2022, Table 2: Kendall tau across 28 MLMs (7 pretrained MLMs and their
#: AT, CDA and dropout versions), before / after fine-tuning on the task's data; † marks
#: the values the paper calls significant (Fisher's exact test).
KANEKO_2022_TABLE_2 = TauTable(
    paper=KANEKO_2022,
    table="Table 2",
    section="§5.2",
    page=PAGE_NOT_ESTABLISHED,
    what="Kendall τ between intrinsic (SSS, CPS, AULA) and extrinsic (BiasBios, STS-bias, "
    "NLI-bias) bias scores across 28 MLMs, before and after fine-tuning on the task's data "
    "(2 of 9 significant before, 1 after)",
    models="bert-base/large (cased, uncased), roberta-base/large, albert-base and their AT, "
    "CDA and dropout versions",
    n_models=28,
    cells=(
        _tau(SSS_2022, BIASBIOS, -0.02, 0.24),
        _tau(CPS_2022, BIASBIOS, -0.17, -0.17),
        _tau(AULA_2022, BIASBIOS, -0.20, 0.11),
        _tau(SSS_2022, STS_BIAS, 0.53, 0.38, (True, True)),
        _tau(CPS_2022, STS_BIAS, -0.08, 0.12),
        _tau(AULA_2022, STS_BIAS, 0.24, 0.13),
        _tau(SSS_2022, NLI_BIAS, 0.22, 0.21),
        _tau(CPS_2022, NLI_BIAS, 0.16, 0.05),
        _tau(AULA_2022, NLI_BIAS, 0.30, 0.17, (True, False)),
    ),
)

#: Kaneko et al. 2022, §4.4 on Figure 1: "For all debiasing methods, we see a reduction in
#: biases according to intrinsic bias evaluation measures SSS, CPS and AULA."
KANEKO_2022_FIGURE_1 = DebiasingDirection(
    paper=KANEKO_2022,
    table="Figure 1",
    section="§4.4",
    page=PAGE_NOT_ESTABLISHED,
    what="Bias before minus after debiasing: every method (AT, CDA, dropout) lowered the "
    "SSS, CPS and AULA bias scores (and STS-bias; BiasBios and NLI-bias rose)",
    models="the 7 pretrained MLMs of Table 2 (bert, roberta, albert), each debiased by "
    "further training on news-commentary-v15",
    methods=(PaperMethod("AT", "at"), PaperMethod("CDA", "cda"), PaperMethod("dropout", "dropout")),
    measures=(SSS_2022, CPS_2022, AULA_2022),
    lowered=True,
)

#: Kaneko et al. 2023 compute every measure on CrowS-Pairs (§4.3).
AULA_2023 = PaperMeasure("AULA", "bias_score", "aula", "crows_pairs")
AUL_2023 = PaperMeasure("AUL", "bias_score", "aul", "crows_pairs")
CPS_2023 = PaperMeasure("CPS", "bias_score", "cps", "crows_pairs")
SSS_2023 = PaperMeasure("SSS", "bias_score", "sss", "crows_pairs")

#: Kaneko et al. 2023, Table 1 as §4.3 reads it: on BERT, the correlation with the male
#: share r orders the measures AULA > AUL > CPS > SSS on both corpora (news, books), the
#: same order as with human-annotated examples; on ALBERT the two orders differ only in the
#: places of SSS and CPS (ALBERT's order itself is not stated in the text available).
KANEKO_2023_TABLE_1 = MeasureOrder(
    paper=KANEKO_2023,
    table="Table 1",
    section="§4.3",
    page=PAGE_NOT_ESTABLISHED,
    what="Measures ordered by their correlation with the male share r across 11 "
    "bias-controlled BERT models (r = 0, 0.1, …, 1), the same on the news and books "
    "corpora: AULA > AUL > CPS > SSS",
    models="BERT fine-tuned on male / female sentences mined from news or books",
    order=(AULA_2023, AUL_2023, CPS_2023, SSS_2023),
    by="correlation with the male share r, on BERT",
)

#: Every figure the report quotes, for the tests and for a reviewer.
FIGURES: tuple[MeasureOrder | TauTable | DebiasingDirection, ...] = (
    KANEKO_2023_TABLE_1,
    KANEKO_2022_TABLE_2,
    KANEKO_2022_FIGURE_1,
)
