"""The scorer registry: one `ScorerEntry` per scorer, registered here once.

Importing this module never imports torch: each entry carries its card, its `ScorerInfo`
(model types, input shape, direction, aggregation, version) and options model; the
implementation is imported on first use (`SCORERS.load(name)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry
from audit.scoring.base import Scorer, ScorerInfo, ScorerOptions, ScorerShape
from audit.scoring.options import CausalOptions, ChoiceOptions, MaskedOptions, TemplateOptions


@dataclass(frozen=True)
class ScorerEntry(PluginEntry):
    """A registered scorer: its card, options model, lazy target and static facts.

    The card's name, summary and shape are the info's name, summary and input shape
    (`ScorerEntry.of` builds both from one place).
    """

    info: ScorerInfo

    def __post_init__(self) -> None:
        card = (self.card.name, self.card.shape, self.card.version)
        if card != (self.info.name, self.info.unit, self.info.version):
            raise ValueError(f"scorer '{self.info.name}': card and info disagree")
        if not issubclass(self.options, ScorerOptions):
            raise TypeError(f"scorer '{self.info.name}': options must be ScorerOptions")

    @classmethod
    def of(
        cls, info: ScorerInfo, *, title: str, target: str, options: type[ScorerOptions]
    ) -> ScorerEntry:
        """The entry of `info`, its card filled from the info."""
        card = PluginCard(
            kind="scorer",
            name=info.name,
            title=title,
            summary=info.summary,
            shape=info.unit,
            version=info.version,
            ideal_value=None,
        )
        return cls(card=card, options=options, target=target, info=info)

    @property
    def options_model(self) -> type[ScorerOptions]:
        """The options model, typed as scorer options."""
        options = self.options
        assert issubclass(options, ScorerOptions)
        return options

    def skip_reason(self, model_type: str, dataset: str, shape: str, templates: bool) -> str | None:
        """Why this scorer cannot score `dataset` (of `shape`, with or without template
        items) on a model of `model_type`, or None when it can."""
        name = self.info.name
        if model_type not in self.info.model_types:
            return f"{name} does not apply to {model_type} LMs"
        if self.info.unit == "template" and not templates:
            return (
                f"{name} scores template items (attribute + target words); "
                f"{dataset} has none (use the built-in `professions`)"
            )
        if self.info.unit == "choice" and shape != "choices":
            return f"{name} scores multiple-choice questions; {dataset} holds none"
        if self.info.unit != "choice" and shape == "choices":
            return (
                f"{name} scores sentences; {dataset} holds multiple-choice questions "
                "(use choice_ll or choice_pll)"
            )
        if self.info.unit == "pair" and shape != "pairs":
            return f"{name} scores sentence pairs; {dataset} holds single sentences"
        return None


SCORERS: Registry[ScorerEntry, Scorer] = Registry("scorer", ScorerEntry)


def scorer_info(name: str) -> ScorerInfo:
    """The static facts of scorer `name` (shortcut for `SCORERS.entry(name).info`)."""
    return SCORERS.entry(name).info


_CAUSAL = frozenset({"causal"})
_MASKED = frozenset({"masked"})
_MASKED_SCORERS = "audit.scoring.masked.scorers"


def _register(
    name: str,
    model_types: frozenset[str],
    unit: ScorerShape,
    aggregation: Literal["sum", "mean"],
    *,
    title: str,
    summary: str,
    target: str,
    options: type[ScorerOptions],
    higher_is_likelier: bool = True,
    version: str = "1",
    served: bool = False,
) -> ScorerEntry:
    """Register one scorer: its `ScorerInfo` and card, from one set of facts."""
    info = ScorerInfo(
        name=name,
        model_types=model_types,
        unit=unit,
        higher_is_likelier=higher_is_likelier,
        aggregation=aggregation,
        version=version,
        summary=summary,
        served=served,
    )
    return SCORERS.register(ScorerEntry.of(info, title=title, target=target, options=options))


_register(
    "ll", _CAUSAL, "sentence", "sum",
    title="Log-likelihood (causal LM)",
    summary="Causal LM log-likelihood: sum over t of log P(w_t | w_<t), BOS prepended.",
    target="audit.scoring.causal:LL_SCORER",
    options=CausalOptions,
    served=True,
)  # fmt: skip
_register(
    "ppl", _CAUSAL, "sentence", "mean",
    higher_is_likelier=False,
    title="Perplexity (causal LM)",
    summary="Causal LM perplexity exp(-LL/T) over T scored tokens; lower is likelier.",
    target="audit.scoring.causal:PPL_SCORER",
    options=CausalOptions,
    served=True,
)  # fmt: skip
_register(
    "pll", _MASKED, "sentence", "sum",
    title="Pseudo-log-likelihood (masked LM)",
    summary="Pseudo-log-likelihood: sum of log P(w_i | S with i masked) over "
    "non-special tokens.",
    target=f"{_MASKED_SCORERS}:PLL_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "pppl", _MASKED, "sentence", "mean",
    higher_is_likelier=False,
    title="Pseudo-perplexity (masked LM)",
    summary="Pseudo-perplexity exp(-PLL/n) of a masked LM; lower is likelier.",
    target=f"{_MASKED_SCORERS}:PPPL_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "cps", _MASKED, "pair", "sum",
    title="CrowS-Pairs score (masked LM)",
    summary="CrowS-Pairs score: PLL over the tokens both sentences share (difflib "
    "alignment).",
    target=f"{_MASKED_SCORERS}:CPS_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "sss", _MASKED, "pair", "mean",
    title="StereoSet score (masked LM)",
    summary="StereoSet score: mean log P of the modified tokens, all masked at once.",
    target=f"{_MASKED_SCORERS}:SSS_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "aul", _MASKED, "sentence", "mean",
    title="All unmasked likelihood (masked LM)",
    summary="All unmasked likelihood: mean log P(w_i | S) on the unmasked sentence.",
    target=f"{_MASKED_SCORERS}:AUL_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "aula", _MASKED, "sentence", "mean",
    title="All unmasked likelihood with attention (masked LM)",
    summary="AUL with each token weighted by the attention it receives.",
    target=f"{_MASKED_SCORERS}:AULA_SCORER",
    options=MaskedOptions,
)  # fmt: skip
_register(
    "tbs", _MASKED, "template", "mean",
    title="Template log-probability bias score (masked LM)",
    summary="Template log-probability (Kurita et al. 2019): log P(target | attribute) "
    "/ prior, on template items (the `professions` dataset).",
    target="audit.scoring.masked.tbs:TBS_SCORER",
    options=TemplateOptions,
)  # fmt: skip
_register(
    "choice_ll", _CAUSAL, "choice", "sum",
    title="Answer log-likelihood (causal LM, multiple choice)",
    summary="Multiple choice: log P(answer | prompt), summed over the answer's tokens; "
    "the prompt is context, question and 'Answer:'.",
    target="audit.scoring.choice:CHOICE_LL",
    options=ChoiceOptions,
    served=True,
)  # fmt: skip
_register(
    "choice_pll", _MASKED, "choice", "sum",
    title="Answer pseudo-log-likelihood (masked LM, multiple choice)",
    summary="Multiple choice: PLL of the answer's tokens in prompt + answer, each "
    "masked in turn.",
    target="audit.scoring.choice:CHOICE_PLL",
    options=MaskedOptions,
)  # fmt: skip
