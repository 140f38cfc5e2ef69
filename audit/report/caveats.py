"""Caveats generated from the results, each naming exactly what triggered it."""

from __future__ import annotations

from collections.abc import Callable

from audit.ids import PluginId
from audit.report.extrinsic_seeds import seed_set_caveat
from audit.report.formatting import fmt_p, group_name, listed, plain, plural
from audit.report.index import MeasurementIndex, unique
from audit.report.intrinsic_extrinsic import correlation_sentence, extrinsic_correlations
from audit.report.lm_cost import lm_quality_caveat
from audit.report.model import Caveat
from audit.report.studies import StudyData
from audit.report.variant_caveats import small_variants_caveat
from audit.results import Measurement

#: Groups with fewer items than this get the small-group caveat.
SMALL_GROUP = 30

KANEKO = (
    "Kaneko, Bollegala & Okazaki 2022, Debiasing isn't enough! On the effectiveness of "
    "debiasing MLMs and their social biases in downstream tasks (COLING 2022)"
)
BLODGETT = (
    "Blodgett, Lopez, Olteanu, Sim & Wallach 2021, Stereotyping Norwegian Salmon: An "
    "Inventory of Pitfalls in Fairness Benchmark Datasets (ACL)"
)


def intrinsic_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    labels = unique(
        index.cards.title(m.measure)
        for m in index.result.measurements
        if index.cards.has_role(m.measure, "intrinsic")
    )
    if not labels:
        return None
    measured = extrinsic_correlations(index)
    own = (
        f" This audit measured it for its own models: {correlation_sentence(index, measured)}"
        if measured
        else " This audit ran no extrinsic measure, so it has no intrinsic-extrinsic "
        "correlation of its own."
    )
    return Caveat(
        id="intrinsic-only",
        title="Intrinsic measures alone must not decide a deployment",
        text="Across 28 models, Kaneko et al. (2022) found only weak and inconsistent "
        "correlation between intrinsic bias measures and bias in downstream tasks (Kendall "
        "tau from -0.20 to 0.53). A good score here does not show that a deployed system "
        "is fair; test the system on its own task and users." + own,
        trigger="intrinsic measures in this report: " + ", ".join(labels),
        citation=KANEKO,
    )


def normality_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Score sets that fail the normality check, where a measure that fits Gaussians to
    them (KLS, JSS) was computed on the same dataset: only then is the caveat's claim about
    this audit."""
    alpha = index.result.alpha
    failing = [
        m
        for m in index.result.measurements
        if index.cards.has_role(m.measure, "normality_check")
        and m.p_value is not None
        and m.p_value < alpha
        and index.gaussian_measures(m.dataset)
    ]
    if not failing:
        return None
    names = unique(
        index.cards.title(g)
        for d in unique(m.dataset for m in failing)
        for g in index.gaussian_measures(d)
    )
    which = " and ".join(names) if len(names) <= 2 else ", ".join(names)
    where = "; ".join(
        unique(
            f"{m.model} ({index.cards.scorer_name(m.scorer)}) on {m.dataset}"
            + (f", {group_name(m.group)}" if m.group != "all" else "")
            + f": p {fmt_p(m.p_value)}"
            for m in failing
        )
    )
    return Caveat(
        id="non-normal",
        title=f"Non-normal score sets weaken {which}",
        text=f"{which} compare{'s' if len(names) == 1 else ''} Gaussians fitted to the two "
        "score sets. Where a set is not normal, the fitted Gaussians misdescribe it and these "
        "measures can over- or understate the difference; read them together with the bias "
        "score and the distribution charts.",
        trigger=f"Shapiro-Wilk p < {alpha:g}: {where}",
        citation="Liu 2024, Table 1",
    )


def small_group_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Groups under SMALL_GROUP items: by the dataset's own count, else by a measurement's."""
    small: dict[str, dict[str, int]] = {}
    for record in index.result.datasets:
        for group, n in record.groups.items():
            if n < SMALL_GROUP:
                small.setdefault(record.name, {})[group] = n
    counted = {(r.name, g) for r in index.result.datasets for g in r.groups}
    for m in index.result.measurements:
        if (
            m.group != "all"
            and (m.dataset, m.group) not in counted
            and m.n < SMALL_GROUP
            and m.status == "ok"
        ):
            small.setdefault(m.dataset, {}).setdefault(m.group, m.n)
    if not small:
        return None
    where = "; ".join(
        f"{d}: " + ", ".join(f"{group_name(g)} ({n})" for g, n in sorted(groups.items()))
        for d, groups in small.items()
    )
    return Caveat(
        id="small-groups",
        title="Small groups",
        text=f"Groups with fewer than {SMALL_GROUP} items give wide confidence intervals and "
        "unstable rankings; a gate on such a group is likely inconclusive, and a difference "
        "between models there is weak evidence.",
        trigger=f"groups under {SMALL_GROUP} items: {where}",
    )


