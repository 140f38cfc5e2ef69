"""Masked vs causal detection from configs."""

from __future__ import annotations

import pytest
from transformers import (
    AlbertConfig,
    BartConfig,
    BertConfig,
    DistilBertConfig,
    GPT2Config,
    LlamaConfig,
    PretrainedConfig,
    RobertaConfig,
)

from audit.errors import ModelSourceError
from audit.models.kind import detect_model_kind


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (BertConfig(), "masked"),
        (RobertaConfig(), "masked"),
        (AlbertConfig(), "masked"),
        (DistilBertConfig(), "masked"),
        (GPT2Config(), "causal"),
        (LlamaConfig(), "causal"),
        (BertConfig(is_decoder=True), "causal"),
        (BertConfig(architectures=["BertLMHeadModel"]), "causal"),
        (RobertaConfig(architectures=["RobertaForMaskedLM"]), "masked"),
        (GPT2Config(architectures=["GPT2LMHeadModel"]), "causal"),
        (LlamaConfig(architectures=["LlamaForCausalLM"]), "causal"),
    ],
)
def test_detected(config: PretrainedConfig, expected: str) -> None:
    assert detect_model_kind(config, override="auto", model_id="m") == expected


@pytest.mark.parametrize("override", ["masked", "causal"])
def test_type_overrides(override: str) -> None:
    assert detect_model_kind(GPT2Config(), override=override, model_id="m") == override


def test_unknown_model_type_asks_for_type() -> None:
    with pytest.raises(ModelSourceError, match=r"model 'm'.*set `type: masked` or `type: causal`"):
        detect_model_kind(PretrainedConfig(), override="auto", model_id="m")


def test_conflicting_architectures_ask_for_type() -> None:
    config = BertConfig(architectures=["BertForMaskedLM", "BertLMHeadModel"])
    with pytest.raises(ModelSourceError, match="cannot tell"):
        detect_model_kind(config, override="auto", model_id="m")


def test_encoder_decoder_is_refused_unless_typed() -> None:
    with pytest.raises(ModelSourceError, match="encoder-decoder"):
        detect_model_kind(BartConfig(), override="auto", model_id="m")
    assert detect_model_kind(BartConfig(), override="causal", model_id="m") == "causal"
