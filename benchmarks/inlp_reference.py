"""Benchmark of INLP's default (`compat: formula`) against bias-bench's code (`compat:
reference`) on minilm-mlm: the example spec's variant `minilm-inlp` (specs/
posthoc-debiasing.yaml: corpus sts_b, religion, 80 iterations, seed 13), planned as the
engine plans it, once with each `compat`.

What it shows: how far the default's projection is from the one bias-bench's code
computes from the same model and corpus, and whether the difference matters downstream.

- the removed subspaces (the column space of I - P) after `--early` (10) and after
  `--iterations` (80) rounds: their ranks and the cosines of their principal angles
  (1 = the same direction removed; the smallest is the furthest apart);
- the same for the solver alone: the default's L-BFGS classifiers run on the
  reference's rows (its sentences, labels and split), so that only the classifier and
  the arithmetic differ;
- every round's dev accuracy under each `compat`, and the facts variant.json keeps
  (held-out accuracy of a fresh classifier before and after P, majority rate);
- the last hidden states of the CrowS-Pairs sentences of the bias type (every token) projected
  by each P: the largest difference between the two, against the largest change either
  projection makes;
- unless `--skip-audit`: the CrowS-Pairs bias score (CPS) of the bias type for the base
  model and both variants, by `run_audit` on a small spec in a temporary cache (a few
  minutes, plus both projections computed again).

`--bias-type gender` (or race) runs the same comparison with that bias type's words.

Runs on the CPU (the projections are computed there in any case). Writes
benchmarks/results/inlp_reference.json (religion) or inlp_reference_<bias type>.json.

    .venv/bin/python benchmarks/inlp_reference.py [--model ~/.cache/bias-fixtures/minilm-mlm]
        [--bias-type religion] [--iterations 80] [--early 10] [--skip-audit] [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import RESULTS, SHARED, run_header, write_record

from audit.models.loaded import LoadedModel
from audit.scoring.sentence_vectors import SentenceVectors
from audit.variants.jobs import VariantJob

DATA = SHARED / "data"
MODEL = Path.home() / ".cache" / "bias-fixtures" / "minilm-mlm"
SEED = 13  # the example spec's
VARIANT = {"id": "minilm-inlp", "base": "minilm-mlm", "method": "inlp", "corpus": "sts_b"}
#: CrowS-Pairs' name of each bias type.
CROWS_TYPE = {"gender": "gender", "race": "race-color", "religion": "religion"}
AUDIT_SPEC = """\
spec_version: 1
name: inlp-reference-benchmark
seed: {seed}
bootstrap: 1000
models:
  - {{id: minilm-mlm, source: {{path: {model}}}}}
datasets:
  - {{name: crows_pairs, bias_types: [{crows_type}]}}
scorers: {{masked: [cps]}}
measures: [bias_score]
variants:
  - {{id: minilm-inlp, base: minilm-mlm, method: inlp, corpus: sts_b,
     options: {{bias_type: {bias_type}, iterations: {iterations}}}}}
  - {{id: minilm-inlp-reference, base: minilm-mlm, method: inlp, corpus: sts_b,
     options: {{bias_type: {bias_type}, iterations: {iterations}, compat: reference}}}}
report: {{formats: []}}
"""


def model_dir(path: Path) -> Path:
    """minilm-mlm, built by ../shared/models/minilm_mlm/build.py when missing."""
    if not (path / "config.json").exists():
        build = SHARED / "models" / "minilm_mlm" / "build.py"
        subprocess.run([sys.executable, str(build), str(path)], check=True)
    return path


def planned_jobs(model: Path, bias_type: str) -> dict[str, VariantJob]:
    """The example's INLP variant planned as the engine plans it, once per `compat`."""
    from audit.variants.jobs import BaseModelFacts, plan_variants
    from audit.variants.settings import VariantSpec

    variants = [
        VariantSpec.model_validate(
            {**VARIANT, "options": {"bias_type": bias_type, "compat": compat}}
        )
        for compat in ("formula", "reference")
    ]
    with tempfile.TemporaryDirectory() as cache:
        plan = plan_variants(
            variants,
            bases={"minilm-mlm": BaseModelFacts(fingerprint="benchmark", model_type="masked")},
            seed=SEED,
            data_dir=DATA,
            base_dir=model.parent,
            cache_dir=Path(cache),
        )
    return {job.options.compat: job for job in plan.jobs}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class EncodedOnce:
    """Sentence vectors encoded once per list of sentences, for every fit of the run."""

    known: dict[tuple[str, ...], SentenceVectors] = field(default_factory=dict)


def setup_of(job: VariantJob, loaded: LoadedModel, memo: EncodedOnce, iterations: int) -> Any:
    """The job's projection setup with `iterations` rounds, its vectors read from `memo`."""
    from audit.variants.posthoc import ProjectionSetup

    @dataclass(frozen=True)
    class Setup(ProjectionSetup):
        def vectors(self, sentences: Sequence[str]) -> SentenceVectors:
            key = tuple(sentences)
            if key not in memo.known:
                memo.known[key] = super().vectors(sentences)
            return memo.known[key]

    assert job.training.seed is not None
    return Setup(
        loaded=loaded,
        data=job.data,
        options=job.options.model_copy(update={"iterations": iterations}),
        seed=job.training.seed,
        batch_size=job.training.batch_size,
        max_length=job.training.max_length,
        loc="variants[0]",
    )


