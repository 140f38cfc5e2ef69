"""Self-Debias (Schick et al. 2021): the rescaling formula on hand-made distributions,
the scorers' wrapped log-probabilities against a hand computation with the prefixes on
tiny random models, and the options and settings file."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from pydantic import ValidationError

from audit.errors import ModelSourceError
from audit.models.loaded import LoadedModel
from audit.models.self_debias import (
    SELF_DEBIAS_FILE,
    SelfDebias,
    SelfDebiasSettings,
    prepare_self_debias,
    read_self_debias,
    save_self_debias,
)
from audit.scoring.base import ScoringCall
from audit.scoring.causal import LL_SCORER
from audit.scoring.masked.scorers import AULA_SCORER, CPS_SCORER, PLL_SCORER
from audit.scoring.options import CausalOptions, MaskedOptions
from audit.scoring.self_debias import debiased_log_probs, expand_batch
from audit.variants.methods.options import SELF_DEBIAS_PREFIXES, SelfDebiasOptions
from tests.scoring.tiny_models import CAUSAL_BUILDERS, loaded, tiny_bert

PREFIXES = (
    SELF_DEBIAS_PREFIXES["gender"],
    "The following text contains rude, disrespectful, or unreasonable language: ",
)
SENTENCES = [
    "The nurse said she was tired.",
    "He is an engineer.",
    "Old people cannot use computers at all.",
]


# --- the formula on hand-built distributions ------------------------------------------


def _logits(*probs: list[float]) -> torch.Tensor:
    return torch.tensor(probs, dtype=torch.float64).log()


def _hand(p: list[float], biased: list[list[float]], decay: float, eps: float) -> list[float]:
    """alpha(delta) p renormalised, delta = p - max_i p_i, written out term by term."""
    top = [max(b[w] for b in biased) for w in range(len(p))]
    alpha = []
    for w in range(len(p)):
        delta = p[w] - top[w]
        a = 1.0 if delta >= 0 else math.exp(decay * delta)
        alpha.append(max(a, eps))
    total = sum(a * q for a, q in zip(alpha, p, strict=True))
    return [a * q / total for a, q in zip(alpha, p, strict=True)]


P = [0.5, 0.3, 0.2]
BIASED = [[0.2, 0.6, 0.2], [0.4, 0.3, 0.3]]


@pytest.mark.parametrize(("decay", "eps"), [(10.0, 0.0), (50.0, 0.0), (50.0, 0.01), (3.0, 0.2)])
def test_rescaling_equals_the_formula(decay: float, eps: float) -> None:
    got = debiased_log_probs(
        _logits(P), _logits(*BIASED).unsqueeze(1), decay=decay, epsilon=eps
    ).exp()
    want = _hand(P, BIASED, decay, eps)
    assert got[0].tolist() == pytest.approx(want, rel=1e-5)
    assert float(got.sum()) == pytest.approx(1.0, abs=1e-6)


def test_worked_example() -> None:
    """delta = (0.1, -0.3, -0.1); lambda 10: alpha = (1, e^-3, e^-1)."""
    got = debiased_log_probs(_logits(P), _logits(*BIASED).unsqueeze(1), decay=10, epsilon=0)
    weights = [0.5, 0.3 * math.exp(-3), 0.2 * math.exp(-1)]
    assert got.exp()[0].tolist() == pytest.approx([w / sum(weights) for w in weights], rel=1e-5)
    # the token the biased prompts make likelier loses the most
    assert float(got.exp()[0, 1]) < 0.3 * math.exp(-2)


def test_reference_floors_alpha_at_epsilon() -> None:
    """lambda 50: e^-15 and e^-5 are below 0.01, so both become 0.01 with compat reference."""
    got = debiased_log_probs(_logits(P), _logits(*BIASED).unsqueeze(1), decay=50, epsilon=0.01)
    weights = [0.5, 0.3 * 0.01, 0.2 * 0.01]
    assert got.exp()[0].tolist() == pytest.approx([w / sum(weights) for w in weights], rel=1e-5)


def test_zero_decay_or_no_prefix_effect_leaves_the_distribution() -> None:
    plain = _logits(P)
    unchanged = debiased_log_probs(plain, _logits(*BIASED).unsqueeze(1), decay=0, epsilon=0)
    assert unchanged.exp()[0].tolist() == pytest.approx(P, rel=1e-6)
    same = debiased_log_probs(plain, plain.unsqueeze(0).repeat(2, 1, 1), decay=50, epsilon=0)
    assert same.exp()[0].tolist() == pytest.approx(P, rel=1e-6)


def test_the_largest_prefixed_probability_is_taken() -> None:
    """delta uses the max over prefixes: a second prefix that is above the first only
    where it stays below p(w | x) changes nothing; one above p(w | x) does."""
    one = debiased_log_probs(_logits(P), _logits(BIASED[0]).unsqueeze(1), decay=20, epsilon=0)
    harmless = [0.45, 0.35, 0.2]  # above BIASED[0] on token 0 only, where P is 0.5
    same = debiased_log_probs(
        _logits(P), _logits(BIASED[0], harmless).unsqueeze(1), decay=20, epsilon=0
    )
    assert torch.allclose(one, same)
    harmful = [0.1, 0.1, 0.8]  # token 2: 0.8 > P's 0.2
    changed = debiased_log_probs(
        _logits(P), _logits(BIASED[0], harmful).unsqueeze(1), decay=20, epsilon=0
    )
    assert float(changed.exp()[0, 2]) < float(one.exp()[0, 2])


# --- the expanded batch -----------------------------------------------------------------


def test_prefix_goes_after_the_leading_token_and_positions_shift() -> None:
    debias = SelfDebias(prefix_ids=((7, 8), (9,)), decay=50, epsilon=0, leading_ids=frozenset({1}))
    ids = torch.tensor([[1, 20, 21, 22], [30, 31, 0, 0]])
    attention = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
    rows, cols = torch.tensor([0, 0, 1]), torch.tensor([0, 2, 0])
    wide = expand_batch(debias, ids, attention, rows, cols, pad_id=0)
    assert wide.ids.tolist() == [
        [1, 20, 21, 22, 0, 0],
        [30, 31, 0, 0, 0, 0],
        [1, 7, 8, 20, 21, 22],  # BOS kept first, then the prefix
        [7, 8, 30, 31, 0, 0],  # no BOS: the prefix first
        [1, 9, 20, 21, 22, 0],
        [9, 30, 31, 0, 0, 0],
    ]
    assert wide.attention.sum(dim=1).tolist() == [4, 2, 6, 4, 5, 3]
    assert wide.rows.tolist() == [0, 0, 1, 2, 2, 3, 4, 4, 5]
    assert wide.cols.tolist() == [0, 2, 0, 2, 4, 2, 1, 3, 1]


# --- the scorers on tiny random models ----------------------------------------------------


def _with_debias(model: LoadedModel, prefixes: tuple[str, ...], decay: float) -> LoadedModel:
    settings = SelfDebiasSettings(prefixes=prefixes, decay=decay, epsilon=0.0)
    debias = prepare_self_debias(settings, model.tokenizer, model.model, model.model_id)
    return replace(model, self_debias=debias)


def _hand_causal_ll(model: LoadedModel, text: str, decay: float) -> float:
    """One unpadded forward per input: [BOS] + sentence, and [BOS] + prefix + sentence."""
    tok = model.tokenizer
    ids = tok(text)["input_ids"]
    bos = tok.bos_token_id if tok.bos_token_id is not None else model.model.config.bos_token_id
    if ids[0] != bos:
        ids = [bos, *ids]
    with torch.no_grad():
        plain = model.model(torch.tensor([ids])).logits[0].double()
        prefixed = []
        for text_prefix in PREFIXES:
            p_ids = tok(text_prefix, add_special_tokens=False)["input_ids"]
            out = model.model(torch.tensor([[ids[0], *p_ids, *ids[1:]]])).logits[0].double()
            prefixed.append(out[len(p_ids) :])  # position t of the plain input
    total = 0.0
    for t in range(1, len(ids)):
        p = torch.softmax(plain[t - 1], -1)
        top = torch.stack([torch.softmax(x[t - 1], -1) for x in prefixed]).amax(0)
        delta = p - top
        alpha = torch.where(delta >= 0, torch.ones_like(delta), torch.exp(decay * delta))
        debiased = alpha * p / (alpha * p).sum()
        total += math.log(float(debiased[ids[t]]))
    return total


@pytest.fixture(scope="module", params=sorted(CAUSAL_BUILDERS))
def causal(request: pytest.FixtureRequest) -> LoadedModel:
    return loaded(CAUSAL_BUILDERS[request.param]())


def test_causal_ll_equals_the_hand_computation(causal: LoadedModel) -> None:
    model = _with_debias(causal, PREFIXES, 50.0)
    scores = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(CausalOptions(), print))
    plain = LL_SCORER.score_sentences(causal, SENTENCES, ScoringCall(CausalOptions(), print))
    for text, got, base in zip(SENTENCES, scores, plain, strict=True):
        assert got.score == pytest.approx(_hand_causal_ll(causal, text, 50.0), abs=1e-3)
        assert got.n_tokens == base.n_tokens
    assert [s.score for s in scores] != pytest.approx([s.score for s in plain], abs=1e-3)


def test_causal_head_chunks_and_full_logits_agree(
    causal: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head run a few rows at a time, and the full logits of a head that cannot run on
    chosen rows, give the same rescaled scores."""
    from audit.scoring import causal as causal_scoring

    model = _with_debias(causal, PREFIXES, 50.0)
    want = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(CausalOptions(), print))
    monkeypatch.setattr(causal_scoring, "HEAD_CHUNK_ROWS", 6)  # 3 rows of each group
    chunked = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(CausalOptions(), print))
    monkeypatch.setattr(causal_scoring, "_head_is_plain", lambda m: False)
    full = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(CausalOptions(), print))
    for got in (chunked, full):
        assert [s.score for s in got] == pytest.approx([s.score for s in want], abs=1e-4)


