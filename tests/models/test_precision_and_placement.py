"""Reduced-dtype weights, device placement and what goes into cache keys, on the CPU:
a spec's bfloat16 / float16 loads the weights in that dtype (scores finite and near
float32); `device_map: auto` loads on the CPU here; the precision label (part of every
score cache key) holds the dtype and the quantisation but not the device map."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch
from pydantic import ValidationError

from audit.display import SilentDisplay
from audit.engine import RunSettings
from audit.errors import ModelSourceError
from audit.ids import PluginId
from audit.models import load as load_module
from audit.models import placement
from audit.models.load import load_model
from audit.models.loaded import LoadedModel
from audit.models.placement import input_device, is_spread, placement_kwargs, spread_over
from audit.models.precision import model_precision
from audit.models.prepared import prepare_model
from audit.models.quantization import check_quantization, quantization_suffix
from audit.models.sources import Quantization
from audit.scoring.base import ScoringCall
from audit.scoring.cache import ModelIdentity, ScoreCache
from audit.scoring.causal import LL_SCORER
from audit.scoring.masked.scorers import PLL_SCORER
from audit.scoring.options import CausalOptions, MaskedOptions
from audit.scoring.runner import open_namespace
from audit.spec.models import ModelSpec
from tests.models.tiny import TINY_CORPUS

CPU = torch.device("cpu")
TEXTS = list(TINY_CORPUS[:6])


def _spec(path: Path, **extra: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "tiny", "source": {"path": str(path)}, **extra})


def _scores(loaded: LoadedModel) -> np.ndarray:
    if loaded.model_type == "causal":
        out = LL_SCORER.score_sentences(loaded, TEXTS, ScoringCall(CausalOptions(), lambda _: None))
    else:
        out = PLL_SCORER.score_sentences(
            loaded, TEXTS, ScoringCall(MaskedOptions(), lambda _: None)
        )
    return np.array([s.score for s in out])


@pytest.mark.parametrize(
    ("name", "dtype"), [("llama", "bfloat16"), ("bert", "bfloat16"), ("gpt2", "float16")]
)
def test_reduced_dtype_loads_the_weights_in_it(
    name: str, dtype: str, tiny_models: dict[str, Path], cache_dir: Path
) -> None:
    exact = load_model(_spec(tiny_models[name]), cache_dir=cache_dir, device="cpu")
    reduced = load_model(_spec(tiny_models[name], dtype=dtype), cache_dir=cache_dir, device="cpu")
    wanted = getattr(torch, dtype)
    assert {p.dtype for p in reduced.model.parameters()} == {wanted}
    assert reduced.model.dtype == wanted
    assert reduced.autocast_dtype is None  # the dtype is the weights' own, no autocast
    assert reduced.fingerprint == exact.fingerprint  # same files; the dtype is elsewhere
    assert reduced.n_parameters == exact.n_parameters
    got, want = _scores(reduced), _scores(exact)
    assert np.isfinite(got).all()
    # reduced weights move these sums of ~15-40 log-probabilities by a few thousandths
    # here (the log-softmax is float32); a loose bound still catches a broken path
    np.testing.assert_allclose(got, want, rtol=0, atol=0.05)
    assert not np.array_equal(got, want), "bfloat16/float16 weights should change the numbers"


def test_device_map_auto_loads_on_the_cpu_here(
    tiny_models: dict[str, Path], cache_dir: Path
) -> None:
    plain = load_model(_spec(tiny_models["llama"]), cache_dir=cache_dir, device="cpu")
    mapped = load_model(
        _spec(tiny_models["llama"], device_map="auto"), cache_dir=cache_dir, device="cpu"
    )
    assert mapped.device == CPU
    assert {p.device for p in mapped.model.parameters()} == {CPU}
    assert not is_spread(mapped.model) and spread_over(mapped.model) == ["cpu"]
    np.testing.assert_array_equal(_scores(mapped), _scores(plain))


#: Explicit device maps that spread the tiny models over the CPU and the disk: accelerate
#: dispatches them with hooks, as it does a model spread over GPUs.
SPREAD_MAPS: dict[str, dict[str, str]] = {
    "llama": {
        "model.embed_tokens": "cpu",
        "model.rotary_emb": "cpu",
        "model.layers.0": "cpu",
        "model.layers.1": "disk",
        "model.norm": "cpu",
        "lm_head": "disk",
    },
    "bert": {
        "bert.embeddings": "cpu",
        "bert.encoder.layer.0": "cpu",
        "bert.encoder.layer.1": "disk",
        "cls": "cpu",
    },
}


@pytest.mark.parametrize("name", sorted(SPREAD_MAPS))
def test_a_model_spread_by_accelerate_scores_like_one_device(
    name: str,
    tiny_models: dict[str, Path],
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = _scores(load_model(_spec(tiny_models[name]), cache_dir=cache_dir, device="cpu"))
    spread_kwargs = {
        "device_map": SPREAD_MAPS[name],
        "offload_folder": str(tmp_path / "offload"),
        "low_cpu_mem_usage": True,
    }
    monkeypatch.setattr(load_module, "placement_kwargs", lambda spec, device: spread_kwargs)
    spread = load_model(
        _spec(tiny_models[name], device_map="auto"), cache_dir=cache_dir, device="cpu"
    )
    assert is_spread(spread.model) and spread_over(spread.model) == ["cpu", "disk"]
    assert spread.device == CPU
    np.testing.assert_array_equal(_scores(spread), expected)


def test_placement_kwargs() -> None:
    plain = ModelSpec.model_validate({"id": "m", "source": {"hf": "x"}})
    auto = plain.model_copy(update={"device_map": "auto"})
    assert placement_kwargs(plain, CPU) == {"device_map": {"": "cpu"}, "low_cpu_mem_usage": True}
    assert placement_kwargs(auto, CPU) == placement_kwargs(plain, CPU)
    assert placement_kwargs(auto, torch.device("cuda"))["device_map"] == "auto"
    assert placement_kwargs(plain, torch.device("cuda", 1))["device_map"] == {"": "cuda:1"}


def test_loads_without_accelerate(
    tiny_models: dict[str, Path], cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(tiny_models["gpt2"], device_map="auto")
    expected = _scores(load_model(spec, cache_dir=cache_dir, device="cpu"))
    monkeypatch.setattr(placement, "has_accelerate", lambda: False)
    assert placement_kwargs(spec, CPU) == {}
    loaded = load_model(spec, cache_dir=cache_dir, device="cpu")
    assert loaded.device == CPU
    np.testing.assert_array_equal(_scores(loaded), expected)


def test_inputs_go_to_the_first_device_of_a_spread_model() -> None:
    def fake(device_map: dict[str, Any] | None) -> Any:
        return SimpleNamespace(hf_device_map=device_map)

    one = fake({"": "cpu"})
    assert input_device(one, CPU) == CPU and not is_spread(one)
    spread = fake({"model.embed_tokens": 1, "model.layers.0": 1, "model.layers.1": 2})
    assert input_device(spread, CPU) == torch.device("cuda", 1) and is_spread(spread)
    assert spread_over(spread) == ["cuda:1", "cuda:2"]
    offloaded = fake({"model.embed_tokens": "cpu", "model.layers": 0, "lm_head": "cpu"})
    assert input_device(offloaded, CPU) == torch.device("cuda", 0)  # accelerate runs it there
    assert input_device(fake(None), CPU) == CPU


def test_precision_label_has_dtype_and_quantisation_not_device_map() -> None:
    spec = ModelSpec.model_validate({"id": "m", "source": {"hf": "x"}})
    cuda = torch.device("cuda")
    assert model_precision(spec, CPU) == "cpu/float32"
    assert model_precision(spec.model_copy(update={"dtype": "bfloat16"}), CPU) == "cpu/bfloat16"
    assert model_precision(spec.model_copy(update={"dtype": "float16"}), CPU) == "cpu/float16"
    assert model_precision(spec.model_copy(update={"device_map": "auto"}), CPU) == "cpu/float32"
    quantised = ModelSpec.model_validate(
        {"id": "m", "source": {"hf": "x"}, "dtype": "bfloat16", "quantization": {"bits": 4}}
    )
    assert quantization_suffix(quantised) == "+nf4"
    eight = quantised.model_copy(update={"quantization": Quantization(bits=8)})
    assert quantization_suffix(eight) == "+int8"
    assert quantization_suffix(spec) == ""
    with pytest.raises(
        ModelSourceError, match=r"model 'm': `quantization: \{bits: 4\}` needs a CUDA"
    ):
        model_precision(quantised, CPU)
    check_quantization(spec, cuda)  # nothing to check without quantisation


def test_quantisation_needs_bitsandbytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from audit.models import quantization

    spec = ModelSpec.model_validate({"id": "m", "source": {"hf": "x"}, "quantization": {"bits": 8}})
    monkeypatch.setattr(quantization.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelSourceError, match=r"pip install 'bias-audit\[quant\]'"):
        check_quantization(spec, torch.device("cuda"))


def test_quantisation_is_refused_on_cpu_when_loading(
    tiny_models: dict[str, Path], cache_dir: Path
) -> None:
    spec = _spec(tiny_models["llama"], quantization={"bits": 4})
    with pytest.raises(ModelSourceError, match="needs a CUDA device"):
        load_model(spec, cache_dir=cache_dir, device="cpu")


def test_spec_fields_are_validated(tmp_path: Path) -> None:
    base = {"id": "m", "source": {"hf": "x"}}
    with pytest.raises(ValidationError, match="device_map"):
        ModelSpec.model_validate({**base, "device_map": "balanced"})
    with pytest.raises(ValidationError, match="bits"):
        ModelSpec.model_validate({**base, "quantization": {"bits": 3}})
    with pytest.raises(ValidationError, match="a GGUF file is quantised already"):
        ModelSpec.model_validate(
            {"id": "g", "source": {"gguf": "m.gguf"}, "quantization": {"bits": 4}}
        )


def test_spec_problem_names_field_value_and_choices(tmp_path: Path) -> None:
    from audit.spec.loader import validate_spec_file

    path = tmp_path / "spec.yaml"
    path.write_text(
        "spec_version: 1\nname: t\nmodels:\n"
        "  - id: a\n    source: {hf: gpt2}\n    device_map: balanced\n"
        "datasets: [crows_pairs]\n",
        encoding="utf-8",
    )
    errors = [p.format() for p in validate_spec_file(path) if p.is_error]
    assert len(errors) == 1
    assert "models[0].device_map" in errors[0] and "'balanced'" in errors[0]
    assert "'auto'" in errors[0]


def test_score_cache_key_has_dtype_not_device_map(
    tiny_models: dict[str, Path], tmp_path: Path
) -> None:
    settings = RunSettings(out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", device="cpu")
    cache = ScoreCache(settings.cache_dir)

    def namespace_of(**extra: object) -> Path:
        model = prepare_model(_spec(tiny_models["llama"], **extra), settings)
        identity = ModelIdentity(model.fingerprint, model.precision)
        namespace = open_namespace(PluginId.of("ll"), cache, identity)
        namespace.close()
        return namespace.folder

    exact = namespace_of()
    assert namespace_of(device_map="auto") == exact
    assert namespace_of(dtype="float32") == exact  # `auto` is float32
    reduced = {namespace_of(dtype="bfloat16"), namespace_of(dtype="float16")}
    assert exact not in reduced and len(reduced) == 2


def test_float32_load_for_training_ignores_the_reduced_dtype(
    tiny_models: dict[str, Path], tmp_path: Path
) -> None:
    from audit.models.prepared import load_prepared_model

    settings = RunSettings(out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", device="cpu")
    model = prepare_model(_spec(tiny_models["bert"], dtype="bfloat16"), settings)
    assert model.precision == "cpu/bfloat16"
    scored = load_prepared_model(model, settings, SilentDisplay())
    trained = load_prepared_model(model, settings, SilentDisplay(), float32=True)
    assert scored.model.dtype == torch.bfloat16 and trained.model.dtype == torch.float32


def test_load_weights_asks_for_the_dtype(
    tiny_models: dict[str, Path], cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []
    original = load_module.auto_model_class

    class Spy:
        def __init__(self, cls: Any) -> None:
            self.cls = cls

        def from_pretrained(self, directory: Path, **kwargs: Any) -> Any:
            seen.append(kwargs)
            return self.cls.from_pretrained(directory, **kwargs)

    monkeypatch.setattr(load_module, "auto_model_class", lambda kind: Spy(original(kind)))
    load_model(_spec(tiny_models["gpt2"], dtype="bfloat16"), cache_dir=cache_dir, device="cpu")
    assert seen[-1]["dtype"] == torch.bfloat16  # read in bfloat16, not float32 then cast