def dataset_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """The known pitfalls (card `limitations`) of the datasets read, in the result's order."""
    pitfalls = {
        r.name: card.limitations
        for r in index.result.datasets
        if (card := index.result.card("dataset", r.name)) is not None and card.limitations
    }
    if not pitfalls:
        return None
    used = list(pitfalls)
    text = " ".join(f"{name}: {' '.join(items)}" for name, items in pitfalls.items())
    return Caveat(
        id="dataset-pitfalls",
        title="Known pitfalls of the benchmark datasets",
        text="Blodgett et al. (2021) inventoried validity problems in these benchmarks; "
        "scores on them measure the benchmark as written, not a well-defined notion of "
        "stereotyping. " + text,
        trigger="datasets used: " + ", ".join(used),
        citation=BLODGETT,
    )


def ranking_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Measures that order the same models differently (closeness to each measure's ideal
    value), compared within one dataset and one scorer: it needs two models or more."""
    found: list[str] = []
    for record in index.result.datasets:
        units = index.units(record.name)
        for scorer in unique(u.scorer for u in units):
            # Bias-controlled ratio models are the meta-evaluation's instruments, not
            # candidates: their order is the meta-evaluation's subject.
            mine = [u for u in units if u.scorer == scorer and not _ratio_model(index, u.model)]
            if len({u.model for u in mine}) < 2:
                continue
            rankings: dict[PluginId, tuple[str, ...]] = {}
            for measure in index.measures(record.name):
                ideal = index.cards.ideal_value(measure)
                if ideal is None:
                    continue
                values = [(u.model, index.get(u, record.name, measure, "all")) for u in mine]
                scored = [
                    (abs(m.value - ideal), model)
                    for model, m in values
                    if m is not None and m.value is not None
                ]
                if len(scored) == len(mine):
                    rankings[measure] = tuple(model for _, model in sorted(scored))
            if len(set(rankings.values())) > 1:
                orders = "; ".join(
                    f"{index.cards.title(k)}: {' < '.join(v)}" for k, v in rankings.items()
                )
                found.append(
                    f"{record.name}, scored by {index.cards.scorer_name(scorer)} (distance "
                    f"from the ideal value, closest first: {orders})"
                )
    if not found:
        return None
    return Caveat(
        id="ranking-disagreement",
        title="Measures disagree on the ranking of models",
        text="Different measures put the models in different orders on the same data, so "
        "'the least biased model' depends on the measure chosen. Decide on the measure "
        "that matches the harm you care about before comparing, and look at the intervals: "
        "overlapping intervals do not rank models at all.",
        trigger="; ".join(found),
    )


def _ratio_model(index: MeasurementIndex, model: str) -> bool:
    variant = index.variants.get(model)
    return variant is not None and variant.ratio is not None


def _what(index: MeasurementIndex, m: Measurement) -> str:
    """A measurement for people: 'Bias score of gpt2 (log-likelihood (ll)) on crows_pairs,
    gender'."""
    group = "" if m.group == "all" else f", {group_name(m.group)}"
    return (
        f"{index.cards.title(m.measure)} of {m.model} ({index.cards.scorer_name(m.scorer)}) "
        f"on {m.dataset}{group}"
    )


