"""A realistic synthetic audit with variants, for the report tests and screenshots.

It starts from the committed version 1 demo (SmolLM2-135M on CrowS-Pairs and ToxiGen, read
through `read_results`) and adds what an audit with a `variants:` section holds: three
debiased variants of smollm2-135m (CDA, dropout, AT), a second base model (minilm-mlm)
with eleven bias-controlled ratio models, their training summaries and he/she probes, the
training corpus (Kaneko et al. 2022, Table 1), every variant against its base
(`comparisons`), and the meta-evaluation, computed by `audit.variants.meta_evaluation`
from these measurements. Values are seeded draws around plausible effects.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from audit.cards import PluginCard
from audit.ids import PluginId
from audit.migrations.v1_cards import v1_cards
from audit.results import (
    AuditResult,
    ComparisonRecord,
    CorpusRecord,
    LossPoint,
    Measurement,
    ModelRecord,
    ProbeOccupation,
    ProbeRecord,
    TrainingSummary,
    UnitRecord,
    VariantRecord,
    judge_comparison,
)
from audit.results_io import read_results
from audit.variants.meta_evaluation import meta_evaluate

V1_DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "results_v1_demo.json"
BASE = "smollm2-135m"
MINILM = "minilm-mlm"
MINILM_PARAMETERS = 22_713_216
RATIOS = [round(0.1 * i, 1) for i in range(11)]
#: A pattern with no trend across the ratios (Spearman with r about 0).
WANDER = [0.3, -1.0, 0.8, 0.1, -0.6, 1.0, -0.2, -0.9, 0.5, -0.3, 0.2]
ENTRY = "minilm-mlm-bc"
DEBIASED = {  # variant id -> (method, options, objective, bias-score shift toward 50)
    f"{BASE}-cda": ("cda", {}, "causal_lm", 0.55),
    f"{BASE}-dropout": ("dropout", {}, "causal_lm", 0.1),
    f"{BASE}-at": ("at", {"alpha": 0.2, "beta": 0.8}, "at", 0.3),
}
OCCUPATIONS = ["doctor", "nurse", "engineer", "teacher", "lawyer", "secretary", "pilot", "chef"]
METHOD_CARDS = {
    "cda": "Counterfactual data augmentation (CDA)",
    "dropout": "Dropout debiasing",
    "at": "All-layer token-level debiasing (AT)",
    "bias_controlled": "Bias-controlled fine-tuning",
}
CORPUS_SHA = hashlib.sha256(b"sts_b sentences").hexdigest()


def ratio_id(r: float) -> str:
    return f"{ENTRY}-r{r:g}"


def _method_cards() -> list[PluginCard]:
    return [
        PluginCard(kind="variant_method", name=name, title=title, summary=title, shape="corpus")
        for name, title in METHOD_CARDS.items()
    ]


def _curve(rng: np.random.Generator, steps: int, start: float, end: float) -> list[LossPoint]:
    points = np.linspace(10, steps, 12).round().astype(int)
    decay = np.exp(-3 * points / steps)
    losses = end + (start - end) * decay + rng.normal(0, 0.04 * start, size=points.size)
    return [LossPoint(step=int(s), loss=float(v)) for s, v in zip(points, losses, strict=True)]


def _summary(
    rng: np.random.Generator, objective: str, steps: int, examples: int, start: float
) -> TrainingSummary:
    curve = _curve(rng, steps, start, start * 0.72)
    return TrainingSummary(
        objective=objective,  # type: ignore[arg-type]
        steps=steps,
        examples=examples,
        tokens=steps * 16 * 21,
        seconds=steps * 0.9,
        device="cpu",
        first_loss=curve[0].loss,
        last_loss=curve[-1].loss,
        curve=curve,
    )


def _probe(rng: np.random.Generator, share: float, template: str) -> ProbeRecord:
    rows = []
    for occupation in OCCUPATIONS:
        s = float(np.clip(share + rng.normal(0, 0.06), 0.02, 0.98))
        total = float(rng.uniform(0.12, 0.3))
        rows.append(ProbeOccupation(occupation=occupation, p_he=s * total, p_she=(1 - s) * total))
    return ProbeRecord(
        template=template,
        he="he",
        she="she",
        occupations=rows,
        mean_p_he=float(np.mean([o.p_he for o in rows])),
        mean_p_she=float(np.mean([o.p_she for o in rows])),
        he_share=float(np.mean([o.p_he / (o.p_he + o.p_she) for o in rows])),
    )


def _training(steps: int, seed: int, lora: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "steps": steps,
        "epochs": None,
        "learning_rate": 5e-5,
        "batch_size": 16,
        "max_length": 64,
        "warmup": 0.1,
        "weight_decay": 0.0,
        "seed": seed,
        "checkpoint_every": 50,
        "lora": lora,
    }


def _variant(
    rng: np.random.Generator,
    vid: str,
    base: str,
    method: str,
    options: dict[str, Any],
    *,
    entry: str,
    objective: str,
    steps: int,
    examples: int,
    ratio: float | None = None,
    share: float = 0.5,
    cached: bool = False,
    lora: dict[str, Any] | None = None,
) -> VariantRecord:
    template = "[MASK] is a/an {occupation}." if base == MINILM else "He/She is a/an {occupation}."
    return VariantRecord(
        id=vid,
        base=base,
        method=PluginId.of(method, options),
        entry=entry,
        ratio=ratio,
        corpus="sts_b",
        corpus_sha256=CORPUS_SHA,
        training_examples=examples,
        training=_training(steps, 13, lora),
        key=hashlib.sha256(vid.encode()).hexdigest(),
        cached=cached,
        summary=_summary(rng, objective, steps, examples, 3.4 if base == BASE else 5.1),
        probe=_probe(rng, share, template),
    )


def _shifted(
    base: Measurement, model: str, value: float, rng: np.random.Generator, *, scorer: str
) -> Measurement:
    """`base` measured on `model`: a new value with an interval as wide as the base's."""
    half = (
        (base.ci_high - base.ci_low) / 2
        if base.ci_low is not None and base.ci_high is not None
        else None
    )
    update: dict[str, Any] = {
        "model": model,
        "scorer": PluginId.of(scorer),
        "value": value,
        "ci_low": None if half is None else value - half,
        "ci_high": None if half is None else value + half,
    }
    if base.measure.name == "bias_score":
        n = base.n
        st = round(value / 100 * n)
        update["details"] = {**base.details, "st_preferred": st, "at_preferred": n - st}
        update["p_value"] = float(stats.binomtest(st, n, 0.5).pvalue)
    elif base.p_value is not None:
        update["p_value"] = float(min(1.0, base.p_value * rng.uniform(0.5, 2.0)))
    return base.model_copy(update=update)