def test_causal_zero_decay_leaves_the_scores(causal: LoadedModel) -> None:
    model = _with_debias(causal, PREFIXES, 0.0)
    for compat in ("formula", "reference"):
        options = CausalOptions(compat=compat)
        got = LL_SCORER.score_sentences(model, SENTENCES, ScoringCall(options, print))
        want = LL_SCORER.score_sentences(causal, SENTENCES, ScoringCall(options, print))
        assert [s.score for s in got] == pytest.approx([s.score for s in want], abs=1e-4)


@pytest.fixture(scope="module")
def bert() -> LoadedModel:
    return loaded(tiny_bert())


def _hand_pll(model: LoadedModel, text: str, decay: float) -> float:
    """Each token masked in turn: [CLS] s [SEP] and [CLS] prefix s [SEP], unpadded."""
    tok = model.tokenizer
    ids = tok(text)["input_ids"]
    total = 0.0
    with torch.no_grad():
        for i in range(1, len(ids) - 1):
            masked = list(ids)
            masked[i] = tok.mask_token_id
            p = torch.softmax(model.model(torch.tensor([masked])).logits[0, i].double(), -1)
            biased = []
            for text_prefix in PREFIXES:
                p_ids = tok(text_prefix, add_special_tokens=False)["input_ids"]
                row = [masked[0], *p_ids, *masked[1:]]
                out = model.model(torch.tensor([row])).logits[0, i + len(p_ids)].double()
                biased.append(torch.softmax(out, -1))
            delta = p - torch.stack(biased).amax(0)
            alpha = torch.where(delta >= 0, torch.ones_like(delta), torch.exp(decay * delta))
            total += math.log(float((alpha * p / (alpha * p).sum())[ids[i]]))
    return total


