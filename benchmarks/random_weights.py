"""A model folder with a real model's shape and tokenizer but seeded random weights.

The CUDA benchmarks and the `gpu` tests run on a machine that receives at most 64 MiB
of files (the device tool of this workplace), where minilm-mlm (88 MB) or SmolLM2's
GGUF (98 MB) cannot travel. Speed, memory and the agreement of CUDA with the CPU on the
same weights do not depend on what the weights learned, so this script writes a folder
with the same `config.json` and tokenizer files as SOURCE and weights drawn by the
model class's own initialisation under `--seed`: the same shape, the same tokens, the
same FLOPs. Bias numbers of such a model mean nothing; benchmark records that use one
say so (`"weights": "random (seed N)"`).

    .venv/bin/python benchmarks/random_weights.py SOURCE OUT [--seed 0] [--config-only]
        [--config FILE] [--device cpu] [--dtype float32]

SOURCE is a model folder (config.json and tokenizer files) or a GGUF file (its config and
tokenizer are read with transformers). `--config-only` writes config and tokenizer
without weights (small enough to travel); run the script again on the other machine
with that folder as SOURCE to draw the weights there. `--config FILE` takes the shape
from FILE instead (a release's published config.json, e.g. benchmarks/shapes/, whose
tokenizer cannot be had offline) and only the tokenizer from SOURCE: its token ids must
lie within FILE's vocabulary. `--device cuda --dtype bfloat16` draws and saves the
weights there and in that dtype: a 7B model's float32 initialisation on a CPU takes
minutes and 30 GB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "merges.txt",
    "vocab.json",
)


def read_shape(source: Path, out: Path, config: Path | None = None) -> None:
    """config.json (from `config` when given) and the tokenizer files of `source` (a
    folder or a GGUF file) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    if config is not None:
        read_shape(source, out)
        shape = json.loads(config.read_text())
        shape = {k: v for k, v in shape.items() if not k.startswith("_")}
        (out / "config.json").write_text(json.dumps(shape, indent=2))
        return
    if source.is_file():
        AutoConfig.from_pretrained(source.parent, gguf_file=source.name).save_pretrained(out)
        AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name).save_pretrained(out)
        return
    if source.resolve() == out.resolve():
        return
    shutil.copy2(source / "config.json", out / "config.json")
    for name in TOKENIZER_FILES:
        if (source / name).exists():
            shutil.copy2(source / name, out / name)


def draw_weights(
    out: Path, seed: int, device: str = "cpu", dtype: torch.dtype = torch.float32
) -> int:
    """Weights for the config in `out`, initialised by the model class under `seed` on
    `device` in `dtype`; returns the number of parameters."""
    config = AutoConfig.from_pretrained(out)
    masked = any(a.endswith("ForMaskedLM") for a in config.architectures or [])
    factory = AutoModelForMaskedLM if masked else AutoModelForCausalLM
    torch.manual_seed(seed)
    with torch.device(device):
        model = factory.from_config(config, dtype=dtype)
    model.save_pretrained(out)
    return sum(p.numel() for p in model.parameters())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a model folder or a GGUF file")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config-only", action="store_true", help="no weights: shape only")
    parser.add_argument(
        "--config", type=Path, default=None, help="config.json of the shape (default: SOURCE's)"
    )
    parser.add_argument("--device", default="cpu", help="where the weights are drawn")
    parser.add_argument("--dtype", default="float32", choices=sorted(DTYPES))
    args = parser.parse_args()
    read_shape(args.source, args.out, args.config)
    if args.config_only:
        print(f"{args.out}: config and tokenizer of {args.source}")
        return
    started = time.perf_counter()
    n = draw_weights(args.out, args.seed, args.device, DTYPES[args.dtype])
    print(
        f"{args.out}: {n:,} parameters drawn with seed {args.seed} on {args.device} in "
        f"{args.dtype}, saved in {time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    main()
