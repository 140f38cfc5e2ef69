# mypy: disable-error-code="operator"
"""The measure registry: one entry per measure in headline-preference order, with its
roles, a complete card, strict options, generated doc pages that are up to date, and a
catalog that imports no numerical library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pydantic
import pytest

from audit.measures.base import CorpusMeasure, Measure, PreparedMeasure
from audit.measures.card_docs import REGENERATE, generated_pages, main, stale_pages, write_pages
from audit.measures.catalog import MEASURES, load_corpus_measure, load_measure

REPO = Path(__file__).resolve().parents[2]

#: The built-in measures' registration order (the headline preference) and roles. A new
#: built-in measure registered after them needs no change here: every built-in measure is
#: checked by the parametrised card and options tests below (measures of installed
#: plug-ins are their packages' to test).
EXPECTED_ROLES = {
    "bias_score": ("headline", "group_chart", "intrinsic", "resamplable", "pair_indicator"),
    "safety_score": ("headline", "group_chart", "intrinsic", "resamplable"),
    "ss": ("headline", "intrinsic", "resamplable", "pair_indicator"),
    "jss": ("headline", "intrinsic", "resamplable", "gaussian_fit"),
    "kls": ("headline", "intrinsic", "resamplable", "gaussian_fit"),
    "score_gap": ("diagnostic", "intrinsic", "resamplable"),
    "normality": ("diagnostic", "normality_check", "resamplable"),
    "lms": ("intrinsic", "resamplable"),
    "icat": ("intrinsic", "resamplable"),
    "ilps": ("corpus",),
}
NAMES = [e.name for e in MEASURES.entries() if MEASURES.is_built_in(e.name)]


def test_registration_order_and_roles() -> None:
    assert NAMES[: len(EXPECTED_ROLES)] == list(EXPECTED_ROLES)
    assert {name: MEASURES.entry(name).roles for name in EXPECTED_ROLES} == EXPECTED_ROLES
    headline = [e.name for e in MEASURES.with_role("headline") if e.name in NAMES]
    assert headline == ["bias_score", "safety_score", "ss", "jss", "kls", "bbq_bias_ambig"]


@pytest.mark.parametrize("name", NAMES)
def test_card_is_complete(name: str) -> None:
    entry = MEASURES.entry(name)
    card = entry.card
    assert card.kind == "measure" and card.name == name
    for text in (card.title, card.summary, card.what, card.inputs, card.direction):
        assert text.strip()
    assert card.ideal.strip() and card.citation.strip()
    assert card.limitations and all(item.strip() for item in card.limitations)
    assert card.shape in {"pairs", "labelled", "choices", "corpus", "sentence_sets"}
    assert (card.ideal_value is None) == (name == "normality")


@pytest.mark.parametrize("name", NAMES)
def test_options_model_is_strict_and_documented(name: str) -> None:
    options = MEASURES.entry(name).options
    required = [f for f, info in options.model_fields.items() if info.is_required()]
    if required:
        with pytest.raises(pydantic.ValidationError):
            options.model_validate({})
    else:
        options.model_validate({})
    assert all(options.model_fields[f].description for f in required)
    with pytest.raises(pydantic.ValidationError):
        options.model_validate({"compat": "formula", "no_such_option": 1})


@pytest.mark.parametrize("name", NAMES)
def test_implementation_fits_its_shape(name: str) -> None:
    entry = MEASURES.entry(name)
    if entry.shape == "corpus":
        assert isinstance(load_corpus_measure(name), CorpusMeasure)
        with pytest.raises(TypeError, match="corpus"):
            load_measure(name)
    elif entry.shape == "sentence_sets":
        assert callable(getattr(MEASURES.load(name), "compute_seat", None))
        with pytest.raises(TypeError, match="sentence_sets"):
            load_measure(name)
    else:
        measure = load_measure(name)
        assert isinstance(measure, Measure)
        # every non-corpus measure can be redrawn by the cross-model studies
        assert isinstance(measure, PreparedMeasure) == entry.has_role("resamplable")


def test_ss_and_bias_score_share_one_implementation() -> None:
    assert load_measure("ss") is load_measure("bias_score")


def test_committed_docs_are_generated_from_the_entries() -> None:
    stale = stale_pages(REPO / "docs" / "measures")
    assert not stale, f"docs/measures is stale ({', '.join(stale)}): run `{REGENERATE}`"


def test_docs_check_and_write(tmp_path: Path) -> None:
    assert main(["--check", str(tmp_path)]) == 1
    (tmp_path / "gone.md").write_text("a measure no longer registered")
    write_pages(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(generated_pages())
    assert main(["--check", str(tmp_path)]) == 0
    page = generated_pages()["kls.md"]
    assert "**Roles.** headline, intrinsic, resamplable" in page
    assert "- `normality_level` (default `0.05`)" in page
    assert "- `corpus` (required): UTF-8 text file" in generated_pages()["ilps.md"]


def test_catalog_imports_no_numerics() -> None:
    code = (
        "import sys, audit.measures.catalog as c, audit.measures.card_docs as d; "
        "c.MEASURES.names(); d.generated_pages(); "
        "print([m for m in ('numpy', 'scipy', 'pandas') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_reference_compat_is_refused_where_there_is_none() -> None:
    with pytest.raises(pydantic.ValidationError):
        MEASURES.options_of("bias_score", {"compat": "reference"})
    jss = MEASURES.entry("jss").options.model_validate({"compat": "reference"})
    assert jss.compat == "reference"
