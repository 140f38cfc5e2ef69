"""Plain-text listings for the CLI: registries (`audit list`) and plans (`audit plan`)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import BaseModel

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry

if TYPE_CHECKING:
    from audit.data.items import LoadedDataset
    from audit.engine import Prepared
    from audit.results import GateVerdict
    from audit.scoring.cache import ScoreCache


def _registry(kind: str) -> Registry[Any, Any]:
    if kind == "datasets":
        from audit.data.catalog import DATASETS

        return DATASETS
    if kind == "scorers":
        from audit.scoring.catalog import SCORERS

        return SCORERS
    if kind == "measures":
        from audit.measures.catalog import MEASURES

        return MEASURES
    if kind == "variants":
        from audit.variants.catalog import VARIANT_METHODS

        return VARIANT_METHODS
    if kind == "extrinsic":
        from audit.extrinsic.catalog import EXTRINSIC_TASKS

        return EXTRINSIC_TASKS
    raise ValueError(f"unknown registry kind {kind!r}")


def format_card(
    card: PluginCard,
    indent: str = "    ",
    facts: Sequence[tuple[str, str]] = (),
    options: str = "",
) -> str:
    """A plug-in card's long texts as indented plain text (those it has), after `facts`
    (heading, text) about the entry that the card does not hold, and its `options`."""
    lines = [card.title, *[f"{heading}: {text}" for heading, text in facts if text]]
    for heading, text in (
        ("What", card.what),
        ("Inputs", card.inputs),
        ("Direction", card.direction),
        ("Ideal", card.ideal),
        ("Citation", card.citation),
        ("Options", options),
    ):
        if text:
            lines.append(f"{heading}: {text}")
    if card.roles:
        lines.append(f"Roles: {', '.join(card.roles)}")
    if card.limitations:
        lines += ["Limitations:", *[f"  - {item}" for item in card.limitations]]
    wrapped = [textwrap.fill(line, 96, subsequent_indent="  ") for line in lines]
    return textwrap.indent("\n".join(wrapped), indent)


def _shape_note(entry: PluginEntry) -> str:
    model_types = getattr(entry, "model_types", None)
    info = getattr(entry, "info", None)
    if info is not None:
        model_types = info.model_types
    types = f"{'/'.join(sorted(model_types))} LMs, " if model_types else ""
    return f" [{types}{entry.shape}]"


def entry_options(entry: PluginEntry) -> str:
    """'name (default value)' for each option a plug-in accepts ('' when none); an
    option with one allowed value is no choice and is left out."""
    options = getattr(entry, "options", None)
    if not (isinstance(options, type) and issubclass(options, BaseModel)):
        return ""
    shown = []
    for name, field in options.model_fields.items():
        choices = get_args(field.annotation) if get_origin(field.annotation) is Literal else ()
        if len(choices) == 1:
            continue
        text = name
        if field.is_required():
            shown.append(f"{name} (required)")
            continue
        default = field.get_default(call_default_factory=True)
        if choices:
            text += f" ({' or '.join(str(c) for c in choices)}; default {default})"
        elif default is None:
            text += " (default: chosen for the device)" if name == "batch_tokens" else ""
        elif isinstance(default, tuple | list):
            text += f" (default: {len(default)} built in)"
        else:
            text += f" (default {str(default).lower() if isinstance(default, bool) else default})"
        shown.append(text)
    return ", ".join(shown)


def entry_facts(entry: PluginEntry) -> list[tuple[str, str]]:
    """What `list -v` says about an entry beyond its card: a dataset's size, source,
    licence and names; a scorer's models, input, score and version."""
    from audit.data.entry import DatasetEntry
    from audit.scoring.catalog import ScorerEntry

    facts: list[tuple[str, str]] = []
    if isinstance(entry, DatasetEntry):
        names = "Bias types" if entry.item_shape == "pairs" else "Groups"
        facts += [
            ("Size", entry.size),
            ("Source", entry.source),
            ("Licence", entry.licence),
            ("Items", "template slots (an attribute and two targets)" if entry.templates else ""),
            (names, ", ".join(entry.known_names)),
        ]
    elif isinstance(entry, ScorerEntry):
        info = entry.info
        likelier = "higher" if info.higher_is_likelier else "lower"
        facts += [
            ("Models", " and ".join(f"{t} LMs" for t in sorted(info.model_types))),
            (
                "Input",
                {
                    "sentence": "one sentence at a time",
                    "pair": "both sentences of a pair together",
                    "template": "template slots (attribute and two targets)",
                }.get(info.unit, info.unit),
            ),
            ("Score", f"{info.aggregation} over scored tokens; {likelier} is likelier"),
            ("Version", f"{info.version} (part of every score-cache key)"),
        ]
    return facts