def test_masked_pll_equals_the_hand_computation(bert: LoadedModel) -> None:
    model = _with_debias(bert, PREFIXES, 50.0)
    scores = PLL_SCORER.score_sentences(model, SENTENCES, ScoringCall(MaskedOptions(), print))
    for text, got in zip(SENTENCES, scores, strict=True):
        assert got.score == pytest.approx(_hand_pll(bert, text, 50.0), abs=1e-3)


@pytest.mark.parametrize("scorer", [CPS_SCORER, AULA_SCORER], ids=lambda s: s.name)
def test_masked_zero_decay_leaves_the_scores(bert: LoadedModel, scorer: object) -> None:
    pairs = [(SENTENCES[0], "The nurse said he was tired."), (SENTENCES[1], "She is an engineer.")]
    model = _with_debias(bert, PREFIXES, 0.0)
    got = scorer.score_pairs(model, pairs, ScoringCall(MaskedOptions(), print))  # type: ignore[attr-defined]
    want = scorer.score_pairs(bert, pairs, ScoringCall(MaskedOptions(), print))  # type: ignore[attr-defined]
    flat = lambda ps: [x.score for p in ps for x in p]  # noqa: E731
    assert flat(got) == pytest.approx(flat(want), abs=1e-4)
    changed = scorer.score_pairs(  # type: ignore[attr-defined]
        _with_debias(bert, PREFIXES, 50.0), pairs, ScoringCall(MaskedOptions(), print)
    )
    assert flat(changed) != pytest.approx(flat(want), abs=1e-4)


