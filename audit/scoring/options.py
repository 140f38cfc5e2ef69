"""Options models of the scorers (light: no torch), validated against the spec."""

from __future__ import annotations

from typing import ClassVar

from pydantic import PositiveInt, field_validator

from audit.scoring.base import ScorerOptions


class CausalOptions(ScorerOptions):
    """`compat: reference` scores as SafeNLP does: no BOS prepended, first token unscored."""


class MaskedOptions(ScorerOptions):
    """Options of the masked-LM scorers (pll, pppl, cps, sss, aul, aula).

    `batch_tokens` only sets how many padded tokens go through the model per forward pass
    (default: 2048 on CPU, from free memory on CUDA); scores do not depend on it, so it is
    listed in `RUNTIME_FIELDS` and belongs in no cache key. `autocast` runs the encoder in
    the model's bf16/fp16 precision on CUDA (log-softmax stays float32); it has no effect
    on CPU. `compat: reference` changes the arithmetic of cps (scores rounded to 3
    decimals, as the CrowS-Pairs and Kaneko code do before comparing) and sss (mean of
    the whole |M| x |M| matrix, Kaneko's evaluate.py); pll, pppl, aul and aula have no
    reference variant: their published code computes the formula.
    """

    RUNTIME_FIELDS: ClassVar[frozenset[str]] = frozenset({"batch_tokens"})

    batch_tokens: PositiveInt | None = None
    autocast: bool = True


class TBSOptions(MaskedOptions):
    """Options of the template log-probability score (Kurita et al. 2019).

    Templates hold the slots `[TARGET]` and `[ATTRIBUTE]`; `a/an` becomes the article
    that fits the attribute. Every target must be one token of the model's vocabulary.
    """

    templates: tuple[str, ...] = ("[TARGET] is a/an [ATTRIBUTE].",)
    targets: tuple[str, ...] = ("he", "she")

    @field_validator("templates")
    @classmethod
    def _templates_have_slots(cls, templates: tuple[str, ...]) -> tuple[str, ...]:
        for template in templates:
            if template.count("[TARGET]") != 1 or template.count("[ATTRIBUTE]") != 1:
                raise ValueError(
                    f"template {template!r} must contain [TARGET] and [ATTRIBUTE] exactly once"
                )
        return templates

    @field_validator("targets")
    @classmethod
    def _targets_are_words(cls, targets: tuple[str, ...]) -> tuple[str, ...]:
        if len(targets) < 1 or any(not t.strip() for t in targets):
            raise ValueError(f"targets must be one or more non-empty words, got {targets!r}")
        return targets
