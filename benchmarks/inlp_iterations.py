"""How many L-BFGS iterations INLP's classifiers take on real hidden states, against the
random vectors `audit plan` times them on (issue 31, item 6).

`audit plan` estimates an INLP projection as its sentences encoded plus (iterations + 2)
INLP iterations, one iteration timed on random vectors of the split's shape
(`audit.variants.methods.inlp.rehearsal`). Each iteration fits one linear SVM per class
by L-BFGS (at most 200 iterations, `audit.variants.projection.linear_svm`), and how many
iterations a fit takes depends on the data. This script encodes up to `--per-class`
sentences of each class of a spec's INLP variant with the real model, then runs
`--iterations` INLP iterations on those vectors and on random vectors of the same shape,
recording each fit's (L-BFGS iterations, loss evaluations) and the seconds.

    .venv/bin/python benchmarks/inlp_iterations.py specs/debiasing-downstream.yaml \
        minilm-inlp [--per-class 600] [--iterations 4] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from audit.display import SilentDisplay
from audit.engine import RunSettings, plan_audit
from audit.models.load import load_model
from audit.spec.loader import load_spec
from audit.variants import projection
from audit.variants.labelled_data import labelled_of
from audit.variants.methods.inlp import split
from audit.variants.posthoc import projection_vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("spec", type=Path)
    parser.add_argument("variant", help="the id of an INLP variant of the spec")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--per-class", type=int, default=600, help="0: every sentence")
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="inlp-iterations-"))
    settings = RunSettings(out_dir=work / "out", cache_dir=work / "cache", data_dir=args.data_dir)
    plan = plan_audit(load_spec(args.spec), settings, SilentDisplay())
    job = next(j for j in plan.variant_jobs if j.model_id == args.variant)
    base = next(m for m in plan.loaded.spec.models if m.id == job.base)
    loaded = load_model(base, cache_dir=settings.cache_dir, device="cpu")

    fits: list[tuple[int, int]] = []
    step = torch.optim.LBFGS.step

    def counted_step(self: torch.optim.LBFGS, closure: Any) -> Any:
        out = step(self, closure)
        state = self.state[self._params[0]]
        fits.append((int(state["n_iter"]), int(state["func_evals"])))
        return out

    torch.optim.LBFGS.step = counted_step  # type: ignore[method-assign]
    xs, ys, sizes = [], [], {}
    for k, (name, group) in enumerate(labelled_of(job.data).items()):
        vectors = projection_vectors(
            loaded,
            group[: args.per_class or None],
            batch_size=job.training.batch_size,
            max_length=job.training.max_length,
        )
        xs.append(torch.from_numpy(vectors.values).float())
        ys.append(torch.full((len(vectors.values),), k))
        sizes[name] = len(vectors.values)
    x, y = torch.cat(xs), torch.cat(ys)
    train, dev, _ = split(len(y), plan.loaded.spec.seed)
    noise = torch.randn(x.shape, generator=torch.Generator().manual_seed(0))
    runs = {}
    for label, data in (("random vectors", noise), ("real hidden states", x)):
        fits.clear()
        started = time.perf_counter()
        projection.inlp_projection(
            data[train], y[train], data[dev], y[dev], iterations=args.iterations
        )
        seconds = time.perf_counter() - started
        runs[label] = {"seconds": seconds, "fits_lbfgs_iterations_and_evaluations": list(fits)}
        capped = sum(n >= 200 for n, _ in fits)
        print(f"{label}: {seconds:.2f} s; {capped} of {len(fits)} fits at the cap; {fits}")
    record = {
        "spec": str(args.spec),
        "variant": args.variant,
        "classes": sizes,
        "dim": int(x.shape[1]),
        "inlp_iterations": args.iterations,
        "threads": torch.get_num_threads(),
        "load_average": os.getloadavg(),
        "runs": runs,
    }
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
