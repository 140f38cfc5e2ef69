"""Micro-benchmark of the causal body's time per token against the batch's size on the
CPU: SmolLM2-135M cut to 3 of its 30 layers (the tests' dequantised folder), 4,096
tokens of random ids as batches of 8, 32 or 128 rows of 32 tokens, twice each. Prints
milliseconds per token: what smaller, less padded batches would cost.

    .venv/bin/python benchmarks/causal_batch_rows.py
"""

import glob
import time

import torch
from transformers import AutoModelForCausalLM

d = glob.glob("/root/.cache/bias-audit-tests/dequantised/cf6e*")[0]
m = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32)
m.model.layers = m.model.layers[:3]
m.config.num_hidden_layers = 3
g = torch.Generator().manual_seed(0)
res = {}
with torch.inference_mode():
    for _rep in range(2):
        for rows in (8, 32, 128):
            total = 0.0
            for _ in range(4096 // (rows * 32)):
                x = torch.randint(0, 49152, (rows, 32), generator=g)
                a = torch.ones_like(x)
                t = time.perf_counter()
                m.model(input_ids=x, attention_mask=a, use_cache=False)
                total += time.perf_counter() - t
            res.setdefault(rows, []).append(total / 4096 * 1e3)
            print(rows, "rows x 32:", f"{total / 4096 * 1e3:.3f} ms/token", flush=True)
print(res)
