"""load_model on tiny models: type, eval mode, device, precision, attention, facts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import torch

from audit.errors import ModelSourceError
from audit.models import load as load_module
from audit.models.attention import attention_implementation, eager_attention
from audit.models.device import choose_device, choose_weight_dtype, cpu_threads
from audit.models.fingerprint import fingerprint
from audit.models.load import load_model, load_weights
from audit.models.resolve import resolve_model
from audit.spec.models import ModelSpec
from tests.models.tiny import TINY_BUILDERS


def _spec(path: Path, **extra: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "tiny", "source": {"path": str(path)}, **extra})


@pytest.mark.parametrize("name", sorted(TINY_BUILDERS))
def test_loads_each_tiny_model(name: str, tiny_models: dict[str, Path], cache_dir: Path) -> None:
    spec = _spec(tiny_models[name])
    loaded = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert loaded.model_type == TINY_BUILDERS[name][0]
    assert not loaded.model.training
    assert loaded.device == torch.device("cpu")
    assert loaded.autocast_dtype is None
    assert {p.dtype for p in loaded.model.parameters()} == {torch.float32}
    assert loaded.fingerprint == fingerprint(resolve_model(spec, cache_dir=cache_dir))
    assert loaded.n_parameters == sum(p.numel() for p in loaded.model.parameters()) > 0
    assert loaded.load_seconds > 0
    assert loaded.source.startswith("path:")
    assert loaded.tokenizer.pad_token is not None
    assert attention_implementation(loaded.model) == "sdpa"
    suffix = "ForMaskedLM" if loaded.model_type == "masked" else ("ForCausalLM", "LMHeadModel")
    assert type(loaded.model).__name__.endswith(suffix)
    ids = loaded.tokenizer("The nurse said she was tired.", return_tensors="pt")
    with torch.no_grad():
        logits = loaded.model(**ids).logits
    assert logits.shape[-1] == loaded.model.config.vocab_size


def test_cpu_uses_every_core(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    torch.set_num_threads(1)
    load_model(_spec(tiny_models["gpt2"]), cache_dir=cache_dir, device="auto")
    assert torch.get_num_threads() == len(os.sched_getaffinity(0))


def test_type_override_loads_other_head(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    loaded = load_model(_spec(tiny_models["bert"], type="causal"), cache_dir=cache_dir)
    assert loaded.model_type == "causal"
    assert type(loaded.model).__name__ == "BertLMHeadModel"


def test_impossible_head_is_a_user_error(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    with pytest.raises(ModelSourceError, match="model 'tiny': cannot load the model"):
        load_model(_spec(tiny_models["llama"], type="masked"), cache_dir=cache_dir)


def test_gguf_cannot_be_masked(tmp_path: Path, cache_dir: Path) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    spec = ModelSpec.model_validate(
        {"id": "g", "source": {"gguf": str(tmp_path / "m.gguf")}, "type": "masked"}
    )
    with pytest.raises(ModelSourceError, match="GGUF files hold causal LMs only"):
        load_model(spec, cache_dir=cache_dir)


def test_eager_attention_gives_weights_and_restores(
    tiny_models: dict[str, Path], cache_dir: Path
) -> None:
    loaded = load_model(_spec(tiny_models["roberta"]), cache_dir=cache_dir)
    ids = loaded.tokenizer("The nurse said she was tired.", return_tensors="pt")
    with eager_attention(loaded.model) as model, torch.no_grad():
        attentions = model(**ids, output_attentions=True).attentions
    assert len(attentions) == loaded.model.config.num_hidden_layers
    assert attentions[0].shape[-1] == ids["input_ids"].shape[1]
    assert attention_implementation(loaded.model) == "sdpa"


class _Recorder:
    def __init__(self, fail_sdpa: bool) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail_sdpa = fail_sdpa
        self.model = torch.nn.Linear(2, 2)

    def from_pretrained(self, directory: Path, **kwargs: Any) -> torch.nn.Module:
        self.calls.append(kwargs)
        if self.fail_sdpa and kwargs["attn_implementation"] == "sdpa":
            raise ValueError(
                "FooForMaskedLM does not support an attention implementation "
                "through torch.nn.functional.scaled_dot_product_attention (sdpa)"
            )
        return self.model


@pytest.mark.parametrize(("trust", "fail_sdpa"), [(False, False), (True, True)])
def test_load_kwargs(
    trust: bool,
    fail_sdpa: bool,
    tiny_models: dict[str, Path],
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorder = _Recorder(fail_sdpa)
    monkeypatch.setattr(load_module, "auto_model_class", lambda kind: recorder)
    spec = _spec(tiny_models["bert"], trust_remote_code=trust)
    resolved = resolve_model(spec, cache_dir=cache_dir)
    assert load_weights(resolved, spec, "masked") is recorder.model
    assert [c["attn_implementation"] for c in recorder.calls] == (
        ["sdpa", "eager"] if fail_sdpa else ["sdpa"]
    )
    kwargs = recorder.calls[-1]
    assert kwargs["use_safetensors"] is True and kwargs["dtype"] == torch.float32
    # straight onto the device with low host memory (accelerate), no quantisation
    assert kwargs["device_map"] == {"": "cpu"} and kwargs["low_cpu_mem_usage"] is True
    assert "quantization_config" not in kwargs
    assert ("trust_remote_code" in kwargs) == trust
    assert "gguf_file" not in kwargs


def test_remote_code_hint(tiny_models: dict[str, Path], cache_dir: Path) -> None:
    spec = _spec(tiny_models["bert"])
    resolved = resolve_model(spec, cache_dir=cache_dir)
    error = ValueError("requires you to execute code; set trust_remote_code=True")
    message = str(load_module._load_error(spec, resolved, "config", error))
    assert "set `trust_remote_code: true`" in message


def test_precision_policy() -> None:
    cpu = torch.device("cpu")
    assert choose_weight_dtype("auto", cpu) == torch.float32
    # exact by default on a GPU too (no CUDA needed to ask)
    assert choose_weight_dtype("auto", torch.device("cuda")) == torch.float32
    assert choose_weight_dtype("float32", torch.device("cuda")) == torch.float32
    assert choose_weight_dtype("float32", cpu) == torch.float32
    assert choose_weight_dtype("bfloat16", cpu) == torch.bfloat16
    assert choose_weight_dtype("float16", cpu) == torch.float16
    with pytest.raises(ModelSourceError, match="not one of auto, float32"):
        choose_weight_dtype("int4", cpu)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA path")
def test_device_choice_without_cuda() -> None:
    assert choose_device("auto") == torch.device("cpu")
    with pytest.raises(ModelSourceError, match="CUDA is not available"):
        choose_device("cuda")
    with pytest.raises(ModelSourceError, match="not a torch device"):
        choose_device("gpu0")


def test_cpu_threads_honours_a_smaller_omp_num_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two audits sharing a machine with OMP_NUM_THREADS=1 each get one torch thread, not
    every core each (oversubscribed, torch's threads wait on each other)."""

    cores = len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert cpu_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", str(cores + 5))
    assert cpu_threads() == cores
    for unset in ("", "0", "two"):
        monkeypatch.setenv("OMP_NUM_THREADS", unset)
        assert cpu_threads() == cores
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert cpu_threads() == cores