def _measurements(
    base: list[Measurement], rng: np.random.Generator
) -> tuple[list[Measurement], list[ModelRecord], list[VariantRecord]]:
    """Every model's measurements, the new model records and the variant records."""
    out = list(base)
    models: list[ModelRecord] = []
    variants: list[VariantRecord] = []
    # KLS and JSS on the whole of CrowS-Pairs for the base (the v1 demo has none).
    bias_all = next(m for m in base if m.measure.name == "bias_score" and m.group == "all")
    extra = [
        bias_all.model_copy(
            update={
                "measure": PluginId.of("kls"),
                "value": 56.1,
                "ci_low": 53.9,
                "ci_high": 58.4,
                "p_value": None,
                "details": {},
            }
        ),
        bias_all.model_copy(
            update={
                "measure": PluginId.of("jss"),
                "value": 96.2,
                "ci_low": 94.8,
                "ci_high": 97.3,
                "p_value": None,
                "details": {},
            }
        ),
    ]
    out += extra
    base_all = base + extra

    def family(model: str, scorer: str, bias_shift: float, noise: float) -> None:
        for m in base_all:
            value = m.value if m.value is not None else 0.0
            if m.measure.name == "bias_score":
                new = 50 + (value - 50) * bias_shift + rng.normal(0, noise)
            elif m.measure.name == "safety_score":
                new = float(np.clip(value + rng.normal(0, 0.01), 0, 1))
            elif m.measure.name == "kls":
                new = 50 + (value - 50) * bias_shift + rng.normal(0, 0.5)
            else:
                new = float(min(100.0, value + rng.normal(0, 0.4)))
            out.append(_shifted(m, model, float(new), rng, scorer=scorer))

    for vid, (method, options, objective, shift) in DEBIASED.items():
        family(vid, "ll", shift, 0.4)
        variants.append(
            _variant(
                rng,
                vid,
                BASE,
                method,
                options,
                entry=vid,
                objective=objective,
                steps=300,
                examples=6_904 if method == "cda" else 3_452,
                cached=method == "dropout",
                lora={"r": 8, "alpha": 16, "dropout": 0.05, "target_modules": None}
                if method == "at"
                else None,
            )
        )
        models.append(_model(vid, "causal", 134_515_008))
    models.append(_model(MINILM, "masked", MINILM_PARAMETERS))
    family(MINILM, "pll", 0.8, 0.3)
    for i, r in enumerate(RATIOS):
        rid = ratio_id(r)
        # The bias score follows r; KLS follows it loosely; JSS and safety do not.
        for m in base_all:
            value = m.value if m.value is not None else 0.0
            name = m.measure.name
            if name == "bias_score":
                new = 50 + (value - 50) * 0.8 + 7.5 * (r - 0.5) + rng.normal(0, 0.7)
            elif name == "kls":
                new = 52 + 2.0 * r + rng.normal(0, 0.7)
            elif name == "jss":
                new = 96 + rng.normal(0, 0.6)
            else:  # the safety score wanders with no trend in r
                new = float(np.clip(value + 0.012 * WANDER[i] + rng.normal(0, 0.002), 0, 1))
            out.append(_shifted(m, rid, float(new), rng, scorer="pll"))
        models.append(_model(rid, "masked", MINILM_PARAMETERS))
    return out, models, variants