def describe_registry(kind: str, *, verbose: bool = False) -> str:
    """One line per registered name with its summary; with `verbose`, each entry's card
    and facts (a dataset's size, source and licence; a scorer's models and version)."""
    registry = _registry(kind)
    entries = sorted(registry.entries(), key=lambda e: e.name)
    if not entries:
        return f"no {'extrinsic tasks' if kind == 'extrinsic' else kind} registered yet"
    width = max(len(e.name) for e in entries)
    lines: list[str] = []
    for entry in entries:
        lines.append(f"{entry.name:<{width}}  {entry.summary}{_shape_note(entry)}")
        if verbose:
            card = format_card(entry.card, facts=entry_facts(entry), options=entry_options(entry))
            lines.append(card)
            lines.append("")
    return "\n".join(lines)


def _item_count(ds: LoadedDataset) -> str:
    """'5 pairs', '320 template items' or '300 sentences' (labelled): the dataset's items."""
    n = ds.rows_kept
    if ds.shape == "labelled":
        return f"{n:,} sentence{'s' if n != 1 else ''}"
    if any(item.probe is not None for item in ds.pair_items()):
        return f"{n:,} template item{'s' if n != 1 else ''}"
    return f"{n:,} pair{'s' if n != 1 else ''}"


def idle_measures(prepared: Prepared) -> list[tuple[str, str]]:
    """(measure label, why) for every measure of the spec that will compute nothing."""
    from audit.measures.catalog import MEASURES
    from audit.plan import CORPUS_SHAPE
    from audit.spec.checks import held_shapes, shape_needs

    planned = {t.measure for t in prepared.plan.measures}
    planned |= {t.measure for t in prepared.plan.corpus_measures}
    shapes = {ds.shape for ds in prepared.datasets.values()}
    idle: list[tuple[str, str]] = []
    for ref in prepared.loaded.spec.measures:
        if ref.id in planned:
            continue
        fits = MEASURES.entry(ref.name).shape
        if fits != CORPUS_SHAPE and fits not in shapes:
            why = (
                f"the spec's datasets hold only {held_shapes(shapes)}; it needs {shape_needs(fits)}"
            )
        else:
            why = f"no scoring unit feeds it: every unit on its {fits} datasets is skipped"
        idle.append((ref.id.label, why))
    return idle


#: Verdicts in the order a reader needs them: what failed first.
_VERDICT_ORDER = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}


def _number(value: float | None) -> str:
    return "no value" if value is None else f"{value:.4g}"


def _short_reason(verdict: GateVerdict) -> str:
    if verdict.verdict == "PASS":
        return "the whole interval lies inside the band"
    if verdict.verdict == "FAIL":
        return "the whole interval lies outside the band"
    return verdict.reason


def describe_gates(verdicts: Sequence[GateVerdict], width: int = 100) -> list[str]:
    """The gates' verdicts for the terminal: per gate, a heading (what it requires and
    its tally), then one wrapped line per kind of verdict, failures first, naming what
    each verdict is about (group, model, scorer: what tells them apart) and its value."""
    from audit.gates import describe_band

    lines: list[str] = []
    for index in sorted({v.gate_index for v in verdicts}):
        mine = sorted(
            (v for v in verdicts if v.gate_index == index),
            key=lambda v: _VERDICT_ORDER.get(v.verdict, 3),
        )
        first = mine[0]
        tally = ", ".join(
            f"{n} {verdict}"
            for verdict in _VERDICT_ORDER
            if (n := sum(v.verdict == verdict for v in mine))
        )
        lines.append(
            f"gate {index + 1}: {first.measure.label} on {first.dataset}, required "
            f"{describe_band(first.low, first.high)}: {tally}"
        )
        # Name only what tells this gate's verdicts apart (one verdict: its model, scorer).
        parts = [(v.model or "", v.scorer.label if v.scorer else "", v.group) for v in mine]
        varies = [len({p[i] for p in parts}) > 1 for i in range(3)]
        if not any(varies):
            varies = [True, True, first.group != "all"]
        kinds: dict[tuple[str, str], list[str]] = {}
        for verdict, part in zip(mine, parts, strict=True):
            where = " · ".join(x for x, keep in zip(part, varies, strict=True) if keep and x)
            value = _number(verdict.value)
            if verdict.ci_low is not None and verdict.ci_high is not None:
                value += f" (CI {verdict.ci_low:.4g} to {verdict.ci_high:.4g})"
            key = (verdict.verdict, _short_reason(verdict))
            kinds.setdefault(key, []).append(f"{where}: {value}" if where else value)
        for (verdict_name, reason), items in kinds.items():
            lines += _wrap_items(f"  {verdict_name} ({reason}): ", items, width)
    return lines


