"""Plain-text listings for the CLI: registries (`audit list`) and the gates' verdicts of
`audit run` (the plan's text, `audit plan`, is `audit.pipeline.plan_text`)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import BaseModel

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry

if TYPE_CHECKING:
    from audit.results import GateVerdict


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
    if kind == "task-datasets":
        from audit.data.catalog import TASK_DATASETS

        return TASK_DATASETS
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


def _shape_note(entry: PluginEntry, origin: str) -> str:
    """' [model types, shape; origin]' after an entry's summary."""
    model_types = getattr(entry, "model_types", None)
    info = getattr(entry, "info", None)
    if info is not None:
        model_types = info.model_types
    types = f"{'/'.join(sorted(model_types))} LMs, " if model_types else ""
    return f" [{types}{entry.shape}; {origin}]"


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
    from audit.data.task_entry import TaskDatasetEntry
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
    elif isinstance(entry, TaskDatasetEntry):
        facts += [
            ("Size", entry.size),
            ("Source", entry.source),
            ("Licence", entry.licence),
            ("Files", f"{', '.join(entry.files)} in <data dir>/{entry.folder}"),
            ("Splits", ", ".join(entry.splits)),
            ("Rows", entry.rows),
            (
                "Shipped",
                "in the shared data folder" if entry.shipped else "download it (see Source)",
            ),
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


#: The kinds `audit list` takes, in the order `audit list` alone shows them.
LIST_KINDS = ("datasets", "scorers", "measures", "variants", "extrinsic", "task-datasets")


def describe_registry(kind: str | None = None, *, verbose: bool = False) -> str:
    """One line per registered name with its summary, input and origin ("built-in" or
    the distribution and entry point it comes from); with `verbose`, each entry's card
    and facts (a dataset's size, source and licence; a scorer's models and version).
    Without `kind`, every kind under its own heading."""
    if kind is None:
        sections = [
            f"{each}:\n{textwrap.indent(describe_registry(each, verbose=verbose), '  ')}"
            for each in LIST_KINDS
        ]
        return "\n\n".join(sections)
    registry = _registry(kind)
    entries = sorted(registry.entries(), key=lambda e: e.name)
    if not entries:
        plural = {"extrinsic": "extrinsic tasks", "task-datasets": "task datasets"}
        return f"no {plural.get(kind, kind)} registered yet"
    width = max(len(e.name) for e in entries)
    lines: list[str] = []
    for entry in entries:
        origin = registry.origin(entry.name)
        lines.append(f"{entry.name:<{width}}  {entry.summary}{_shape_note(entry, origin)}")
        if verbose:
            facts = [("Origin", origin), *entry_facts(entry)]
            card = format_card(entry.card, facts=facts, options=entry_options(entry))
            lines.append(card)
            lines.append("")
    return "\n".join(lines)


#: Verdicts in the order a reader needs them: what failed first.
_VERDICT_ORDER = {"FAIL": 0, "INCONCLUSIVE": 1, "PASS": 2}


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
