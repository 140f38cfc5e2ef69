"""The he/she probe, and the issue's acceptance test: a tiny model trained on r = 1 (male
sentences only) gives a higher P(he | "[MASK] is a doctor.") than one trained on r = 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import AuditUserError
from audit.variants.probe import article, load_probe_occupations, probe_he_she
from audit.variants.settings import TrainingSpec
from audit.variants.trainer import Objective, TrainingData, train_model
from tests.variants.tiny_lm import gendered_sentences, load, probe_sentences

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.variants.tiny_lm import save_probe_bert, save_probe_llama

    root = tmp_path_factory.mktemp("tiny")
    return {"masked": save_probe_bert(root / "bert"), "causal": save_probe_llama(root / "llama")}


def test_occupations_come_from_winogender(shared_data: Path) -> None:
    occupations = load_probe_occupations(shared_data)
    assert len(occupations) == 60
    assert occupations[:2] == ["technician", "accountant"]
    assert len(set(occupations)) == 60


def test_occupation_file_problems_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(AuditUserError, match=r"occupations-stats\.tsv does not exist.*--data-dir"):
        load_probe_occupations(tmp_path)
    (tmp_path / "winogender").mkdir()
    path = tmp_path / "winogender" / "occupations-stats.tsv"
    path.write_text("job\tpct\nnurse\t90\n")
    with pytest.raises(AuditUserError, match="no `occupation` column"):
        load_probe_occupations(tmp_path)
    path.write_text("occupation\tpct\nfire fighter\t4\n\nnurse\t90\nnurse\t90\n")
    assert load_probe_occupations(tmp_path) == ["fire fighter", "nurse"]


def test_article() -> None:
    assert [article(w) for w in ("engineer", "doctor", "Umpire", "x")] == ["an", "a", "an", "a"]


def test_masked_probe_reads_the_mask(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["masked"], "masked")
    model.train()
    record = probe_he_she(
        model, tokenizer, model_type="masked", occupations=["doctor", "engineer"], device=CPU
    )
    assert model.training, "the model's mode is put back"
    assert (record.he, record.she) == ("he", "she"), "a lower-casing tokenizer"
    assert record.template == "[MASK] is a/an <occupation>."
    assert [o.occupation for o in record.occupations] == ["doctor", "engineer"]
    model.eval()
    enc = tokenizer("[MASK] is an engineer.", return_tensors="pt")
    with torch.no_grad():
        probs = torch.softmax(model(**enc).logits[0, 1], dim=-1)
    he, she = tokenizer.convert_tokens_to_ids(["he", "she"])
    assert record.occupations[1].p_he == pytest.approx(float(probs[he]), rel=1e-4)
    assert record.occupations[1].p_she == pytest.approx(float(probs[she]), rel=1e-4)
    shares = [o.p_he / (o.p_he + o.p_she) for o in record.occupations]
    assert record.he_share == pytest.approx(sum(shares) / 2)
    assert record.mean_p_he == pytest.approx(sum(o.p_he for o in record.occupations) / 2)


def test_causal_probe_compares_whole_sentences(dirs: dict[str, Path]) -> None:
    model, tokenizer = load(dirs["causal"], "causal")
    record = probe_he_she(model, tokenizer, model_type="causal", occupations=["nurse"], device=CPU)
    assert (record.he, record.she) == ("He", "She")
    [row] = record.occupations
    assert row.p_he + row.p_she == pytest.approx(1.0)

    def log_prob(text: str) -> float:  # the BOS prepended: the tokenizer adds none
        ids = torch.tensor([[tokenizer.bos_token_id, *tokenizer(text)["input_ids"]]])
        with torch.no_grad():
            logp = torch.log_softmax(model(ids).logits[0, :-1].double(), dim=-1)
        return float(logp.gather(1, ids[0, 1:, None]).sum())

    l_he, l_she = log_prob("He is a nurse."), log_prob("She is a nurse.")
    assert row.p_he == pytest.approx(1 / (1 + torch.exp(torch.tensor(l_she - l_he)).item()))


def test_probe_problems_are_user_errors(dirs: dict[str, Path]) -> None:
    from audit.variants.probe import _single_token

    model, tokenizer = load(dirs["causal"], "causal")
    with pytest.raises(AuditUserError, match="'xylophone' is not a single token"):
        _single_token(tokenizer, "xylophone")
    with pytest.raises(AuditUserError, match="no mask token"):
        probe_he_she(model, tokenizer, model_type="masked", occupations=["nurse"], device=CPU)
    with pytest.raises(AuditUserError, match="no occupations"):
        probe_he_she(model, tokenizer, model_type="causal", occupations=[], device=CPU)


def _trained(dirs: dict[str, Path], work: Path, model_type: str, pronoun: str) -> Any:
    model, tokenizer = load(dirs[model_type], model_type)
    # the masked model reads "he is a doctor .", the causal one the probe's "He is a doctor."
    sentences = gendered_sentences if model_type == "masked" else probe_sentences
    train_model(
        model,
        tokenizer,
        model_type=model_type,  # type: ignore[arg-type]
        objective=Objective(kind="lm"),
        data=TrainingData(sentences=tuple(sentences(pronoun))),
        settings=TrainingSpec(steps=25, learning_rate=2e-3, batch_size=7, seed=0),
        work_dir=work,
        device=CPU,
    )
    return probe_he_she(
        model, tokenizer, model_type=model_type, occupations=["doctor", "nurse"], device=CPU
    )


@pytest.mark.parametrize("model_type", ["masked", "causal"])
def test_a_model_trained_on_male_sentences_prefers_he(
    dirs: dict[str, Path], tmp_path: Path, model_type: str
) -> None:
    r1 = _trained(dirs, tmp_path / "r1", model_type, "he")  # r = 1: male sentences only
    r0 = _trained(dirs, tmp_path / "r0", model_type, "she")  # r = 0: female sentences only
    doctor_r1, doctor_r0 = r1.occupations[0], r0.occupations[0]
    assert doctor_r1.occupation == "doctor"
    assert doctor_r1.p_he > doctor_r0.p_he
    assert doctor_r1.p_he > doctor_r1.p_she and doctor_r0.p_she > doctor_r0.p_he
    assert r1.he_share > 0.5 > r0.he_share