def _wrap_items(head: str, items: list[str], width: int) -> list[str]:
    """`head` and the items joined by '; ', broken into lines between items only."""
    lines = [head.rstrip() if len(head) + len(items[0]) > width else head + items[0]]
    if lines[0] == head.rstrip():
        lines.append("      " + items[0])
    for item in items[1:]:
        if len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += "; " + item
        else:
            lines[-1] += ";"
            lines.append("      " + item)
    return lines


def gate_summary(verdicts: Sequence[GateVerdict], exit_code: int) -> list[str]:
    """The verdict of the whole run and what its exit code means, in two lines."""
    if not verdicts:
        return [
            "No gates: the spec sets none, so nothing passes or fails.",
            f"Exit code {exit_code}: no gate failed.",
        ]
    counts = {k: sum(v.verdict == k for v in verdicts) for k in _VERDICT_ORDER}
    overall = "FAIL" if counts["FAIL"] else "INCONCLUSIVE" if counts["INCONCLUSIVE"] else "PASS"
    n_gates = len({v.gate_index for v in verdicts})
    tally = ", ".join(f"{counts[k]} {k}" for k in _VERDICT_ORDER)
    head = (
        f"{overall}: {len(verdicts)} verdict{'s' if len(verdicts) != 1 else ''} from "
        f"{n_gates} gate{'s' if n_gates != 1 else ''}: {tally}."
    )
    meaning = (
        "every gate passed"
        if exit_code == 0
        else "a gate failed or was inconclusive"
        if overall != "PASS"
        else "see the gates above"
    )
    return [head, f"Exit code {exit_code}: {meaning}."]


def describe_variants(prepared: Prepared) -> list[str]:
    """Each variant job: cached, or to train (resuming where a checkpoint is) with its
    steps and a rough time; the scoring units of untrained variants are planned after
    they are trained."""
    plan = prepared.variants
    if plan is None:
        return []
    from audit.display import format_duration
    from audit.variants.jobs import estimate_seconds, measured_speed, speed_key

    lines = ["Variants:"]
    peak: float | None = None
    missing_seconds = 0.0
    missing = 0
    for job in plan.jobs:
        what = f"{job.method.label} of {job.base} on {job.corpus.name}"
        if job.cached:
            lines.append(f"  {job.model_id}: {what}: trained, in the cache")
            continue
        missing += 1
        steps = job.total_steps()
        base = prepared.models[job.base]
        speed = measured_speed(
            prepared.settings.cache_dir, speed_key(job, base.fingerprint, base.device)
        )
        if speed is not None:
            seconds = speed * steps
        else:
            if peak is None:
                peak = _matmul_peak()
            n_parameters = _known_parameters_of(prepared, job.base)
            seconds = estimate_seconds(job, n_parameters=n_parameters, flops_per_second=peak)
        missing_seconds += seconds
        state = "to train, resuming from a checkpoint" if job.resumable else "to train"
        lines.append(
            f"  {job.model_id}: {what}: {state}: {steps:,} steps x {job.training.batch_size} "
            f"of {job.data.n_examples():,} examples, about {format_duration(seconds)} on "
            f"{base.device}"
        )
    if missing:
        lines.append(
            f"  {missing} of {len(plan.jobs)} to train, about {format_duration(missing_seconds)} "
            "in all (rough: from earlier trainings of the same shape on this machine, else "
            "from the parameter count and the matmul speed); their scoring units are "
            "planned once they are trained"
        )
    return lines


