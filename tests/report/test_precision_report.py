"""Page 1 says when a run used reduced precision and shows the float32 check; the appendix
lists every check; a float32 run says nothing about precision."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from audit.ids import PluginId
from audit.report.build import build_report
from audit.report.pdf import write_pdf
from audit.report.precision import precision_dtype, reduced_models
from audit.report.render import render_html
from audit.results import AuditResult, PrecisionCheck
from tests.report.html_parse import parse
from tests.report.synthetic import small_result


def check(
    model: str, dataset: str, scorer: str, flipped: int | None, diff: float
) -> PrecisionCheck:
    return PrecisionCheck(
        model=model,
        dataset=dataset,
        scorer=PluginId.of(scorer),
        dtype="bfloat16",
        precision="cuda/bfloat16",
        reference="cuda/float32",
        seed=0,
        items=200,
        verdicts=0 if flipped is None else 200,
        flipped=flipped,
        max_abs_diff=diff,
        max_diff_item="17",
    )


def reduced_run(checks: list[PrecisionCheck]) -> AuditResult:
    result = small_result([], models=("model-a", "model-b"))
    models = [
        result.models[0].model_copy(update={"device": "cuda:0", "precision": "cuda/bfloat16"}),
        result.models[1].model_copy(update={"device": "cuda:0", "precision": "cuda/float32"}),
    ]
    return result.model_copy(update={"models": models, "precision_checks": checks})


CHECKS = [
    check("model-a", "crows_pairs", "ll", 3, 0.0121612),
    check("model-a", "toxigen", "ll", None, 1.6712),
]


def test_dtype_of_a_precision_label() -> None:
    assert precision_dtype("cuda/bfloat16") == "bfloat16"
    assert precision_dtype("cuda/bfloat16+nf4") == "bfloat16"
    assert precision_dtype("cpu/float32") == "float32"
    assert precision_dtype("float32") == "float32"  # version 1 files
    assert reduced_models(reduced_run(CHECKS)) == {"model-a": "bfloat16"}


def test_page_one_says_reduced_precision_and_shows_the_check() -> None:
    (block,) = build_report(reduced_run(CHECKS)).summary.precision
    assert block.heading == "Reduced precision."
    assert block.emphasis == "warn"  # verdicts flipped
    assert "This run used reduced precision: model-a in bfloat16, not float32" in block.text
    assert "up to 200 items" in block.text
    assert "3 of 200 pair verdicts flipped in all" in block.text
    assert "Rerun with dtype: float32" in block.text
    crows, toxigen = block.items
    assert crows == (
        "model-a · crows_pairs · ll: 3 of 200 pair verdicts flipped (1.5%), "
        "largest score difference 0.0122"
    )
    assert toxigen.startswith("model-a · toxigen · ll: 200 statements checked")
    assert "largest score difference 1.67 (statements have no verdict of their own)" in toxigen


def test_no_flip_is_not_a_warning_and_a_missing_check_is() -> None:
    quiet = build_report(reduced_run([check("model-a", "crows_pairs", "ll", 0, 0.001)]))
    (block,) = quiet.summary.precision
    assert block.emphasis == ""
    assert "0 of 200 pair verdicts flipped in all" in block.text
    assert "Rerun" not in block.text
    (unchecked,) = build_report(reduced_run([])).summary.precision
    assert unchecked.emphasis == "warn"
    assert unchecked.items == [
        "model-a: no float32 check was run (precision_check: 0), so what bfloat16 changed "
        "is not known"
    ]


def test_labelled_sets_only_give_no_verdict_count() -> None:
    (block,) = build_report(reduced_run(CHECKS[1:])).summary.precision
    assert "was scored again in float32." in block.text
    assert "pair verdict" not in block.text
    assert block.emphasis == ""


def test_float32_runs_say_nothing_about_precision() -> None:
    result = small_result([], models=("model-a",))
    report = build_report(result)
    assert report.summary.precision == []
    assert "precision-check" not in [t.id for t in report.appendix]
    assert "Reduced precision" not in render_html(report)


def test_appendix_lists_every_check() -> None:
    report = build_report(reduced_run(CHECKS))
    table = next(t for t in report.appendix if t.id == "precision-check")
    assert [c.text for c in table.rows[0][:5]] == [
        "model-a",
        "crows_pairs",
        "ll",
        "cuda/bfloat16",
        "cuda/float32",
    ]
    assert table.rows[0][7].text == "3 of 200"
    assert table.rows[1][7].text == "no verdicts"
    assert table.notes == ["1. item 17"]


def test_page_one_of_the_html_and_the_pdf_says_it(tmp_path: Path) -> None:
    html = render_html(build_report(reduced_run(CHECKS)))
    text = " ".join(parse(html).text)
    assert "Reduced precision." in text
    # on page 1, before the summary in detail (which says what was audited), and again
    # in the detail, model by model; all before the contents
    assert text.index("Reduced precision.") < text.index("This audit measured")
    assert text.index("Reduced precision.") < text.rindex("Contents")
    pdf = write_pdf(html, tmp_path / "report.pdf")
    page_one = " ".join((PdfReader(pdf).pages[0].extract_text() or "").split())
    for words in ("Reduced precision", "model-a in bfloat16", "3 of 200 pair verdicts flipped"):
        assert words in page_one
