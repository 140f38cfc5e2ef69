"""What a spec may ask of a served model (`source: {endpoint: ...}`), checked statically.

A serving endpoint returns the log-probabilities of given text and nothing else: no hidden
states, no full next-token distribution at every position, no masking, no weights to
train. Every request for more is an error naming the model, what asked for it and why:
a masked or non-served scorer, `compat: reference`, SEAT, a variant (trained, post-hoc
or Self-Debias) built on it, an extrinsic task that fine-tunes it.
"""

from __future__ import annotations

from audit.scoring.catalog import SCORERS
from audit.spec.models import ExtrinsicSpec, PluginRef, ScorerSelection, VariantSpec
from audit.spec.problems import Finding, Loc, one_of, show
from audit.spec.sections import Items, SpecSections

#: Why each kind of request cannot run on an endpoint.
NEEDS_HIDDEN_STATES = "it needs the model's hidden states, which an endpoint does not return"
NEEDS_WEIGHTS = "it needs the model's weights, which stay on the server"
NEEDS_DISTRIBUTIONS = (
    "it rescales the full next-token distribution at every position, which an endpoint "
    "does not return"
)


def served_scorers() -> list[str]:
    """The scorers a served model can run (their info says `served`)."""
    return [n for n in SCORERS.names() if SCORERS.entry(n).info.served]


def check_served_models(sections: SpecSections) -> list[Finding]:
    """Every request the spec makes of a served model that an endpoint cannot answer."""
    if sections.models is None:
        return []
    served = {m.id: i for i, m in sections.models.valid() if m.is_served}
    if not served:
        return []
    findings: list[Finding] = []
    if sections.scorers is not None:
        findings += _scorers(served, sections.scorers)
    if sections.measures is not None:
        findings += _seat(served, sections.measures)
    if sections.variants is not None:
        findings += _variants(served, sections.variants)
    if sections.extrinsic is not None:
        findings += _extrinsic(served, sections.extrinsic)
    return findings


def _names(served: dict[str, int]) -> str:
    return ", ".join(f"'{m}'" for m in served)


def _scorers(served: dict[str, int], scorers: ScorerSelection) -> list[Finding]:
    findings: list[Finding] = []
    allowed = served_scorers()
    for j, ref in enumerate(scorers.causal):
        loc: Loc = ("scorers", "causal", j)
        if ref.name not in SCORERS:
            continue  # named as unknown by check_scorers
        if not SCORERS.entry(ref.name).info.served:
            findings.append(
                Finding(
                    (*loc, "name"),
                    f"scorer '{ref.name}' cannot score the served model(s) {_names(served)}: "
                    "it needs more than the log-probabilities of given text (hidden states, "
                    "full next-token distributions or masking), which is all an endpoint "
                    "returns",
                    got=show(ref.name),
                    expected=f"for a served model: {one_of(allowed)}",
                )
            )
        elif ref.options.get("compat", "formula") != "formula":
            findings.append(
                Finding(
                    (*loc, "compat"),
                    f"scorer '{ref.name}' with compat: {ref.options['compat']} scores without "
                    f"the BOS token; the served model(s) {_names(served)} are scored with it "
                    "(llama.cpp servers misalign prompt log-probabilities without it)",
                    got=show(ref.options["compat"]),
                    expected="compat: formula (the default) for a served model",
                )
            )
    return findings


def _seat(served: dict[str, int], measures: Items[PluginRef]) -> list[Finding]:
    return [
        Finding(
            ("measures", i),
            f"measure 'seat' cannot run on the served model(s) {_names(served)}: "
            f"{NEEDS_HIDDEN_STATES} (SEAT encodes sentences)",
            got=show(ref.name),
            expected="no seat in a spec with a served model (audit SEAT on the local "
            "weights in a spec of its own)",
        )
        for i, ref in measures.valid()
        if ref.name == "seat"
    ]


def _variants(served: dict[str, int], variants: Items[VariantSpec]) -> list[Finding]:
    return [
        Finding(
            ("variants", i, "base"),
            f"variant '{variant.id}' ({variant.method}) cannot be built on the served model "
            f"'{variant.base}': "
            + (NEEDS_DISTRIBUTIONS if variant.method == "self_debias" else NEEDS_WEIGHTS),
            got=show(variant.base),
            expected="a base model loaded here (hf, path, gguf or pip)",
        )
        for i, variant in variants.valid()
        if variant.base in served
    ]


def _extrinsic(served: dict[str, int], tasks: Items[ExtrinsicSpec]) -> list[Finding]:
    findings: list[Finding] = []
    for i, task in tasks.valid():
        named = list(served) if task.models is None else [m for m in task.models if m in served]
        if named:
            findings.append(
                Finding(
                    ("extrinsic", i, "models"),
                    f"extrinsic task '{task.task}' would fine-tune the served model(s) "
                    f"{', '.join(repr(m) for m in named)}: {NEEDS_WEIGHTS}",
                    got=show(task.models) if task.models is not None else "all models",
                    expected="`models:` listing only models loaded here",
                )
            )
    return findings
