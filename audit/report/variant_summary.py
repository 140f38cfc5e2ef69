"""Page 1 about variants: one sentence per base model's debiased variants (their paired
comparisons with the base, tallied by what moved) and one per meta-evaluation (did the
bias control work, and which measure follows it best, or which tie)."""

from __future__ import annotations

from audit.report.comparison_verdicts import comparison_words
from audit.report.formatting import join_words, plural, upper_first
from audit.report.index import MeasurementIndex, unique
from audit.report.meta_evaluation import control_reason, following
from audit.report.meta_leaders import leader_sentence
from audit.report.model import SummaryBlock
from audit.report.variants import base_comparisons
from audit.results import VariantRecord


def summary_blocks(index: MeasurementIndex) -> list[SummaryBlock]:
    """Page 1: one sentence per base model's debiased variants and per meta-evaluation."""
    variants = index.variants
    blocks: list[SummaryBlock] = []
    debiased: dict[str, list[VariantRecord]] = {}
    for entry in variants.entries().values():
        for v in entry:
            if v.ratio is None:
                debiased.setdefault(v.base, []).append(v)
    comparisons = base_comparisons(index)
    for base, mine in debiased.items():
        methods = unique(variants.method_name(v) for v in mine)
        ids = {v.id for v in mine}
        against = [c for c in comparisons if c.model_a in ids]
        text = (
            f"{plural(len(mine), 'debiased variant')} of {base} ({join_words(methods)}) audited "
            f"beside {'its' if len(mine) == 1 else 'their'} base"
        )
        items: list[str] = []
        if against:
            words = comparison_words(against, index.cards)
            text += (
                f"; of {words.counted} with the base on the same items ({words.family}): "
                f"{words.tally}"
            )
            text += "".join(f". {upper_first(e)}" for e in words.extra)
            items = words.moved
            if items:
                text += ". Moved, largest change first"
        blocks.append(
            SummaryBlock(
                heading="Debiased variants.",
                text=text + (":" if items else ". See Variants."),
                items=items,
            )
        )
    for meta in index.result.meta_evaluations:
        ratios = f"r = {min(meta.ratios):g} to {max(meta.ratios):g}"
        lead = f"{plural(len(meta.models), 'bias-controlled model')} of {meta.base} ({ratios}): "
        if meta.control.worked:
            follow = leader_sentence(index.cards, meta)
            text = f"{lead}the bias control worked: {control_reason(meta)}. {follow}"
            if found := following(meta, index.result.alpha, short=True):
                text += f" {upper_first(found)}."
            emphasis = "good"
        else:
            text = (
                f"{lead}the bias control did not work, so no measure is ranked: "
                f"{control_reason(meta)}."
            )
            emphasis = "warn"
        blocks.append(
            SummaryBlock(
                heading="Meta-evaluation.",
                text=text + " See Meta-evaluation.",
                emphasis=emphasis,  # type: ignore[arg-type]
            )
        )
    return blocks