def describe_extrinsic(prepared: Prepared) -> list[str]:
    """Each extrinsic task on each of its models: fine-tuned (in the cache) or to
    fine-tune; a variant not trained yet is fine-tuned after its training."""
    if not prepared.extrinsic:
        return []
    from audit.extrinsic.finetune.store import FineTuneStore

    seed = prepared.loaded.spec.seed
    lines = ["Extrinsic tasks:"]
    for task in prepared.extrinsic:
        steps = task.total_steps()
        lines.append(
            f"  {task.name} ({task.data.kind} head on {len(task.data.train):,} examples, "
            f"{steps:,} steps x {task.spec.finetune.batch_size}, a curve point every "
            f"{task.spec.finetune.checkpoint_every:,} steps):"
        )
        for model_id in task.models:
            model = prepared.models.get(model_id)
            if model is None:
                lines.append(f"    {model_id}: to fine-tune once the variant is trained")
                continue
            key = task.cache_key(model.fingerprint, model.model_type, seed)
            store = FineTuneStore.of(prepared.settings.cache_dir, key)
            if store.is_done():
                state = "fine-tuned, in the cache"
            elif store.has_checkpoint():
                state = "to fine-tune, resuming from a checkpoint"
            else:
                state = "to fine-tune"
            lines.append(f"    {model_id}: {state} (key {key[:8]})")
    return lines


def _known_parameters_of(prepared: Prepared, model_id: str) -> int:
    """Parameters of a base model: from its last load, else from its weight files' size."""
    import json

    model = prepared.models[model_id]
    facts = prepared.settings.cache_dir / "models" / f"{model.fingerprint}.json"
    if facts.exists():
        value = json.loads(facts.read_text()).get("n_parameters")
        if isinstance(value, int):
            return value
    size = sum(p.stat().st_size for paths in model.resolved.files.values() for p in paths)
    bytes_per_parameter = 0.6 if model.resolved.is_gguf else 4.0
    return int(size / bytes_per_parameter)


def _matmul_peak() -> float:
    """Float32 FLOP/s of a 1024 x 1024 matmul on this machine (best of 5)."""
    import time

    import torch

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    torch.mm(a, b)
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - started)
    return 2 * 1024**3 / best


def describe_plan(prepared: Prepared, cache: ScoreCache | None = None) -> str:
    """What `audit run` would do: datasets, models, units (with the sentences each scores,
    counted as the run counts them, and how many are already in the score cache),
    measures, what is skipped and what will compute nothing, and why."""
    lines = ["Datasets:"]
    for ds in prepared.datasets.values():
        lines.append(f"  {ds.name}: {_item_count(ds)} ({ds.source})")
    lines.append("Models:")
    for model_id, model in prepared.models.items():
        lines.append(
            f"  {model_id}: {model.model_type} LM, {model.resolved.source}, "
            f"fingerprint {model.fingerprint[:12]}, {model.precision}"
        )
    lines += describe_variants(prepared)
    lines += describe_extrinsic(prepared)
    lines.append("Scoring units (model x dataset x scorer -> measures):")
    total = to_score = 0
    for unit in prepared.plan.units:
        measures = [t.measure.label for t in prepared.plan.measures if t.unit == unit]
        dataset = prepared.datasets[unit.dataset]
        work = ""
        if cache is not None:
            from audit.scoring.runner import planned_work

            model = prepared.models[unit.model]
            sentences, cached = planned_work(
                unit,
                dataset=dataset,
                cache=cache,
                fingerprint=model.fingerprint,
                precision=model.precision,
            )
            total += sentences
            to_score += sentences - cached
            items = _item_count(dataset)
            work = (
                f": {items}"
                if items.endswith(" sentences")
                else f": {items} ({sentences:,} sentences)"
            )
            if cached:
                work += (
                    "; all in the cache" if cached == sentences else f"; {cached:,} in the cache"
                )
        lines.append(
            f"  {unit.model} x {unit.dataset} x {unit.scorer.label} -> "
            f"{', '.join(measures) or '-'}{work}"
        )
    for task in prepared.plan.corpus_measures:
        lines.append(f"  corpus measure: {task.measure.label}")
    if cache is not None and prepared.plan.units:
        cached_all = total - to_score
        lines.append(
            f"  in all: {total:,} sentences; {to_score:,} to score"
            + (f", {cached_all:,} already in the cache" if cached_all else "")
        )
    if prepared.plan.skipped:
        lines.append("Skipped:")
        for skipped in prepared.plan.skipped:
            lines.append(
                f"  {skipped.model} x {skipped.dataset} x {skipped.scorer.label}: {skipped.reason}"
            )
    idle = idle_measures(prepared)
    if idle:
        lines.append("Computes nothing:")
        lines += [f"  {label}: {why}" for label, why in idle]
    return "\n".join(lines)