def removed_basis(p: torch.Tensor) -> np.ndarray:
    """An orthonormal basis of the directions P removes (I - P's eigenvalue-1 space)."""
    removed = np.eye(p.shape[0]) - p.double().numpy()
    values, vectors = np.linalg.eigh((removed + removed.T) / 2)
    return vectors[:, values > 0.5]


def subspace_comparison(a: torch.Tensor, b: torch.Tensor) -> dict[str, Any]:
    """Ranks of the two removed subspaces and the cosines of their principal angles."""
    basis_a, basis_b = removed_basis(a), removed_basis(b)
    cosines = np.linalg.svd(basis_a.T @ basis_b, compute_uv=False)
    return {
        "rank_removed": [basis_a.shape[1], basis_b.shape[1]],
        "min_cosine": float(cosines.min()),
        "median_cosine": float(np.median(cosines)),
        "cosines_below_0_99": int((cosines < 0.99).sum()),
        "matrix_max_abs_difference": float((a.double() - b.double()).abs().max()),
    }


def crows_sentences(bias_type: str) -> list[str]:
    """Both sentences of every CrowS-Pairs pair of the bias type."""
    with (DATA / "crows_pairs" / "crows_pairs_anonymized.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["bias_type"] == CROWS_TYPE[bias_type]]
    return [s for r in rows for s in (r["sent_more"], r["sent_less"])]


def hidden_state_difference(
    loaded: LoadedModel, a: torch.Tensor, b: torch.Tensor, sentences: list[str]
) -> dict[str, Any]:
    """The last hidden states (every real token) of `sentences` projected by a and by b:
    the largest absolute and relative (to ||h||) difference between the two, against the
    largest change a makes to h."""
    tokenizer, body = loaded.tokenizer, loaded.model.base_model
    worst = worst_relative = change = 0.0
    tokens = 0
    with torch.no_grad():
        for sentence in sentences:
            ids = tokenizer(sentence, return_tensors="pt").to(loaded.device)
            h = body(**ids).last_hidden_state[0].float().cpu().double()
            ha, hb = h @ a.double().T, h @ b.double().T
            worst = max(worst, float((ha - hb).abs().max()))
            norms = h.norm(dim=1)
            worst_relative = max(worst_relative, float(((ha - hb).norm(dim=1) / norms).max()))
            change = max(change, float(((h - ha).norm(dim=1) / norms).max()))
            tokens += h.shape[0]
    return {
        "sentences": len(sentences),
        "tokens": tokens,
        "max_abs_difference": worst,
        "max_relative_difference": worst_relative,
        "max_relative_change_by_the_default": change,
    }


def solver_only(
    job: VariantJob, loaded: LoadedModel, memo: EncodedOnce, iterations: int
) -> torch.Tensor:
    """The default's classifiers (L-BFGS, torch arithmetic) on the reference's rows: its
    sentences, bias-bench's labels and its split."""
    from audit.variants.inlp_reference import reference_split
    from audit.variants.methods.inlp import REFERENCE_LABELS
    from audit.variants.projection import inlp_projection

    setup = setup_of(job, loaded, memo, iterations)
    names = list(job.data.labelled)
    encoded = [setup.vectors(job.data.labelled[n]) for n in names]
    x = torch.from_numpy(np.concatenate([e.values for e in encoded]).astype(np.float32))
    labels = REFERENCE_LABELS["gender" if "male" in names else "binary"]
    y = torch.cat(
        [torch.full((len(e.kept),), labels[n]) for n, e in zip(names, encoded, strict=True)]
    )
    train, dev, _ = (torch.from_numpy(i) for i in reference_split(len(y)))
    return inlp_projection(x[train], y[train], x[dev], y[dev], iterations=iterations).projection


def audit_scores(model: Path, bias_type: str, iterations: int) -> dict[str, Any]:
    """CrowS-Pairs bias score (CPS) of the base and both variants, by the engine."""
    from audit.display import SilentDisplay
    from audit.engine import RunSettings, run_audit
    from audit.spec.loader import load_spec

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = root / "spec.yaml"
        spec.write_text(
            AUDIT_SPEC.format(
                seed=SEED,
                model=model,
                iterations=iterations,
                bias_type=bias_type,
                crows_type=CROWS_TYPE[bias_type],
            )
        )
        settings = RunSettings(
            out_dir=root / "out", cache_dir=root / "cache", data_dir=DATA, device="cpu"
        )
        started = time.perf_counter()
        outcome = run_audit(load_spec(spec), settings, SilentDisplay())
        seconds = time.perf_counter() - started
    scores = {
        m.model: {"value": m.value, "ci": [m.ci_low, m.ci_high], "n": m.n}
        for m in outcome.result.measurements
        if m.measure.name == "bias_score" and m.group == "all"
    }
    return {"bias_score_cps": scores, "seconds": round(seconds, 1), **item_agreement(outcome)}


def item_agreement(outcome: Any) -> dict[str, Any]:
    """How many pairs the two variants score the same way (stereotype preferred or not)."""
    frame = outcome.scores
    prefers: dict[str, Any] = {}
    for model in ("minilm-inlp", "minilm-inlp-reference"):
        rows = frame[frame["model"] == model].pivot(index="item_id", columns="side", values="score")
        prefers[model] = rows["st"] > rows["at"]
    same = prefers["minilm-inlp"] == prefers["minilm-inlp-reference"]
    return {"pairs_scored_alike": int(same.sum()), "pairs": len(same)}


def fit_both(
    jobs: dict[str, VariantJob], loaded: LoadedModel, memo: EncodedOnce, iterations: int
) -> dict[str, Any]:
    """Each compat's fit with `iterations` rounds, and its seconds (encoding excluded
    after the first fit of a compat's sentences)."""
    from audit.variants.methods.inlp import fit

    fits: dict[str, Any] = {}
    for compat, job in jobs.items():
        started = time.perf_counter()
        fits[compat] = (fit(setup_of(job, loaded, memo, iterations)), time.perf_counter() - started)
    return fits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=MODEL, help="minilm-mlm's folder")
    parser.add_argument("--iterations", type=int, default=80, help="INLP rounds (the example's)")
    parser.add_argument("--early", type=int, default=10, help="the earlier point compared")
    parser.add_argument("--skip-audit", action="store_true", help="no CrowS-Pairs bias scores")
    parser.add_argument(
        "--bias-type", default="religion", choices=sorted(CROWS_TYPE), help="the example's"
    )
    parser.add_argument("--out", type=Path, default=None, help="results file")
    args = parser.parse_args()

    from audit.models.load import load_model
    from audit.models.sources import ModelSpec
    from audit.variants.inlp_reference import sklearn_version

    device = torch.device("cpu")
    model = model_dir(args.model.expanduser())
    with tempfile.TemporaryDirectory() as cache:
        spec = ModelSpec.model_validate({"id": "minilm-mlm", "source": {"path": str(model)}})
        loaded = load_model(spec, cache_dir=Path(cache), device="cpu")
    jobs = planned_jobs(model, args.bias_type)
    memo = EncodedOnce()
    sentences = {
        compat: {name: len(v) for name, v in job.data.labelled.items()}
        for compat, job in jobs.items()
    }
    same_sentences = {
        name: sum(
            a == b
            for a, b in zip(
                jobs["formula"].data.labelled[name],
                jobs["reference"].data.labelled[name],
                strict=False,  # the cut of one may shorten a class (fewer sentences kept)
            )
        )
        for name in jobs["formula"].data.labelled
    }
    early = fit_both(jobs, loaded, memo, args.early)
    full = fit_both(jobs, loaded, memo, args.iterations)
    formula, reference = full["formula"][0], full["reference"][0]
    solver = {
        n: solver_only(jobs["reference"], loaded, memo, n) for n in (args.early, args.iterations)
    }
    record: dict[str, Any] = {
        **run_header(device),
        "benchmark": "inlp_reference",
        "model": "minilm-mlm",
        "variant": {**VARIANT, "options": {"bias_type": args.bias_type}},
        "seed": SEED,
        "scikit_learn": sklearn_version(),
        "torch_threads": torch.get_num_threads(),
        "sentences": sentences,
        "sentences_identical_in_both": same_sentences,
        "seconds": {
            compat: {
                f"{args.early}_rounds": round(early[compat][1], 1),
                f"{args.iterations}_rounds": round(full[compat][1], 1),
            }
            for compat in jobs
        },
        "removed_subspaces": {
            f"after_{args.early}": subspace_comparison(
                early["formula"][0].matrix, early["reference"][0].matrix
            ),
            f"after_{args.iterations}": subspace_comparison(formula.matrix, reference.matrix),
        },
        "solver_only_removed_subspaces": {
            f"after_{n}": subspace_comparison(
                solver[n], (early if n == args.early else full)["reference"][0].matrix
            )
            for n in (args.early, args.iterations)
        },
        "dev_accuracy": {
            "formula": formula.facts["dev_accuracy"],
            "reference": reference.facts["dev_accuracy"],
        },
        "facts": {
            compat: {k: v for k, v in fit_.facts.items() if k != "dev_accuracy"}
            for compat, fit_ in (("formula", formula), ("reference", reference))
        },
        "hidden_states": hidden_state_difference(
            loaded, formula.matrix, reference.matrix, crows_sentences(args.bias_type)
        ),
    }
    if not args.skip_audit:
        record[f"crows_pairs_{args.bias_type}"] = audit_scores(
            model, args.bias_type, args.iterations
        )
    suffix = "" if args.bias_type == "religion" else f"_{args.bias_type}"
    write_record(
        record, "inlp_reference", device, args.out or RESULTS / f"inlp_reference{suffix}.json"
    )


if __name__ == "__main__":
    main()
