"""What `audit validate` refuses for a served model (`source: {endpoint: ...}`): every
request an endpoint cannot answer is an error naming the model, what asked and why."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit.spec.checks import run_checks
from audit.spec.models import AuditSpec
from audit.spec.problems import Finding
from audit.spec.sections import SpecSections

SERVED = {"id": "served", "source": {"endpoint": "http://127.0.0.1:9/v1", "model": "m"}}
LOCAL = {"id": "local", "source": {"hf": "gpt2"}}


def _errors(**parts: object) -> list[Finding]:
    data: dict[str, object] = {
        "spec_version": 1,
        "name": "t",
        "models": [SERVED, LOCAL],
        "datasets": ["crows_pairs"],
        "measures": ["bias_score"],
    }
    data.update(parts)
    spec = AuditSpec.model_validate(data)
    return [f for f in run_checks(SpecSections.of_spec(spec)) if f.severity == "error"]


def test_a_plain_served_spec_has_no_error() -> None:
    assert _errors(scorers={"causal": ["ll", "ppl"]}) == []


def test_seat_variants_and_fine_tuning_are_refused_naming_the_model() -> None:
    errors = _errors(
        measures=["bias_score", "seat"],
        variants=[
            {"id": "sd", "method": "self_debias", "base": "served"},
            {"id": "proj", "method": "sentence_debias", "base": "served"},
            {"id": "local-sd", "method": "self_debias", "base": "local"},
        ],
        extrinsic=[{"task": "sts_bias"}],
    )
    by_field = {f.loc: f.message for f in errors}
    assert "cannot run on the served model(s) 'served'" in by_field[("measures", 1)]
    assert "hidden states" in by_field[("measures", 1)]
    assert "full next-token distribution" in by_field[("variants", 0, "base")]
    assert "weights, which stay on the server" in by_field[("variants", 1, "base")]
    assert ("variants", 2, "base") not in by_field  # built on the local model: fine
    assert "would fine-tune the served model(s) 'served'" in by_field[("extrinsic", 0, "models")]


def test_an_extrinsic_task_limited_to_local_models_is_accepted() -> None:
    assert _errors(extrinsic=[{"task": "sts_bias", "models": ["local"]}]) == []


def test_reference_arithmetic_is_refused_on_an_endpoint() -> None:
    (error,) = _errors(scorers={"causal": [{"name": "ll", "compat": "reference"}]})
    assert error.loc == ("scorers", "causal", 0, "compat")
    assert "without the BOS token" in error.message and "'served'" in error.message


@pytest.mark.parametrize(
    ("option", "named"),
    [
        ({"type": "masked"}, "type: masked"),
        ({"dtype": "bfloat16"}, "dtype: bfloat16"),
        ({"quantization": {"bits": 4}}, "quantization"),
    ],
)
def test_weights_options_on_a_served_model_are_refused(
    option: dict[str, object], named: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        AuditSpec.model_validate(
            {
                "spec_version": 1,
                "name": "t",
                "models": [{**SERVED, **option}],
                "datasets": ["crows_pairs"],
            }
        )
    assert named in str(caught.value) and "the server holds" in str(caught.value)


@pytest.mark.parametrize("url", ["ftp://host/v1", "127.0.0.1:8080/v1", "http:///v1"])
def test_an_endpoint_must_be_an_http_url(url: str) -> None:
    with pytest.raises(ValidationError, match="an endpoint is an http"):
        AuditSpec.model_validate(
            {
                "spec_version": 1,
                "name": "t",
                "models": [{"id": "s", "source": {"endpoint": url, "model": "m"}}],
                "datasets": ["crows_pairs"],
            }
        )


def test_a_system_prompt_needs_a_chat_template() -> None:
    with pytest.raises(ValidationError, match="chat_template is none"):
        AuditSpec.model_validate(
            {
                "spec_version": 1,
                "name": "t",
                "models": [{**LOCAL, "system_prompt": "Be brief."}],
                "datasets": ["bbq"],
            }
        )


def test_auto_template_on_a_served_model_needs_its_tokenizer() -> None:
    base = {"spec_version": 1, "name": "t", "datasets": ["bbq"]}
    with pytest.raises(ValidationError, match="applied here, from the tokenizer files"):
        AuditSpec.model_validate({**base, "models": [{**SERVED, "chat_template": "auto"}]})
    source = {**SERVED["source"], "tokenizer": "smollm2.gguf"}  # type: ignore[dict-item]
    spec = AuditSpec.model_validate(
        {**base, "models": [{"id": "served", "source": source, "chat_template": "auto"}]}
    )
    assert spec.models[0].chat_template == "auto"
