"""Bad input to the masked-LM scorers gets a clear error; the catalog stays torch-free."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from audit.errors import AuditUserError
from audit.scoring.base import ScoringCall, ScoringInputError
from audit.scoring.catalog import SCORERS, scorer_info
from audit.scoring.masked.scorers import AUL_SCORER, CPS_SCORER, PLL_SCORER, SSS_SCORER
from audit.scoring.options import CausalOptions, MaskedOptions, TemplateOptions
from tests.scoring.tiny_models import loaded, tiny_bert, tiny_gpt2, tiny_roberta

MASKED_NAMES = ("pll", "pppl", "cps", "sss", "aul", "aula")


def _none(_n: int) -> None:
    return None


@pytest.mark.parametrize("scorer", [CPS_SCORER, SSS_SCORER])
def test_pair_scorers_refuse_single_sentences(scorer: object) -> None:
    with pytest.raises(ScoringInputError, match="pair datasets only"):
        scorer.score_sentences(  # type: ignore[attr-defined]
            loaded(tiny_bert()), ["He is a nurse."], ScoringCall(MaskedOptions(), _none)
        )


def test_causal_model_is_refused() -> None:
    with pytest.raises(ScoringInputError, match=r"needs a masked language model.*causal"):
        PLL_SCORER.score_sentences(
            loaded(tiny_gpt2()), ["He is a nurse."], ScoringCall(MaskedOptions(), _none)
        )


def test_too_long_sentence_names_its_index_and_length() -> None:
    long_text = " ".join(["nurse"] * 200)
    with pytest.raises(ScoringInputError, match=r"sentence 1 is 202 tokens long.*128"):
        AUL_SCORER.score_sentences(
            loaded(tiny_bert()), ["fine.", long_text], ScoringCall(MaskedOptions(), _none)
        )


def test_roberta_limit_accounts_for_position_offset() -> None:
    # max_position_embeddings 130 with padding index 1: 128 tokens fit, 129 do not.
    tiny = tiny_roberta()
    ok = " nurse" * 126
    assert len(tiny.tokenizer(ok)["input_ids"]) == 128
    AUL_SCORER.score_sentences(loaded(tiny), [ok], ScoringCall(MaskedOptions(), _none))
    with pytest.raises(ScoringInputError, match="129 tokens"):
        AUL_SCORER.score_sentences(
            loaded(tiny), [ok + " nurse"], ScoringCall(MaskedOptions(), _none)
        )


def test_empty_sentence_is_an_error() -> None:
    with pytest.raises(ScoringInputError, match=r"sentence 0 has no tokens to score"):
        PLL_SCORER.score_sentences(loaded(tiny_bert()), [""], ScoringCall(MaskedOptions(), _none))


def test_tokenizer_without_mask_token() -> None:
    tiny = tiny_bert()
    model = loaded(tiny)
    model.tokenizer = tiny_gpt2().tokenizer
    with pytest.raises(ScoringInputError, match="has no mask token"):
        PLL_SCORER.score_sentences(model, ["He"], ScoringCall(MaskedOptions(), _none))


def test_wrong_options_type() -> None:
    with pytest.raises(TypeError, match="MaskedOptions"):
        PLL_SCORER.score_sentences(loaded(tiny_bert()), ["He"], ScoringCall(CausalOptions(), _none))


def test_identical_pair_gives_nan_sss_and_zero_token_cps() -> None:
    pairs = [("He is a nurse.", "He is a nurse.")]
    call = ScoringCall(MaskedOptions(), _none)
    ((st, at),) = SSS_SCORER.score_pairs(loaded(tiny_bert()), pairs, call)
    assert math.isnan(st.score) and st.n_tokens == 0 and at.n_tokens == 0
    ((cst, _cat),) = CPS_SCORER.score_pairs(loaded(tiny_bert()), [("She", "He")], call)
    assert cst.score == 0.0 and cst.n_tokens == 0


def test_empty_input_calls_nothing() -> None:
    calls: list[int] = []
    call = ScoringCall(MaskedOptions(), calls.append)
    assert CPS_SCORER.score_pairs(loaded(tiny_bert()), [], call) == []
    assert calls == []


def test_options_validation() -> None:
    with pytest.raises(ValueError, match="batch_tokens"):
        MaskedOptions(batch_tokens=0)
    with pytest.raises(ValueError, match="extra"):
        MaskedOptions(batch_size=3)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"\[TARGET\] and \[ATTRIBUTE\] exactly once"):
        TemplateOptions(templates=("[TARGET] is here.",))
    assert frozenset({"batch_tokens"}) == MaskedOptions.RUNTIME_FIELDS


@pytest.mark.parametrize("name", MASKED_NAMES)
def test_catalog_entries(name: str) -> None:
    info = scorer_info(name)
    assert info.model_types == frozenset({"masked"})
    assert info.name == name
    assert SCORERS.entry(name).options_model is MaskedOptions
    entry = SCORERS.entry(name)
    assert entry.info is info and entry.card.shape == info.unit and entry.summary == info.summary
    assert SCORERS.load(name).name == name
    assert info.unit == ("pair" if name in {"cps", "sss"} else "sentence")
    assert info.higher_is_likelier == (name != "pppl")


def test_tbs_is_a_template_scorer() -> None:
    assert scorer_info("tbs").unit == "template"
    assert SCORERS.entry("tbs").options_model is TemplateOptions
    with pytest.raises(ScoringInputError, match="professions"):
        SCORERS.load("tbs").score_sentences(
            loaded(tiny_bert()), ["x"], ScoringCall(TemplateOptions(), _none)
        )
    with pytest.raises(ScoringInputError, match="template slots"):
        SCORERS.load("pll").score_slots(
            loaded(tiny_bert()), [], ScoringCall(MaskedOptions(), _none)
        )


def test_catalog_does_not_import_torch() -> None:
    code = (
        "import sys, audit.scoring.catalog as c; c.scorer_info('cps'); "
        "c.scorer_info('tbs'); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_errors_are_user_errors() -> None:
    assert issubclass(ScoringInputError, AuditUserError)
