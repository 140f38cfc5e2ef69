"""The registry of variant methods: ways of deriving a debiased or controlled version of a
base model (METHODS.md section 5). One `VariantMethodEntry` per method: its card, its
options model, the model types it can train, and the lazy path of its `VariantMethod`
(parts, training data, objective; `audit.variants.methods.base`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry
from audit.variants.methods.options import (
    AtOptions,
    BiasControlledOptions,
    CdaOptions,
    DropoutOptions,
)


@dataclass(frozen=True)
class VariantMethodEntry(PluginEntry):
    """A variant method: what it trains, on which model types."""

    model_types: frozenset[str] = frozenset({"masked", "causal"})


VARIANT_METHODS: Registry[VariantMethodEntry, Any] = Registry("variant_method", VariantMethodEntry)


def _card(name: str, title: str, summary: str, **text: Any) -> PluginCard:
    return PluginCard(
        kind="variant_method", name=name, title=title, summary=summary, shape="corpus", **text
    )


VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "cda",
            "Counterfactual data augmentation (CDA)",
            "Continue LM training on the corpus plus its gender-swapped sentences.",
            what="Every gendered word of the paired lists is swapped for its counterpart "
            "(both directions, case kept, whole words); the model continues its own "
            "objective on the original and the swapped sentences.",
            citation="Webster et al. 2020; Kaneko et al. 2022 (ACL)",
            limitations=(
                "The word lists are not one-to-one (her -> his, him -> her): a swapped "
                "sentence can be ungrammatical.",
            ),
        ),
        options=CdaOptions,
        target="audit.variants.methods.cda:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "dropout",
            "Dropout debiasing",
            "Continue LM training with attention dropout 0.15 and hidden dropout 0.2.",
            what="Higher dropout during continued training breaks associations the model "
            "leans on; the corpus is used as it is.",
            citation="Webster et al. 2020",
        ),
        options=DropoutOptions,
        target="audit.variants.methods.dropout:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "at",
            "All-layer token-level debiasing (AT)",
            "Make every layer's token states orthogonal to the gender directions, "
            "regularised to keep attribute words' meaning.",
            what="Loss alpha * sum (v_a . h)^2 over target sentences, tokens and layers, "
            "plus beta * sum ||h - h_orig||^2 over attribute tokens; v_a are the original "
            "model's mean states of the male and female attribute words.",
            citation="Kaneko & Bollegala 2021 (EACL); code kanekomasahiro/context-debias",
        ),
        options=AtOptions,
        target="audit.variants.methods.at:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "bias_controlled",
            "Bias-controlled fine-tuning",
            "One model per male share r, trained on r*N male-only + (1-r)*N female-only "
            "sentences: the meta-evaluation of measures.",
            what="A good bias measure follows r monotonically; the report ranks measures "
            "by their correlation with r once the he/she probe shows the control worked.",
            citation="Kaneko et al. 2023",
        ),
        options=BiasControlledOptions,
        target="audit.variants.methods.bias_controlled:METHOD",
    )
)
