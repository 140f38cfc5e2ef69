"""Micro-benchmark of the causal engine's LM head on the CPU: a [rows x 576] by
[576 x 49,152] product (SmolLM2's head shape, random weights) per chunk of 2,048 rows,
for chunks of 32, 128 and 512 rows, and three log-normalisers over each chunk's logits:
`torch.logsumexp` (the engine's before issue 33), `log_softmax` then gather, and the
in-place max-subtract-exp-sum-log (the engine's now). Prints the best of two passes,
the product's GFLOP/s and each normaliser's largest difference from the first.

    .venv/bin/python benchmarks/causal_head_chunks.py
"""

import time

import torch

torch.manual_seed(0)
W = torch.randn(49152, 576) * 0.05
H = torch.randn(2048, 576)
T = torch.randint(0, 49152, (2048,))


def lse(logits, t):
    return logits.gather(-1, t[:, None]).squeeze(-1) - torch.logsumexp(logits, -1)


def lsm(logits, t):
    return torch.log_softmax(logits, -1).gather(-1, t[:, None]).squeeze(-1)


def inplace(logits, t):
    picked = logits.gather(-1, t[:, None]).squeeze(-1)
    m = logits.amax(-1, keepdim=True)
    return picked - (logits.sub_(m).exp_().sum(-1).log() + m.squeeze(-1))


ref = None
with torch.inference_mode():
    for rows in (32, 128, 512):
        for name, f in (("lse", lse), ("lsm", lsm), ("inplace", inplace)):
            best_mm = best_n = 1e9
            for _rep in range(2):
                mm = nn = 0.0
                outs = []
                for s in range(0, 2048, rows):
                    t0 = time.perf_counter()
                    logits = H[s : s + rows] @ W.T
                    t1 = time.perf_counter()
                    outs.append(f(logits, T[s : s + rows]))
                    t2 = time.perf_counter()
                    mm += t1 - t0
                    nn += t2 - t1
                best_mm = min(best_mm, mm)
                best_n = min(best_n, nn)
            o = torch.cat(outs).double()
            if ref is None:
                ref = o
            rate = 2 * 2048 * 576 * 49152 / best_mm / 1e9
            difference = float((o - ref).abs().max())
            print(
                f"rows {rows:5d} {name:8s} matmul {best_mm:.3f}s ({rate:.1f} GF/s) "
                f"norm {best_n:.3f}s maxdiff {difference:.2e}",
                flush=True,
            )