def _model(model: str, kind: str, parameters: int) -> ModelRecord:
    return ModelRecord(
        id=model,
        source=f"variant of {BASE if 'smollm' in model else MINILM}"
        if model != MINILM
        else "path /models/minilm-mlm",
        model_type=kind,  # type: ignore[arg-type]
        fingerprint=hashlib.sha256(model.encode()).hexdigest(),
        n_parameters=parameters,
    )


def _comparison(
    a: Measurement, b: Measurement, ideal: float, rng: np.random.Generator
) -> ComparisonRecord:
    assert a.value is not None and b.value is not None
    diff = a.value - b.value
    half = (
        2.4
        if a.measure.name == "bias_score"
        else 0.015
        if a.measure.name == "safety_score"
        else 1.6
    )
    dist = abs(a.value - ideal) - abs(b.value - ideal)
    z = dist / (half / 1.96)
    p = float(2 * stats.norm.sf(abs(z)))
    verdict = judge_comparison(
        difference_low=diff - half,
        difference_high=diff + half,
        distance_low=dist - half,
        distance_high=dist + half,
    )
    only_a = int(rng.integers(80, 140)) if a.measure.name == "bias_score" else None
    only_b = int(only_a - diff / 100 * a.n) if only_a is not None else None
    return ComparisonRecord(
        measure=a.measure,
        dataset=a.dataset,
        scorer=a.scorer,
        model_a=a.model,
        model_b=b.model,
        n_items=a.n,
        value_a=a.value,
        value_b=b.value,
        difference=diff,
        difference_ci_low=diff - half,
        difference_ci_high=diff + half,
        ideal_value=ideal,
        distance_difference=dist,
        distance_ci_low=dist - half,
        distance_ci_high=dist + half,
        p_value=p,
        alpha=0.05,
        n_bootstrap=1000,
        seed=13,
        mcnemar_only_a=only_a,
        mcnemar_only_b=only_b,
        mcnemar_p=None if only_a is None else p,
        verdict=verdict,  # type: ignore[arg-type]
    )


