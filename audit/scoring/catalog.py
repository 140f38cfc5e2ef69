"""The scorer registry. Importing this module never imports torch: each entry carries its
`ScorerInfo` and options model; the implementation is imported on first use."""

from __future__ import annotations

from audit.registry import Registry
from audit.scoring.base import Scorer, ScorerInfo, ScorerOptions
from audit.scoring.options import CausalOptions

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
