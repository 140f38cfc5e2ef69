"""INLP's `compat` option without scikit-learn: the default (`compat: formula`) pinned
to the numbers it gave before `compat` existed, bias-bench's cut of the sentences, the
option in the spec, validation that imports no scikit-learn, and the one-line error when
`compat: reference` is asked for and scikit-learn is missing. The reference itself is
tested against scikit-learn and bias-bench's loop in test_inlp_reference.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from audit.errors import AuditUserError
from audit.variants.labelled_data import labelled_of
from audit.variants.methods.base import VariantPart
from audit.variants.methods.inlp import training_data
from audit.variants.methods.options import InlpOptions
from audit.variants.posthoc_data import inlp_classes
from tests.variants.inlp_vectors import (
    BINARY_SIZES,
    GENDER_SIZES,
    religion_context,
    run_fit,
    tiny_corpus,
)


def test_default_projection_is_pinned() -> None:
    """Numbers of the default computed by the code before `compat` was added (same
    vectors, seed 5): adding the reference changed none of them."""
    gender = run_fit("gender", GENDER_SIZES, iterations=2, dim=12)
    assert gender.facts == {
        "classes": {"male": 50, "female": 40, "neutral": 60},
        "iterations": 2,
        "dev_accuracy": [0.90625, 0.3125],
        "test_accuracy_before": 0.8,
        "test_accuracy_after": pytest.approx(17 / 45),
        "test_majority_rate": pytest.approx(21 / 45),
        "rank_removed": 6,
    }
    assert gender.matrix[0, :4].tolist() == pytest.approx(
        [0.112815589, 0.045879949, 0.016973741, -0.157241121], abs=1e-6
    )
    binary = run_fit("religion", BINARY_SIZES, iterations=2, dim=12)
    assert binary.facts["dev_accuracy"] == pytest.approx([19 / 24, 20 / 24])
    assert binary.facts["test_accuracy_after"] == pytest.approx(14 / 34)
    assert binary.matrix[0, :4].tolist() == pytest.approx(
        [0.521725535, 0.436224461, 0.092523016, -0.049039576], abs=1e-6
    )


# --- the data: bias-bench's cut of a class sentence


def test_reference_cut_starts_at_the_first_occurrence_of_the_last_attribute_word() -> None:
    """bias-bench's `idx = tokens.index(token)`: in 'god ... the god house ...' its cut
    is drawn from position 0 (the first 'god'), the default's from 7 (the last)."""
    words = [("god", "allah"), ("church", "mosque")]
    sentence = "god is said to be in the god house of prayer for all"

    def lengths(reference: bool) -> set[int]:
        return {
            len(
                inlp_classes(
                    [sentence], words, "religion", max_sentences=5, seed=s, reference_cut=reference
                )["bias"][0].split()
            )
            for s in range(40)
        }

    assert min(lengths(False)) == 8  # always up to the second 'god' at least
    assert min(lengths(True)) < 8


# --- the option: in the spec, in validation, and without scikit-learn


def _spec(tmp_path: Path, options: str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "spec_version: 1\nname: x\nmodels:\n  - {id: m, source: {path: models/bert}}\n"
        "datasets:\n  - {name: crows_pairs, limit: 4}\nmeasures: [bias_score]\nvariants:\n"
        f"  - {{id: v, base: m, method: inlp, corpus: sts_b, options: {options}}}\n"
    )
    return path


def test_spec_accepts_compat_reference_and_names_a_wrong_value(tmp_path: Path) -> None:
    from audit.spec.loader import load_spec
    from audit.spec.problems import SpecError

    loaded = load_spec(_spec(tmp_path, "{bias_type: religion, compat: reference}"))
    assert loaded.spec.variants[0].options == {"bias_type": "religion", "compat": "reference"}
    with pytest.raises(SpecError) as error:
        load_spec(_spec(tmp_path, "{compat: bias-bench}"))
    text = str(error.value)
    assert "variants[0].options.compat" in text
    assert "formula" in text and "reference" in text


def test_validating_a_reference_spec_imports_no_scikit_learn(tmp_path: Path) -> None:
    program = (
        "import sys\nfrom pathlib import Path\nfrom audit.spec.loader import validate_spec_file\n"
        f"problems = validate_spec_file(Path({str(_spec(tmp_path, '{compat: reference}'))!r}))\n"
        "assert not [p for p in problems if p.is_error], problems\n"
        "print('sklearn' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"


def test_reference_without_scikit_learn_is_a_one_line_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = InlpOptions(bias_type="religion", attribute_words="words.json", compat="reference")
    context = religion_context(tmp_path)
    monkeypatch.setitem(sys.modules, "sklearn", None)  # scikit-learn now "not installed"
    with pytest.raises(AuditUserError) as error:
        training_data(tiny_corpus(), options, VariantPart(), context)
    message = str(error.value)
    assert message.startswith("variants[2].options.compat: 'reference'") and "\n" not in message
    assert "pip install 'bias-audit[reference]'" in message
    # the default needs no scikit-learn
    formula = InlpOptions(bias_type="religion", attribute_words="words.json")
    assert labelled_of(training_data(tiny_corpus(), formula, VariantPart(), context))["bias"]