def _comparisons(
    measurements: list[Measurement], variants: list[VariantRecord], rng: np.random.Generator
) -> list[ComparisonRecord]:
    ideal = {"bias_score": 50.0, "safety_score": 1.0, "kls": 50.0, "jss": 100.0}
    by_key = {(m.model, m.dataset, m.measure.name): m for m in measurements if m.group == "all"}
    out = []
    for v in variants:
        for (model, dataset, measure), a in by_key.items():
            if model != v.id or measure not in ("bias_score", "safety_score"):
                continue
            b = by_key[(v.base, dataset, measure)]
            out.append(_comparison(a, b, ideal[measure], rng))
    return out


def _corpus(variants: list[VariantRecord]) -> CorpusRecord:
    return CorpusRecord(
        name="sts_b",
        source="STS-B sentences (built in, from the glue/stsb files in ../shared/data)",
        sha256=CORPUS_SHA,
        sentences=17_256,
        female_only=412,
        male_only=1_030,
        mixed=161,
        neutral=15_653,
        ilps=-0.418,
        ilps_ci_low=-0.497,
        ilps_ci_high=-0.341,
        used_by=list(dict.fromkeys(v.entry for v in variants)),
    )


def variant_result(*, control_works: bool = True, seed: int = 5) -> AuditResult:
    """The v1 demo with variants; `control_works=False` gives ratio models whose probe
    shows no trend (the meta-evaluation then ranks nothing)."""
    rng = np.random.default_rng(seed)
    demo = read_results(V1_DEMO)
    measurements, new_models, variants = _measurements(list(demo.measurements), rng)
    for r in RATIOS:
        share = 0.41 + 0.22 * r if control_works else 0.5 + rng.normal(0, 0.01)
        variants.append(
            _variant(
                rng,
                ratio_id(r),
                MINILM,
                "bias_controlled",
                {"ratios": RATIOS, "n": 412},
                entry=ENTRY,
                objective="masked_lm",
                steps=120,
                examples=412,
                ratio=r,
                share=share,
            )
        )
    ratio_models = [(r, ratio_id(r)) for r in RATIOS]
    meta = meta_evaluate(
        entry=ENTRY,
        base=MINILM,
        ratio_models=ratio_models,
        measurements=measurements,
        probes={v.id: v.probe for v in variants},
        seed=13,
        n_bootstrap=1000,
        alpha=0.05,
    )
    plugins = list(demo.plugins)
    have = {(c.kind, c.name) for c in plugins}
    plugins += [
        c
        for c in v1_cards()
        if (c.kind, c.name) in {("measure", "kls"), ("measure", "jss"), ("scorer", "pll")}
        and (c.kind, c.name) not in have
    ]
    plugins += _method_cards()
    units = list(demo.units) + [
        UnitRecord(
            model=m.id,
            dataset=d,
            scorer=PluginId.of("pll" if m.model_type == "masked" else "ll"),
            sentences=3014 if d == "crows_pairs" else 6438,
            computed=0 if m.id.endswith("dropout") else 3014,
            cached=3014 if m.id.endswith("dropout") else 0,
            seconds=61.0,
        )
        for m in new_models
        for d in ("crows_pairs", "toxigen")
    ]
    return demo.model_copy(
        update={
            "plugins": plugins,
            "models": list(demo.models) + new_models,
            "units": units,
            "measurements": measurements,
            "variants": variants,
            "corpora": [_corpus(variants)],
            "meta_evaluations": [meta],
            "comparisons": _comparisons(measurements, variants, rng),
            "timings": {**demo.timings, "variants": 1_520.4},
        }
    )