def undefined_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    undefined = [m for m in index.result.measurements if m.status != "ok"]
    if not undefined:
        return None
    return Caveat(
        id="undefined",
        title="Some measures have no value",
        text="These measurements are undefined (shown as a dash); they are not zero and "
        "not a pass. Gates on them are inconclusive.",
        trigger=listed([f"{_what(index, m)}: {plain(m.note) or 'undefined'}" for m in undefined]),
        severity="info",
    )


def no_interval_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Values shown without the interval their measure gives elsewhere (too few items, or
    every resample gave the same value): the measurement's details say it was withheld."""
    withheld = [
        m
        for m in index.result.measurements
        if m.status == "ok"
        and m.ci_low is None
        and isinstance(about := m.details.get("interval"), dict)
        and about.get("withheld")
    ]
    if not withheld:
        return None
    return Caveat(
        id="no-interval",
        title="Some values have no confidence interval",
        text="These values rest on too few items for an honest interval (or every resample "
        "gave the same value), so they are shown without one rather than with a falsely "
        "narrow one. Read them as rough indications; gates on them are inconclusive.",
        trigger=listed(
            [
                f"{_what(index, m)}: {plain(str(m.details['interval']['withheld']))}"
                for m in withheld
            ]
        ),
        severity="info",
    )


def skipped_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    skipped = index.result.skipped_units
    if not skipped:
        return None
    where = listed(
        [
            f"{s.model} x {s.dataset} x {index.cards.scorer_name(s.scorer)}: {plain(s.reason)}"
            for s in skipped
        ],
        limit=len(skipped),
    )
    return Caveat(
        id="skipped",
        title="Combinations the plan left out",
        text="These model x dataset x scorer combinations were not scored, so the tables "
        "have no value for them.",
        trigger=where,
        severity="info",
    )


def cache_repair_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Score cache entries found corrupt (recomputed) and cache database files that an
    integrity check proved corrupt (set aside, renamed, and their scores recomputed)."""
    units = [u for u in index.result.units if u.corrupt or u.set_aside]
    if not units:
        return None
    found = [
        f"{u.model} x {u.dataset} x {index.cards.scorer_name(u.scorer)}: "
        + "; ".join(
            (
                [f"{plural(u.corrupt, 'corrupt entry', 'corrupt entries')} recomputed"]
                if u.corrupt
                else []
            )
            + [f"database set aside as {path}" for path in u.set_aside]
        )
        for u in units
    ]
    return Caveat(
        id="cache-repaired",
        title="Score cache damage found and repaired",
        text="Some cached scores failed their checksum, or a cache database failed its "
        "integrity check and was set aside (kept for inspection): the affected scores were "
        "computed again in this run, so the numbers do not depend on the damaged data.",
        trigger=listed(found, limit=len(found)),
        severity="info",
    )


def seed_caveat(index: MeasurementIndex, studies: StudyData) -> Caveat | None:
    """Extrinsic means over different sets of fine-tuning seeds (`extrinsic_seeds`)."""
    return seed_set_caveat(index.result.extrinsic)


CaveatRule = Callable[[MeasurementIndex, StudyData], Caveat | None]

RULES: tuple[CaveatRule, ...] = (
    intrinsic_caveat,
    normality_caveat,
    small_group_caveat,
    dataset_caveat,
    ranking_caveat,
    undefined_caveat,
    no_interval_caveat,
    skipped_caveat,
    small_variants_caveat,
    lm_quality_caveat,
    cache_repair_caveat,
    seed_caveat,
)


def build_caveats(index: MeasurementIndex, studies: StudyData) -> list[Caveat]:
    """Every caveat whose trigger is present in the results, plus the studies' own."""
    caveats = [c for rule in RULES if (c := rule(index, studies)) is not None]
    caveats += studies.caveats()
    return [
        c.model_copy(update={"text": plain(c.text), "trigger": plain(c.trigger)}) for c in caveats
    ]