# --- options and the settings file ------------------------------------------------------


def test_options_default_to_bias_benchs_gender_prefix() -> None:
    options = SelfDebiasOptions()
    assert options.prefix_texts() == (
        "The following text discriminates against people because of their gender: ",
    )
    assert options.decay == 50 and options.epsilon() == 0.0
    assert SelfDebiasOptions(compat="reference").epsilon() == 0.01
    assert SelfDebiasOptions(bias_types=["race", "religion"]).prefix_texts() == (
        SELF_DEBIAS_PREFIXES["race"],
        SELF_DEBIAS_PREFIXES["religion"],
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bias_types": []}, "no bias type given"),
        ({"bias_types": ["gender", "gender"]}, "listed twice"),
        ({"bias_types": ["colour"]}, "gender"),
        ({"prefixes": []}, "`prefixes` is empty"),
        ({"prefixes": ["ok: ", "  "]}, "prefix 1 is blank"),
        ({"prefixes": ["a: "], "bias_types": ["gender"]}, "not both"),
        ({"decay": -1}, "greater than or equal to 0"),
        ({"lambda": 50}, "lambda"),
    ],
)
def test_bad_options_are_clear_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        SelfDebiasOptions.model_validate(options)


def test_settings_file_round_trip_and_errors(tmp_path: Path) -> None:
    settings = SelfDebiasSettings(prefixes=PREFIXES, decay=50.0, epsilon=0.01)
    path = save_self_debias(settings, tmp_path)
    assert path.name == SELF_DEBIAS_FILE
    assert read_self_debias(path, "m") == settings
    path.write_text('{"format": 1, "prefixes": [], "decay": 50, "epsilon": 0}')
    with pytest.raises(ModelSourceError, match=r"model 'm'.*`prefixes` is"):
        read_self_debias(path, "m")
    path.write_text('{"format": 1, "prefixes": ["x: "], "decay": 50, "epsilon": 1.5}')
    with pytest.raises(ModelSourceError, match=r"`epsilon` is 1\.5"):
        read_self_debias(path, "m")
    path.write_text("not json")
    with pytest.raises(ModelSourceError, match="cannot read it"):
        read_self_debias(path, "m")


# --- the he/she probe sees the rescaled distribution ------------------------------------


@pytest.mark.parametrize("model_type", ["masked", "causal"])
def test_probe_uses_the_rescaled_distribution(model_type: str, tmp_path: Path) -> None:
    from audit.variants.probe import probe_he_she
    from tests.variants.tiny_lm import OCCUPATIONS, load, save_probe_bert, save_probe_llama

    save = save_probe_bert if model_type == "masked" else save_probe_llama
    model, tokenizer = load(save(tmp_path / model_type), model_type)
    occupations = list(OCCUPATIONS)

    def probe(decay: float | None) -> list[float]:
        debias = None
        if decay is not None:
            settings = SelfDebiasSettings(prefixes=("he she :",), decay=decay, epsilon=0.0)
            debias = prepare_self_debias(settings, tokenizer, model, "probe")
        record = probe_he_she(
            model,
            tokenizer,
            model_type=model_type,  # type: ignore[arg-type]
            occupations=occupations,
            device=torch.device("cpu"),
            self_debias=debias,
        )
        return [o.p_he for o in record.occupations]

    base = probe(None)
    assert probe(0.0) == pytest.approx(base, abs=1e-5)
    assert probe(50.0) != pytest.approx(base, abs=1e-5)


def test_method_page_names_every_option() -> None:
    from audit.variants.catalog import VARIANT_METHODS

    page = Path(__file__).resolve().parents[2] / "docs/measures/methods/self_debias.md"
    text = page.read_text(encoding="utf-8")
    for option in VARIANT_METHODS.entry("self_debias").options.model_fields:
        assert f"`{option}`" in text, option
    for heading in ("## 1.", "## 2.", "## 3.", "## 4.", "## Limits"):
        assert heading in text
