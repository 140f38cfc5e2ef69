"""The registry of variant methods: ways of deriving a debiased or controlled version of a
base model (METHODS.md section 5). One `VariantMethodEntry` per method: its card, its
options model, the model types it can train, and the lazy path of its `VariantMethod`
(parts, training data, objective; `audit.variants.methods.base`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from audit.cards import PluginCard
from audit.registry import PluginEntry, Registry
from audit.variants.methods.options import (
    AtOptions,
    BiasControlledOptions,
    CdaOptions,
    DropoutOptions,
    InlpOptions,
    SelfDebiasOptions,
    SentenceDebiasOptions,
)

if TYPE_CHECKING:
    from audit.variants.settings import VariantSpec


@dataclass(frozen=True)
class VariantMethodEntry(PluginEntry):
    """A variant method: what it trains, on which model types, whether it reads a corpus
    (a scoring-time method such as Self-Debias reads none), and whether it changes only
    the output distribution (`output_only`: SEAT, which reads hidden states, skips it)."""

    model_types: frozenset[str] = frozenset({"masked", "causal"})
    needs_corpus: bool = True
    output_only: bool = False


VARIANT_METHODS: Registry[VariantMethodEntry, Any] = Registry("variant_method", VariantMethodEntry)


def output_only_variants(variants: Iterable[VariantSpec]) -> dict[str, str]:
    """The variants whose method changes only the output distribution (Self-Debias), by
    id, with their method's name: SEAT, which reads hidden states, and the extrinsic tasks,
    which fine-tune the encoder, leave them out."""
    return {
        v.id: v.method
        for v in variants
        if v.method in VARIANT_METHODS and VARIANT_METHODS.entry(v.method).output_only
    }


#: What a debiasing method is for: read off its variant's measures beside its base's.
DEBIAS_DIRECTION = (
    "The variant is audited beside its base: a method that works moves the variant's bias "
    "measures of its bias type toward their ideal values (bias score toward 50, SS toward "
    "50, SEAT's |d| toward 0), beyond their intervals; a method that costs language "
    "modelling lowers the variant's language-modelling score against its base's."
)
#: The ideal outcome of a debiasing method.
DEBIAS_IDEAL = (
    "Every bias measure of the variant at its ideal value, and its language-modelling "
    "score (and any extrinsic task) not significantly below its base's."
)


def _card(name: str, title: str, summary: str, shape: str = "corpus", **text: Any) -> PluginCard:
    return PluginCard(
        kind="variant_method", name=name, title=title, summary=summary, shape=shape, **text
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
            inputs="A text corpus and the paired gender word lists (training settings "
            "from the variant's `training:`).",
            direction=DEBIAS_DIRECTION,
            ideal=DEBIAS_IDEAL,
            citation="Webster et al. 2020; Kaneko et al. 2022 (ACL)",
            limitations=(
                "The word lists are not one-to-one (her -> his, him -> her): a swapped "
                "sentence can be ungrammatical.",
                "Only gender, and only the words on the lists: names and other cues of a "
                "group are left as they are.",
                "Continued training on a small corpus also changes what the model knows: "
                "the language-modelling cost is part of the result.",
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
            inputs="A text corpus (training settings from the variant's `training:`).",
            direction=DEBIAS_DIRECTION,
            ideal=DEBIAS_IDEAL,
            citation="Webster et al. 2020",
            limitations=(
                "Not aimed at any group or bias type: whatever it changes, it changes for "
                "all of them, and Webster et al. found its effect depends on the measure.",
                "Continued training on a small corpus also changes what the model knows: "
                "the language-modelling cost is part of the result.",
            ),
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
            inputs="A text corpus, the gender attribute word lists and the target "
            "(stereotype) words (training settings from the variant's `training:`).",
            direction=DEBIAS_DIRECTION,
            ideal=DEBIAS_IDEAL,
            citation="Kaneko & Bollegala 2021 (EACL); code kanekomasahiro/context-debias",
            limitations=(
                "Removes the two static gender directions from the states of target "
                "words' sentences; a bias that is not along them, or that the measure "
                "reads from other words, stays.",
                "Every layer's states change: the language-modelling cost is part of the result.",
            ),
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
            inputs="A text corpus with sentences holding only male or only female words, "
            "and the gender word lists (training settings from the variant's `training:`).",
            direction="Not a debiasing method: its models are meant to differ. The "
            "he/she probe's P(he) should rise with r; a measure whose values rise (or fall) "
            "with r tracks the gender bias put into the models.",
            ideal="P(he) rising monotonically with r, and a bias measure correlating with r "
            "at |Pearson| and |Spearman| 1.",
            citation="Kaneko et al. 2023",
            limitations=(
                "The control is only as strong as the corpus: when the probe shows no "
                "trend, the measures' correlations say nothing about them.",
                "Its models come from one base and one corpus: a ranking of measures "
                "under this kind of bias, not under every kind.",
            ),
        ),
        options=BiasControlledOptions,
        target="audit.variants.methods.bias_controlled:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "sentence_debias",
            "SentenceDebias (post-hoc projection)",
            "Remove the bias subspace, found by PCA of counterfactual sentences' vectors, "
            "from the last hidden states before the LM head. Not trained.",
            what="Every corpus sentence holding word i of an attribute tuple (bias-bench's "
            "bias_attribute_words.json; words matched lower-cased, whole, split on "
            "spaces) gives a counterfactual set: the sentence with that word replaced by "
            "each word of the tuple in turn. Each member's vector is the mean of the base "
            "model's last hidden states over its tokens (special tokens included, cut at "
            "`training.max_length`), scaled to length 1 and centred on its set's mean; the "
            "first k principal components of all centred vectors (k = `components`, 1 as "
            "bias-bench) are the rows of V, and the variant's last hidden states h become "
            "P h with P = I - V^T V, before the LM head.",
            inputs="A text corpus, the attribute word tuples of `bias_type` (default "
            "<data dir>/seat/bias_attribute_words.json) and the base model.",
            direction=DEBIAS_DIRECTION,
            ideal=DEBIAS_IDEAL,
            citation="Liang, Li, Zheng, Lim, Salakhutdinov & Morency 2020, Towards "
            "Debiasing Sentence Representations (ACL); as implemented by Meade, Poole-Dayan "
            "& Reddy 2022 (ACL; McGill-NLP/bias-bench)",
            limitations=(
                "The subspace is linear and found from sentence means; token-level states "
                "keep whatever bias lies outside it, and earlier layers are untouched.",
                "Word tuples are matched as whole lower-case words split on spaces; a word "
                "next to punctuation is not swapped.",
                "Not bias-bench's numbers bit for bit: sentences are cut at "
                "`training.max_length` (64; bias-bench 128), every set is used (bias-bench "
                "drops the last incomplete batch of 32), a causal LM's sentences start with "
                "its BOS token when its tokenizer adds none (bias-bench adds none), and "
                "bias-bench computes on Wikipedia, here on the spec's corpus.",
                "Liang et al. debias a sentence encoder's output; bias-bench (and this "
                "tool) project every token's last hidden state of a language model, which "
                "the paper did not evaluate.",
                "The LM head sees states it was not trained on: the language-modelling cost "
                "is part of the result.",
            ),
        ),
        options=SentenceDebiasOptions,
        target="audit.variants.methods.sentence_debias:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "inlp",
            "Iterative nullspace projection (INLP)",
            "Remove, one classifier at a time, the directions along which linear "
            "classifiers find the attribute class in the last hidden states. Not trained.",
            what="Corpus sentences (5 words or more, the corpus shuffled by the seed) "
            "with attribute words of one class only (gender: male or female; race and "
            "religion: any attribute word) and neutral ones with none, each cut after a "
            "random word at or after its last attribute word (neutral: after the fourth "
            "word or later), at most `max_sentences` a class, give the base model's "
            "mean-pooled last hidden states (not normalised). They are split as bias-bench "
            "splits them (30 % test, 30 % of the rest dev). For each of `iterations` rounds "
            "(80, as bias-bench) a linear SVM (squared hinge, L2, C = 1, no intercept, "
            "one-vs-rest) learns the class from the train vectors projected so far, and its "
            "row space joins the removed ones; P projects onto the intersection of their "
            "nullspaces, and the variant's last hidden states h become P h before the LM "
            "head. variant.json keeps each round's dev accuracy and the test accuracy of a "
            "fresh classifier before and after P. `compat: formula` (default) minimises "
            "each SVM's objective exactly (L-BFGS in torch) and splits the rows by the "
            "audit's seed; `compat: reference` is bias-bench's code: scikit-learn's "
            "LinearSVC (liblinear, stopped at tolerance 1e-4) and train_test_split "
            "(random_state 0), bias-bench's labels, its cut of the sentences and its numpy "
            "arithmetic, bit for bit (needs scikit-learn: pip install "
            "'bias-audit[reference]').",
            inputs="A text corpus, the attribute word tuples of `bias_type` (default "
            "<data dir>/seat/bias_attribute_words.json) and the base model.",
            direction=DEBIAS_DIRECTION
            + " After P, a fresh classifier's test accuracy should fall to the majority "
            "class rate (variant.json).",
            ideal=DEBIAS_IDEAL,
            citation="Ravfogel, Elazar, Gonen, Twiton & Goldberg 2020, Null It Out: "
            "Guarding Protected Attributes by Iterative Nullspace Projection (ACL); as "
            "implemented by Meade, Poole-Dayan & Reddy 2022 (ACL; McGill-NLP/bias-bench)",
            limitations=(
                "The default is not bias-bench's projection: its exact classifiers differ "
                "from LinearSVC's (stopped at tolerance 1e-4) by about 1e-6, each round "
                "compounds the difference, and its split is seeded by the audit (bias-bench: "
                "train_test_split, random_state 0); the removed subspaces drift apart "
                "(docs/training.md). Use compat: reference to reproduce bias-bench.",
                "Either way, sentences are cut at `training.max_length` (64; bias-bench: "
                "the tokenizer's limit, so set 512 to match it); a causal LM's sentences "
                "start with its BOS token when its tokenizer adds none (bias-bench adds "
                "none); bias-bench's corpus is Wikipedia, here the spec's.",
                "Only linear information is removed, from the last layer only; each "
                "iteration removes one direction per class (one for two classes), so 80 "
                "iterations remove up to 240 of the model's dimensions for gender.",
                "The LM head sees states it was not trained on: the language-modelling cost "
                "is part of the result.",
            ),
        ),
        options=InlpOptions,
        target="audit.variants.methods.inlp:METHOD",
    )
)
VARIANT_METHODS.register(
    VariantMethodEntry(
        card=_card(
            "self_debias",
            "Self-Debias (scoring-time rescaling)",
            "Lower, at scoring time, the probability of the tokens that a debiasing prefix "
            "('The following text discriminates against people because of their gender: ') "
            "makes likelier. Not trained; reads no corpus.",
            shape="none",
            what="At every position a scorer reads, p(w | x) is compared with "
            "p(w | prefix_i + x) for each prefix (bias-bench's one prefix per bias type); "
            "delta(w) = p(w | x) - max_i p(w | prefix_i + x); the variant's distribution is "
            "alpha(delta(w)) p(w | x), renormalised over the vocabulary, with alpha(x) = 1 "
            "for x >= 0 and exp(lambda x) otherwise (lambda = 50). The prefixed inputs run in "
            "the same forward batch as the plain one. Causal LMs (ll, ppl, choice_ll) and "
            "masked LMs (cps, pll, pppl, sss, aul, aula, tbs, choice_pll) are rescaled; "
            "sentence vectors (SEAT) and fine-tuned heads are the base model's.",
            inputs="The base model and the debiasing prefixes: bias-bench's one per bias "
            "type (`bias_types`, default gender) or your own (`prefixes`); no corpus, no "
            "word list, no training.",
            direction="A lower bias score than the base model's, at a language-modelling "
            "cost (the variant's (pseudo-)perplexity against its base's).",
            ideal="The base model's language-modelling quality with no preference for "
            "stereotypical text.",
            citation="Schick, Udupa and Schütze 2021, 'Self-Diagnosis and Self-Debiasing' "
            "(TACL); as applied to CrowS-Pairs and StereoSet by Meade et al. 2022 "
            "(McGill-NLP/bias-bench)",
            limitations=(
                "Only the output distribution changes: sentence vectors (SEAT), fine-tuned "
                "task heads and anything else read from hidden states are the base model's.",
                "Scoring runs 1 + k rows per row for k prefixes, each copy longer by its "
                "prefix: about 3 times the base's time on CrowS-Pairs with one prefix.",
                "compat: reference floors alpha at bias-bench's epsilon = 0.01; bias-bench's "
                "causal first-token probability, read at a padding position of its plain "
                "row, is not reproduced (the first word's prediction is the BOS token's, "
                "rescaled like every other).",
                "The prefixes are English instructions: a model that cannot follow them "
                "is rescaled by noise, which the language-modelling cost shows.",
            ),
        ),
        options=SelfDebiasOptions,
        target="audit.variants.methods.self_debias:METHOD",
        needs_corpus=False,
        output_only=True,
    )
)
