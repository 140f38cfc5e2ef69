"""Options models of the scorers (light: no torch), validated against the spec."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import PositiveInt, field_validator

from audit.scoring.base import ScorerOptions


class CausalOptions(ScorerOptions):
    """`compat: reference` scores as SafeNLP does: no BOS prepended, first token unscored."""


class MaskedOptions(ScorerOptions):
    """Options of the masked-LM scorers (pll, pppl, cps, sss, aul, aula).

    `batch_tokens` only sets how many padded tokens go through the model per forward pass
    (default: 2048 on CPU, from free memory on CUDA); scores do not depend on it, so it is
    listed in `RUNTIME_FIELDS` and belongs in no cache key. `autocast` runs the encoder
    under the model's `autocast_dtype` on CUDA (log-softmax stays float32); models loaded
    by `load_model` have none (a spec's bfloat16 / float16 is the weights' own dtype), so
    it has no effect on them. `compat: reference` changes the arithmetic of cps (scores rounded to 3
    decimals, as the CrowS-Pairs and Kaneko code do before comparing) and sss (mean of
    the whole |M| x |M| matrix, Kaneko's evaluate.py); pll, pppl, aul and aula have no
    reference variant: their published code computes the formula.
    """

    RUNTIME_FIELDS: ClassVar[frozenset[str]] = frozenset({"batch_tokens"})

    batch_tokens: PositiveInt | None = None
    autocast: bool = True


class TemplateOptions(MaskedOptions):
    """Options of the `tbs` scorer in a spec (Kurita et al. 2019): the templates, whose
    scores are averaged. Templates hold the slots `[TARGET]` and `[ATTRIBUTE]`; `a/an`
    becomes the article that fits the attribute. The targets and attributes come from the
    dataset's template items (the built-in `professions`)."""

    templates: tuple[str, ...] = ("[TARGET] is a/an [ATTRIBUTE].",)

    @field_validator("templates")
    @classmethod
    def _templates_have_slots(cls, templates: tuple[str, ...]) -> tuple[str, ...]:
        if not templates:
            raise ValueError("templates must name at least one template")
        for template in templates:
            if template.count("[TARGET]") != 1 or template.count("[ATTRIBUTE]") != 1:
                raise ValueError(
                    f"template {template!r} must contain [TARGET] and [ATTRIBUTE] exactly once"
                )
        return templates


class TBSOptions(TemplateOptions):
    """Options of the TBS functions used directly (`score_templates`,
    `probes_from_options`): the templates and the target words. Every target must be one
    token of the model's vocabulary."""

    targets: tuple[str, ...] = ("he", "she")

    @field_validator("targets")
    @classmethod
    def _targets_are_words(cls, targets: tuple[str, ...]) -> tuple[str, ...]:
        if len(targets) < 1 or any(not t.strip() for t in targets):
            raise ValueError(f"targets must be one or more non-empty words, got {targets!r}")
        return targets


class ChoiceOptions(ScorerOptions):
    """`choice_ll`: no reference variant (the answer's log-likelihood given the prompt)."""

    compat: Literal["formula"] = "formula"
