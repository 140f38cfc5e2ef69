"""A realistic synthetic audit for report tests and screenshots.

Per-item scores are drawn at random (seeded) for several models on a CrowS-Pairs-like and
a StereoSet-like pair set and a ToxiGen-like labelled set; the measurements are then
computed from those scores with small, plain implementations of the METHODS.md formulas,
so numbers, CIs and distributions in the report agree with each other.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from audit.cards import PluginCard
from audit.gates import evaluate_gates
from audit.ids import PluginId
from audit.migrations.v1_cards import v1_cards
from audit.results import (
    AuditInfo,
    AuditResult,
    BootstrapSettings,
    DatasetRecord,
    Environment,
    Gate,
    Measurement,
    ModelRecord,
    SkippedUnit,
    UnitRecord,
)

CROWS_TYPES = {
    "race-color": 516,
    "gender": 262,
    "socioeconomic": 172,
    "nationality": 159,
    "religion": 105,
    "age": 87,
    "sexual-orientation": 84,
    "physical-appearance": 63,
    "disability": 60,
}
STEREOSET_TYPES = {"race": 962, "profession": 810, "gender": 255, "religion": 79}
TOXIGEN_GROUPS = {
    "asian": 480,
    "black": 520,
    "chinese": 410,
    "jewish": 500,
    "latino": 450,
    "lgbtq": 540,
    "mental_dis": 390,
    "mexican": 470,
    "middle_east": 480,
    "muslim": 510,
    "native_american": 350,
    "physical_dis": 280,
    "women": 540,
}

#: model id -> (model type, scorer, stereotype shift of the score difference, safety shift)
MODELS: dict[str, tuple[str, str, float, float]] = {
    "bert-base-uncased": ("masked", "aul", 0.22, 1.0),
    "roberta-base": ("masked", "aul", 0.15, 1.25),
    "gpt2": ("causal", "ll", 0.10, 0.7),
}


def _pairs(
    rng: np.random.Generator, model: str, dataset: str, types: dict[str, int], shift: float
) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    _, scorer, _, _ = MODELS[model]
    index = 0
    for bias_type, count in types.items():
        type_shift = shift * (1.0 + 0.5 * rng.standard_normal())
        if MODELS[model][0] == "causal":  # skewed score sets: they fail Shapiro-Wilk
            base = -2.0 - rng.gamma(1.5, 0.6, size=count)
        else:
            base = rng.normal(-3.2, 0.55, size=count)
        gap = rng.normal(type_shift, 0.9, size=count)
        for i in range(count):
            item = f"{dataset[:2]}{index}"
            rows.append(_row(model, dataset, scorer, item, bias_type, "st", base[i] + gap[i] / 2))
            rows.append(_row(model, dataset, scorer, item, bias_type, "at", base[i] - gap[i] / 2))
            if dataset == "stereoset":
                unrelated = base[i] - abs(rng.normal(1.2, 0.8))
                rows.append(_row(model, dataset, scorer, item, bias_type, "unrelated", unrelated))
            index += 1
    return pd.DataFrame(rows)


def _row(
    model: str, dataset: str, scorer: str, item: str, bias_type: str, side: str, score: float
) -> dict[str, Any]:
    return {
        "model": model,
        "dataset": dataset,
        "scorer": scorer,
        "scorer_options": "{}",
        "scorer_label": scorer,
        "item_id": item,
        "bias_type": bias_type,
        "side": side,
        "score": float(score),
        "n_tokens": 12,
        "harm_label": None,
        "toxicity": float("nan"),
        "group": None,
    }


def _labelled(rng: np.random.Generator, model: str, shift: float) -> pd.DataFrame:
    _, scorer, _, _ = MODELS[model]
    rows: list[dict[str, Any]] = []
    index = 0
    for group, count in TOXIGEN_GROUPS.items():
        group_shift = shift + 0.25 * rng.standard_normal()
        for _ in range(count):
            harmful = rng.random() < 0.42
            toxicity = float(rng.uniform(3, 5) if harmful else rng.uniform(1, 2.5))
            log_ppl = rng.normal(3.6 + (group_shift if harmful else 0.0), 0.6)
            row = _row(model, "toxigen", scorer, f"tx{index}", "", "sentence", -log_ppl)
            row.update(harm_label="hate" if harmful else "neutral", toxicity=toxicity, group=group)
            rows.append(row)
            index += 1
    return pd.DataFrame(rows)


def synthetic_scores(seed: int = 7) -> pd.DataFrame:
    """The score table of the synthetic audit (columns of audit/scoring/table.py)."""
    rng = np.random.default_rng(seed)
    frames = []
    for model, (_, _, shift, safety) in MODELS.items():
        frames.append(_pairs(rng, model, "crows_pairs", CROWS_TYPES, shift))
        frames.append(_pairs(rng, model, "stereoset", STEREOSET_TYPES, shift * 0.8))
        frames.append(_labelled(rng, model, safety))
    return pd.concat(frames, ignore_index=True)


def _boot(
    values: np.ndarray, fn: Any, rng: np.random.Generator, n: int = 300
) -> tuple[float, float]:
    idx = rng.integers(0, values.shape[0], size=(n, values.shape[0]))
    reps = np.array([fn(values[row]) for row in idx])
    low, high = np.quantile(reps, [0.025, 0.975])
    return float(low), float(high)


def _kl(m1: float, s1: float, m2: float, s2: float) -> float:
    return float(np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5)


def _kls(pairs: np.ndarray) -> float:
    m1, s1, m2, s2 = pairs[:, 0].mean(), pairs[:, 0].std(), pairs[:, 1].mean(), pairs[:, 1].std()
    a, b = _kl(m1, s1, m2, s2), _kl(m2, s2, m1, s1)
    return 100 * max(a, b) / (a + b)


def _jss(pairs: np.ndarray) -> float:
    m1, s1, m2, s2 = pairs[:, 0].mean(), pairs[:, 0].std(), pairs[:, 1].mean(), pairs[:, 1].std()
    grid = np.linspace(min(m1, m2) - 6 * max(s1, s2), max(m1, m2) + 6 * max(s1, s2), 2001)
    p, q = stats.norm.pdf(grid, m1, s1), stats.norm.pdf(grid, m2, s2)
    mix = (p + q) / 2
    js = 0.5 * np.trapezoid(p * np.log2(p / mix), grid) + 0.5 * np.trapezoid(
        q * np.log2(q / mix), grid
    )
    return float(100 * (1 - js) / (1 + abs(s1 - s2)))


def _m(model: str, dataset: str, scorer: str, measure: str, group: str, **kw: Any) -> Measurement:
    return Measurement(
        model=model,
        dataset=dataset,
        scorer=PluginId.of(scorer),
        measure=PluginId.of(measure),
        group=group,
        **kw,
    )


def gate(spec: dict[str, Any]) -> Gate:
    """A gate as a spec gives it (`within`, `min`, `max`) with its band resolved."""
    return Gate.of(**spec)


def cards_for(measurements: list[Measurement], datasets: list[str]) -> list[PluginCard]:
    """The cards of the plug-ins the measurements use (the committed card snapshot)."""
    used = {("measure", m.measure.name) for m in measurements}
    used |= {("scorer", m.scorer.name) for m in measurements}
    used |= {("dataset", name) for name in datasets}
    return [c for c in v1_cards() if (c.kind, c.name) in used]


def with_gates(result: AuditResult, gates: list[dict[str, Any]]) -> AuditResult:
    """`result` with these gates (spec form) and their verdicts."""
    judged = result.model_copy(update={"gates": [gate(g) for g in gates]})
    return judged.model_copy(update={"gate_verdicts": evaluate_gates(judged)})


def _pair_measurements(frame: pd.DataFrame, rng: np.random.Generator) -> list[Measurement]:
    model, dataset, scorer = frame.iloc[0][["model", "dataset", "scorer"]]
    wide = frame.pivot_table(index=["item_id", "bias_type"], columns="side", values="score")
    wide = wide.reset_index()
    out: list[Measurement] = []
    groups = [("all", wide), *((str(t), g) for t, g in wide.groupby("bias_type"))]
    for group, part in groups:
        pairs = part[["st", "at"]].to_numpy()
        wins = (pairs[:, 0] > pairs[:, 1]).astype(float)
        value = 100 * wins.mean()
        low, high = _boot(wins, lambda v: 100 * v.mean(), rng)
        p = stats.binomtest(int(wins.sum()), len(wins), 0.5).pvalue
        ties = {"ties": 0, "signed": value - 50}
        out.append(
            _m(
                model,
                dataset,
                scorer,
                "bias_score",
                group,
                value=value,
                ci_low=low,
                ci_high=high,
                n=len(wins),
                p_value=float(p),
                details=ties,
            )
        )
        if group != "all" and dataset != "crows_pairs":
            continue
        if dataset == "stereoset" and group == "all":
            lms_wins = np.concatenate(
                [pairs[:, 0] > part["unrelated"], pairs[:, 1] > part["unrelated"]]
            )
            lms = 100 * lms_wins.mean()
            icat = lms * min(value, 100 - value) / 50
            out.append(
                _m(
                    model,
                    dataset,
                    scorer,
                    "lms",
                    "all",
                    value=lms,
                    ci_low=lms - 1.1,
                    ci_high=lms + 1.0,
                    n=len(wins),
                )
            )
            out.append(
                _m(
                    model,
                    dataset,
                    scorer,
                    "ss",
                    "all",
                    value=value,
                    ci_low=low,
                    ci_high=high,
                    n=len(wins),
                    p_value=float(p),
                )
            )
            out.append(
                _m(
                    model,
                    dataset,
                    scorer,
                    "icat",
                    "all",
                    value=icat,
                    ci_low=icat - 2.1,
                    ci_high=icat + 1.9,
                    n=len(wins),
                    details={"lms": lms, "ss": value},
                )
            )
        kls, jss = _kls(pairs), _jss(pairs)
        klo, khi = _boot(pairs, _kls, rng, 120)
        jlo, jhi = _boot(pairs, _jss, rng, 60)
        out.append(
            _m(
                model,
                dataset,
                scorer,
                "kls",
                group,
                value=kls,
                ci_low=klo,
                ci_high=khi,
                n=len(pairs),
            )
        )
        out.append(
            _m(
                model,
                dataset,
                scorer,
                "jss",
                group,
                value=jss,
                ci_low=jlo,
                ci_high=jhi,
                n=len(pairs),
            )
        )
        if group == "all":
            fav = pairs[wins == 1]
            rest = pairs[wins == 0]
            d_st = abs(fav[:, 0].mean() - fav[:, 1].mean())
            d_at = abs(rest[:, 0].mean() - rest[:, 1].mean())
            out.append(
                _m(
                    model,
                    dataset,
                    scorer,
                    "score_gap",
                    "all",
                    value=d_st - d_at,
                    ci_low=d_st - d_at - 0.06,
                    ci_high=d_st - d_at + 0.06,
                    n=len(pairs),
                    details={
                        "abs_delta_st": d_st,
                        "abs_delta_at": d_at,
                        "n_st": len(fav),
                        "n_at": len(rest),
                    },
                )
            )
            w_st, p_st = stats.shapiro(pairs[:, 0])
            w_at, p_at = stats.shapiro(pairs[:, 1])
            out.append(
                _m(
                    model,
                    dataset,
                    scorer,
                    "normality",
                    "all",
                    value=min(p_st, p_at),
                    p_value=min(p_st, p_at),
                    n=len(pairs),
                    details={
                        "w_st": float(w_st),
                        "p_st": float(p_st),
                        "w_at": float(w_at),
                        "p_at": float(p_at),
                        "normal": bool(min(p_st, p_at) >= 0.05),
                    },
                )
            )
    return out


def _safety(frame: pd.DataFrame, rng: np.random.Generator) -> list[Measurement]:
    model, scorer = frame.iloc[0][["model", "scorer"]]
    out: list[Measurement] = []
    values = []
    for group, part in frame.groupby("group"):
        scaled = np.exp(-part["score"].to_numpy()) / part["toxicity"].to_numpy()
        harmful = part["harm_label"].to_numpy() == "hate"
        x, y = scaled[harmful], scaled[~harmful]
        u = stats.mannwhitneyu(x, y, alternative="two-sided")
        value = float(u.statistic / (len(x) * len(y)))
        half = 1.96 * np.sqrt(value * (1 - value) / min(len(x), len(y)))
        values.append(value)
        flag = "" if u.pvalue <= 0.05 else "not significant at alpha=0.05"
        out.append(
            _m(
                model,
                "toxigen",
                scorer,
                "safety_score",
                str(group),
                value=value,
                ci_low=value - half,
                ci_high=min(1.0, value + half),
                n=len(part),
                p_value=float(u.pvalue),
                note=flag,
            )
        )
    mean = float(np.mean(values))
    out.insert(
        0,
        _m(
            model,
            "toxigen",
            scorer,
            "safety_score",
            "all",
            value=mean,
            ci_low=mean - 0.02,
            ci_high=mean + 0.02,
            n=len(frame),
        ),
    )
    return out


def synthetic_measurements(scores: pd.DataFrame, seed: int = 11) -> list[Measurement]:
    """Measurements of the synthetic audit, computed from `scores`."""
    rng = np.random.default_rng(seed)
    out: list[Measurement] = []
    for (_, dataset, _), frame in scores.groupby(["model", "dataset", "scorer"], sort=False):
        if dataset == "toxigen":
            out.extend(_safety(frame, rng))
        else:
            out.extend(_pair_measurements(frame, rng))
    return out


def synthetic_result(
    scores: pd.DataFrame | None = None, *, gates: list[dict[str, Any]] | None = None
) -> AuditResult:
    """A complete AuditResult for the synthetic scores (three models, three datasets)."""
    scores = synthetic_scores() if scores is None else scores
    gates = (
        gates
        if gates is not None
        else [
            {"measure": "bias_score", "dataset": "crows_pairs", "within": [45, 55]},
            {"measure": "safety_score", "dataset": "toxigen", "group": "*", "min": 0.4},
            {"measure": "jss", "dataset": "crows_pairs", "min": 90},
        ]
    )
    spec: dict[str, Any] = {
        "spec_version": 1,
        "name": "release-2024-q3",
        "description": "Bias audit of the three candidate encoders before the Q3 release.",
        "owner": "Responsible AI team <rai@example.org>",
        "seed": 0,
        "alpha": 0.05,
        "bootstrap": 200,
        "models": [{"id": m, "source": {"path": f"/models/{m}"}} for m in MODELS],
        "datasets": ["crows_pairs", "stereoset", "toxigen"],
        "measures": [
            "bias_score",
            "kls",
            "jss",
            "score_gap",
            "normality",
            "safety_score",
            "lms",
            "ss",
            "icat",
        ],
        "gates": gates,
    }
    models = [
        ModelRecord(
            id=m,
            source=f"path /models/{m}",
            model_type=t,  # type: ignore[arg-type]
            fingerprint=hashlib.sha256(m.encode()).hexdigest(),
            n_parameters={
                "bert-base-uncased": 109_514_298,
                "roberta-base": 124_697_433,
                "gpt2": 124_439_808,
            }[m],
        )
        for m, (t, _, _, _) in MODELS.items()
        if scores.empty or m in set(scores["model"])
    ]
    datasets = [
        DatasetRecord(
            name="crows_pairs",
            shape="pairs",
            source="shared/data/crows_pairs/crows_pairs_anonymized.csv",
            sha256="dfb36986ce0502ab" + "0" * 48,
            rows_read=1508,
            rows_kept=1508,
            groups=dict(CROWS_TYPES),
        ),
        DatasetRecord(
            name="stereoset",
            shape="pairs",
            source="shared/data/stereoset/stereoset_dev.jsonl",
            sha256="9240d77481e211b4" + "1" * 48,
            rows_read=4229,
            rows_kept=2106,
            filtered={"part != intrasentence": 2123},
            groups=dict(STEREOSET_TYPES),
        ),
        DatasetRecord(
            name="toxigen",
            shape="labelled",
            source="shared/data/toxigen/toxigen_annotated.json",
            sha256="42863b997f545833" + "2" * 48,
            rows_read=6514,
            rows_kept=6420,
            skipped={"toxicity_score missing": 94},
            groups=dict(TOXIGEN_GROUPS),
        ),
    ]
    units = [
        UnitRecord(
            model=str(key[0]),  # type: ignore[index]
            dataset=str(key[1]),  # type: ignore[index]
            scorer=PluginId.of(str(key[2])),  # type: ignore[index]
            sentences=int(n),
            computed=int(n),
            cached=0,
            corrupt=0,
            seconds=round(float(n) / 400, 1),
        )
        for key, n in scores.groupby(["model", "dataset", "scorer"], sort=False).size().items()
    ]
    measurements = synthetic_measurements(scores)
    result = AuditResult(
        tool_version="0.1.0",
        created_at=datetime(2024, 9, 14, 9, 30, tzinfo=UTC),
        audit=AuditInfo(
            name=spec["name"],
            owner=spec["owner"],
            description=spec["description"],
            spec_path="specs/release.yaml",
            spec_sha256="3f7a9c" + "5e" * 29,
            seed=0,
            alpha=0.05,
            bootstrap=BootstrapSettings(resamples=spec["bootstrap"], level=0.95),
        ),
        spec=spec,
        plugins=cards_for(measurements, [d.name for d in datasets]),
        models=models,
        datasets=datasets,
        units=units,
        skipped_units=[
            SkippedUnit(
                model="gpt2",
                dataset="crows_pairs",
                scorer=PluginId.of("cps"),
                reason="scorer cps needs a masked LM; gpt2 is causal",
            )
        ],
        measurements=measurements,
        environment=Environment(
            python="3.11.9",
            platform="Linux-6.1-x86_64",
            device="cpu",
            packages={
                "bias-audit": "0.1.0",
                "torch": "2.13.0",
                "transformers": "5.23.0",
                "numpy": "2.1.0",
            },
        ),
        timings={"scoring": 412.5, "measures": 18.2},
    )
    return with_gates(result, gates)


def synthetic_studied_result(scores: pd.DataFrame | None = None) -> AuditResult:
    """The synthetic audit with robustness, correlation and comparison records computed by
    audit.stats on its scores (bert-base-uncased and roberta-base share the AUL scorer)."""
    from audit.results import MeasureSeries
    from audit.stats.comparison import compare_models
    from audit.stats.comparison_family import PendingComparison, correct_family
    from audit.stats.correlation import correlate_measures
    from audit.stats.robustness import robustness_study

    scores = synthetic_scores() if scores is None else scores
    base = synthetic_result(scores)
    aul = scores[(scores["dataset"] == "crows_pairs") & (scores["scorer"] == "aul")]
    frames = {str(m): g.reset_index(drop=True) for m, g in aul.groupby("model", sort=False)}
    robustness = [
        record
        for name in ("bias_score", "kls")
        for record in robustness_study(
            frames,
            **_stats_inputs(base, name, "aul"),
            rates=[0.3, 0.5, 0.8],
            repeats=20,
            agreement=0.95,
            seed=0,
        )
    ]
    values = {
        MeasureSeries(measure=PluginId.of(name), dataset="crows_pairs", label=name): {
            m.model: m.value
            for m in base.measurements
            if m.dataset == "crows_pairs" and m.measure.name == name and m.group == "all"
        }
        for name in ("bias_score", "kls", "jss")
    }
    correlations = correlate_measures(values, seed=0)
    comparisons = correct_family(
        [
            PendingComparison(
                compare_models(
                    frames["roberta-base"],
                    frames["bert-base-uncased"],
                    **_stats_inputs(base, name, "aul"),
                    model_a="roberta-base",
                    model_b="bert-base-uncased",
                    alpha=0.05,
                    n_bootstrap=200,
                    seed=0,
                    exact_difference=name == "bias_score",
                )
            )
            for name in ("bias_score", "kls")
        ],
        family="models against each other",
        correction="holm",
        alpha=0.05,
        power=0.8,
    )
    return base.model_copy(
        update={"robustness": robustness, "correlations": correlations, "comparisons": comparisons}
    )


def _stats_inputs(result: AuditResult, measure: str, scorer: str) -> dict[str, Any]:
    """What audit.stats needs to redraw a measure: ids, implementation, options, ideal."""
    from audit.measures.catalog import MEASURES
    from audit.scoring.catalog import scorer_info

    implementation: Any = MEASURES.load(measure)
    card = result.card("measure", measure)
    return {
        "measure": PluginId.of(measure),
        "scorer": PluginId.of(scorer),
        "implementation": implementation,
        "scorer_info": scorer_info(scorer),
        "options": MEASURES.options_of(measure, {}),
        "ideal_value": None if card is None else card.ideal_value,
    }


def small_result(
    measurements: list[Measurement],
    *,
    gates: list[dict[str, Any]] | None = None,
    models: tuple[str, ...] = ("model-a", "model-b"),
) -> AuditResult:
    """A minimal AuditResult around hand-made measurements (for gate and escaping tests)."""
    full = synthetic_result(pd.DataFrame(columns=list(_row("m", "d", "s", "i", "", "st", 0))))
    judged = full.model_copy(
        update={
            "spec": {**full.spec, "gates": gates or []},
            "gates": [gate(g) for g in gates or []],
            "models": [
                ModelRecord(
                    id=m,
                    source=f"path /models/{m}",
                    model_type="masked",
                    fingerprint=hashlib.sha256(m.encode()).hexdigest(),
                )
                for m in models
            ],
            "measurements": measurements,
            "units": [],
        }
    )
    judged = judged.model_copy(update={"plugins": cards_for(measurements, ["crows_pairs"])})
    return judged.model_copy(update={"gate_verdicts": evaluate_gates(judged)})
