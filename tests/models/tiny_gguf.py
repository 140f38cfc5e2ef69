"""A tiny GGUF file written from the tiny Llama of `tests.models.tiny`, offline.

The weight matrices are stored Q8_0-quantised (as llama.cpp would) and the norms in
float32; the byte-level BPE tokenizer goes in as a `gpt2` GGUF tokenizer. transformers
reads it like any GGUF model (config, tokenizer and dequantised weights from the file),
in well under a second.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.models.tiny import save_tiny_llama

CONTROL, NORMAL = 3, 1  # GGUF token types


def _gguf_names(layers: int) -> dict[str, str]:
    names = {
        "model.embed_tokens.weight": "token_embd.weight",
        "model.norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }
    per_layer = {
        "input_layernorm": "attn_norm",
        "post_attention_layernorm": "ffn_norm",
        "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k",
        "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output",
        "mlp.gate_proj": "ffn_gate",
        "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down",
    }
    for i in range(layers):
        for hf, gguf_name in per_layer.items():
            names[f"model.layers.{i}.{hf}.weight"] = f"blk.{i}.{gguf_name}.weight"
    return names


def _permute(weight: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's row order for q/k projections (transformers undoes it on loading)."""
    rows = weight.shape[0]
    return (
        weight.reshape(heads, 2, rows // heads // 2, *weight.shape[1:])
        .swapaxes(1, 2)
        .reshape(weight.shape)
    )


def save_tiny_gguf(out_dir: Path, *, seed: int = 0) -> Path:
    """Write `out_dir/tiny-llama.Q8_0.gguf` (and the source model in `out_dir/hf`);
    returns the GGUF file's path."""
    import gguf
    import torch
    from transformers import AutoModelForCausalLM

    source = save_tiny_llama(out_dir / "hf", seed=seed)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
    config = model.config
    spec = json.loads((source / "tokenizer.json").read_text())
    vocab: dict[str, int] = dict(spec["model"]["vocab"])
    specials = {t["content"]: t["id"] for t in spec["added_tokens"]}
    vocab.update(specials)
    tokens = [""] * len(vocab)
    for token, index in vocab.items():
        tokens[index] = token
    merges = [m if isinstance(m, str) else " ".join(m) for m in spec["model"]["merges"]]

    path = out_dir / "tiny-llama.Q8_0.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_dimension_count(config.hidden_size // config.num_attention_heads)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_rope_freq_base(10000.0)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(tokens)
    writer.add_token_types([CONTROL if t in specials else NORMAL for t in tokens])
    writer.add_token_merges(merges)
    writer.add_unk_token_id(vocab["<unk>"])
    writer.add_bos_token_id(vocab["<s>"])
    writer.add_eos_token_id(vocab["</s>"])
    writer.add_add_bos_token(True)
    names = _gguf_names(config.num_hidden_layers)
    for name, tensor in model.state_dict().items():
        weight = tensor.numpy().astype(np.float32)
        if name.endswith("q_proj.weight"):
            weight = _permute(weight, config.num_attention_heads)
        elif name.endswith("k_proj.weight"):
            weight = _permute(weight, config.num_key_value_heads)
        weight = np.ascontiguousarray(weight)
        if weight.ndim == 2:
            packed = gguf.quants.quantize(weight, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(
                names[name],
                packed,
                raw_shape=packed.shape,
                raw_dtype=gguf.GGMLQuantizationType.Q8_0,
            )
        else:
            writer.add_tensor(names[name], weight)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
