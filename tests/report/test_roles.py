"""The report asks cards for roles, never for names: diagnostic tables, the non-normal
caveat and the dataset-pitfall caveat follow the cards in results.json."""

from __future__ import annotations

from audit.cards import PluginCard
from audit.ids import PluginId
from audit.migrations.v1_cards import v1_cards
from audit.report.build import build_report
from audit.report.model import ReportModel, Table
from audit.results import AuditResult
from tests.report.conftest import Rendered


def _renamed(result: AuditResult, old: str, new: str, **card_changes: object) -> AuditResult:
    """`result` with measure `old` renamed to `new` in its card and its measurements."""
    plugins = [
        c.model_copy(update={"name": new, **card_changes})
        if (c.kind, c.name) == ("measure", old)
        else c
        for c in result.plugins
    ]
    measurements = [
        m.model_copy(update={"measure": PluginId.of(new, m.measure.options)})
        if m.measure.name == old
        else m
        for m in result.measurements
    ]
    return result.model_copy(update={"plugins": plugins, "measurements": measurements})


def _tables(report: ReportModel, dataset: str) -> dict[str, Table]:
    section = next(s for s in report.datasets if s.name == dataset)
    return {t.id: t for t in section.tables}


def _caveat_ids(report: ReportModel) -> set[str]:
    return {c.id for c in report.caveats}


def test_diagnostic_tables_are_titled_by_their_cards(rendered: Rendered) -> None:
    tables = _tables(rendered.report, "crows_pairs")
    ids = list(tables)
    assert ids.index("crows-pairs-normality") < ids.index("crows-pairs-score-gap")
    normality = tables["crows-pairs-normality"]
    assert normality.title == "crows_pairs: normality of the score sets (Shapiro-Wilk)"
    assert normality.caption == (
        "KLS and JSS fit Gaussians; a set with p < 0.05 is not normal and their values on "
        "it carry a caveat."
    )
    assert normality.columns[:3] == ["Model", "Scorer", "Items"]
    assert normality.columns[-1] == "Verdict"
    assert {row[-1].text for row in normality.rows} <= {"normal", "not normal", "undefined"}
    gap = tables["crows-pairs-score-gap"]
    assert gap.title == "crows_pairs: score-gap balance"
    assert gap.caption.startswith("Positive: pairs that favour the stereotype")
    assert gap.columns[:2] == ["Model", "Scorer"] and gap.columns[-1] == "|Δst| − |Δat| (CI)"
    assert "Items" not in gap.columns and "Verdict" not in gap.columns


def test_a_diagnostic_measure_of_another_name_gets_its_table(rendered: Rendered) -> None:
    result = _renamed(
        rendered.result,
        "score_gap",
        "toy_spread",
        title="Toy spread (a test measure)",
        table_title="",
        table_caption="",
        table_value_heading="",
    )
    tables = _tables(build_report(result, None), "crows_pairs")
    assert "crows-pairs-score-gap" not in tables
    toy = tables["crows-pairs-toy-spread"]
    card = result.card("measure", "toy_spread")
    assert card is not None
    assert toy.title == "crows_pairs: Toy spread (a test measure)"
    assert toy.caption == card.direction
    assert toy.columns[-1] == "Toy spread (CI)"
    gap = _tables(rendered.report, "crows_pairs")["crows-pairs-score-gap"]
    assert [[c.text for c in r] for r in toy.rows] == [[c.text for c in r] for r in gap.rows]


def test_the_normality_check_role_gives_the_verdict_and_the_caveat(rendered: Rendered) -> None:
    assert "non-normal" in _caveat_ids(rendered.report)
    renamed = _renamed(rendered.result, "normality", "toy_normal")
    report = build_report(renamed, None)
    toy = _tables(report, "crows_pairs")["crows-pairs-toy-normal"]
    assert toy.columns[-1] == "Verdict"
    non_normal = next(c for c in report.caveats if c.id == "non-normal")
    original = next(c for c in rendered.report.caveats if c.id == "non-normal")
    assert non_normal.trigger == original.trigger and non_normal.text == original.text

    card = rendered.result.card("measure", "normality")
    assert card is not None
    roles = tuple(r for r in card.roles if r != "normality_check")
    plain = build_report(_renamed(rendered.result, "normality", "normality", roles=roles), None)
    assert "non-normal" not in _caveat_ids(plain)
    table = _tables(plain, "crows_pairs")["crows-pairs-normality"]
    assert table.columns[-1] != "Verdict" and "Items" not in table.columns


def test_dataset_pitfalls_come_from_the_dataset_cards(rendered: Rendered) -> None:
    original = next(c for c in rendered.report.caveats if c.id == "dataset-pitfalls")
    assert original.trigger == "datasets used: crows_pairs, stereoset"
    assert "crows_pairs: many CrowS-Pairs pairs do not test" in original.text
    assert "Blodgett" in (original.citation or "")

    def with_limitations(card: PluginCard) -> PluginCard:
        if card.kind != "dataset":
            return card
        limitations = {"toxigen": ("toy pitfall one.", "toy pitfall two."), "stereoset": ()}
        return card.model_copy(update={"limitations": limitations.get(card.name, card.limitations)})

    changed = rendered.result.model_copy(
        update={"plugins": [with_limitations(c) for c in rendered.result.plugins]}
    )
    caveat = next(c for c in build_report(changed, None).caveats if c.id == "dataset-pitfalls")
    assert caveat.trigger == "datasets used: crows_pairs, toxigen"
    assert caveat.text.endswith("toxigen: toy pitfall one. toy pitfall two.")
    assert "StereoSet" not in caveat.text

    bare = rendered.result.model_copy(
        update={
            "plugins": [
                c.model_copy(update={"limitations": ()}) if c.kind == "dataset" else c
                for c in rendered.result.plugins
            ]
        }
    )
    assert "dataset-pitfalls" not in _caveat_ids(build_report(bare, None))


def test_the_v1_cards_carry_the_live_pitfalls_roles_and_table_texts() -> None:
    """Each card of the version 1 snapshot against the live entry of its name: a dataset
    or measure registered since (built in or by a plug-in) has no version 1 card and
    is no concern of this test."""
    from audit.data.catalog import DATASETS
    from audit.measures.catalog import MEASURES

    snapshot = v1_cards()
    datasets = [c for c in snapshot if c.kind == "dataset"]
    assert datasets
    for old in datasets:
        assert DATASETS.entry(old.name).card.limitations == old.limitations
    fields = ("roles", "table_title", "table_caption", "table_value_heading")
    diagnostic = [c for c in snapshot if c.kind == "measure" and "diagnostic" in c.roles]
    assert {c.name for c in diagnostic} == {"normality", "score_gap"}
    for old in diagnostic:
        live = MEASURES.entry(old.name).card
        assert {f: getattr(old, f) for f in fields} == {f: getattr(live, f) for f in fields}
        assert live.table_title and live.table_caption
