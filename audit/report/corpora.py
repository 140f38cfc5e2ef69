"""The Training corpora table of the Variants section: each corpus's sentences by gender
words and its ILPS skew, as Kaneko et al. 2022, Table 1 gives them (from results.json's
`corpora`)."""

from __future__ import annotations

from audit.report import cells
from audit.report.formatting import plain
from audit.report.model import Table
from audit.results import CorpusRecord

KANEKO_2022 = "Kaneko, Bollegala & Okazaki 2022 (COLING 2022), Table 1"
KURITA = "Kurita et al. 2019"


def _lean(c: CorpusRecord) -> cells.Cell:
    if c.ilps is None:
        return cells.text("—")
    if c.ilps_ci_low is not None and c.ilps_ci_high is not None:
        if c.ilps_ci_high < 0:
            return cells.verdict("male-skewed", "warn")
        if c.ilps_ci_low > 0:
            return cells.verdict("female-skewed", "warn")
        return cells.verdict("no clear skew", "good", note="the interval includes 0")
    side = "male" if c.ilps < 0 else "female" if c.ilps > 0 else ""
    if not side:
        return cells.text("balanced")
    return cells.text(f"{side}-leaning", note="no interval: the lean may be chance")


def corpora_table(corpora: list[CorpusRecord]) -> Table:
    """The training corpora as Kaneko et al. 2022, Table 1 gives them."""
    maker = cells.TableMaker(
        id="corpora-table",
        title="Training corpora",
        caption=f"As in {KANEKO_2022}: sentences with only female words, only male words, "
        "both, or none (from the paired gender word lists). ILPS = log(P_f / P_m), P_f and "
        f"P_m the relative frequencies of female and male words ({KURITA}), with its "
        "confidence interval: negative = male-skewed, positive = female-skewed, 0 = "
        "balanced.",
        columns=[
            "Corpus",
            "Sentences",
            "Female-only",
            "Male-only",
            "Mixed",
            "No gendered word",
            "ILPS (CI)",
            "Skew",
            "Used by",
        ],
    )
    for c in corpora:
        maker.add(
            [
                cells.text(c.name, note=f"source: {c.source}; sha256 {c.sha256[:12]}"),
                cells.count(c.sentences),
                cells.count(c.female_only),
                cells.count(c.male_only),
                cells.count(c.mixed),
                cells.count(c.neutral),
                cells.interval(c.ilps, c.ilps_ci_low, c.ilps_ci_high, 3, note=plain(c.ilps_note)),
                _lean(c),
                cells.text(", ".join(c.used_by) or "—"),
            ]
        )
    return maker.table()
