"""The scorer registry. Importing this module never imports torch: each entry carries its
`ScorerInfo` and options model; the implementation is imported on first use."""

from __future__ import annotations

from audit.registry import Registry
from audit.scoring.base import Scorer, ScorerInfo, ScorerOptions
from audit.scoring.options import CausalOptions, MaskedOptions, TemplateOptions

SCORERS: Registry[Scorer] = Registry("scorer")


def _register(info: ScorerInfo, target: str, options: type[ScorerOptions]) -> None:
    SCORERS.register(info.name, target, info.summary, info=info, options=options)


def scorer_info(name: str) -> ScorerInfo:
    info = SCORERS.entry(name).meta["info"]
    assert isinstance(info, ScorerInfo)
    return info


def scorer_options_model(name: str) -> type[ScorerOptions]:
    options = SCORERS.entry(name).meta["options"]
    assert isinstance(options, type) and issubclass(options, ScorerOptions)
    return options


_CAUSAL = frozenset({"causal"})

_register(
    ScorerInfo(
        name="ll",
        model_types=_CAUSAL,
        unit="sentence",
        higher_is_likelier=True,
        aggregation="sum",
        version="1",
        summary="Causal LM log-likelihood: sum over t of log P(w_t | w_<t), BOS prepended.",
    ),
    "audit.scoring.causal:LL_SCORER",
    CausalOptions,
)
_register(
    ScorerInfo(
        name="ppl",
        model_types=_CAUSAL,
        unit="sentence",
        higher_is_likelier=False,
        aggregation="mean",
        version="1",
        summary="Causal LM perplexity exp(-LL/T) over T scored tokens; lower is likelier.",
    ),
    "audit.scoring.causal:PPL_SCORER",
    CausalOptions,
)

_MASKED = frozenset({"masked"})


def _masked(
    name: str, unit: str, higher: bool, aggregation: str, summary: str, target: str
) -> None:
    info = ScorerInfo(
        name=name,
        model_types=_MASKED,
        unit=unit,  # type: ignore[arg-type]
        higher_is_likelier=higher,
        aggregation=aggregation,  # type: ignore[arg-type]
        version="1",
        summary=summary,
    )
    _register(info, f"audit.scoring.{target}", MaskedOptions)


_masked("pll", "sentence", True, "sum",
        "Pseudo-log-likelihood: sum of log P(w_i | S with i masked) over non-special tokens.",
        "masked:PLL_SCORER")  # fmt: skip
_masked("pppl", "sentence", False, "mean",
        "Pseudo-perplexity exp(-PLL/n) of a masked LM; lower is likelier.",
        "masked:PPPL_SCORER")  # fmt: skip
_masked("cps", "pair", True, "sum",
        "CrowS-Pairs score: PLL over the tokens both sentences share (difflib alignment).",
        "masked:CPS_SCORER")  # fmt: skip
_masked("sss", "pair", True, "mean",
        "StereoSet score: mean log P of the modified tokens, all masked at once.",
        "masked:SSS_SCORER")  # fmt: skip
_masked("aul", "sentence", True, "mean",
        "All unmasked likelihood: mean log P(w_i | S) on the unmasked sentence.",
        "masked:AUL_SCORER")  # fmt: skip
_masked("aula", "sentence", True, "mean",
        "AUL with each token weighted by the attention it receives.",
        "masked:AULA_SCORER")  # fmt: skip


#: Template-based scorers (TBS): not pair- or sentence-shaped, so they live in their own
#: registry. Each entry's object has `info`, `options_model` and
#: `score_templates(model, probes, *, options, progress) -> list[TemplateScore]`.
_register(
    ScorerInfo(
        name="tbs",
        model_types=_MASKED,
        unit="template",
        higher_is_likelier=True,
        aggregation="mean",
        version="1",
        summary="Template log-probability (Kurita et al. 2019): log P(target | attribute) "
        "/ prior, on template items (the `professions` dataset).",
    ),
    "audit.scoring.tbs:TBS_SCORER",
    TemplateOptions,
)
