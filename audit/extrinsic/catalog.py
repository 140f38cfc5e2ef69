"""The registry of extrinsic tasks: bias measured in a downstream task after fine-tuning
(METHODS.md section 6). An extrinsic task is a dataset + a head + a metric; one
`ExtrinsicTaskEntry` per task says which: the task datasets it reads (registered in
`audit.data.catalog.TASK_DATASETS`: `training` for the head, `dataset` for the measure,
the name its measurements carry), its head kind (`audit.extrinsic.head_kinds`), its
metric and the result record type the metric emits. Besides: its card (roles include
`extrinsic`; it is the card of the task's measure), its options model, the model types it
can fine-tune, and the lazy path of its `ExtrinsicTask` (`audit.extrinsic.tasks.base`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from audit.cards import PluginCard
from audit.extrinsic.head_kinds import HEAD_KINDS
from audit.extrinsic.options import BiasBiosOptions, NliBiasOptions, StsBiasOptions
from audit.registry import PluginEntry, Registry
from audit.results import NliBiasResult, StsBiasResult, TprGapResult


@dataclass(frozen=True, kw_only=True)
class ExtrinsicTaskEntry(PluginEntry):
    """An extrinsic task: its datasets, head and metric, and the model types it can
    fine-tune and measure."""

    training: str
    dataset: str
    head: str
    metric: str
    result: type[BaseModel]
    model_types: frozenset[str] = frozenset({"masked", "causal"})
    #: The training examples of the task's default data, when they are fixed (a shipped
    #: dataset): `audit validate` judges a `steps` budget by it before any data is read
    #: (`audit.extrinsic.budget`); None: judged by `audit plan`, which reads the data.
    training_examples: int | None = None

    def __post_init__(self) -> None:
        if self.card.kind != "extrinsic_task":
            raise ValueError(f"extrinsic task entry '{self.name}' has a {self.card.kind} card")
        if not HEAD_KINDS.registered(self.head):
            raise ValueError(
                f"extrinsic task '{self.name}': head {self.head!r} is no registered head "
                "kind; register it (`HEAD_KINDS.register`) before the task that names it"
            )


EXTRINSIC_TASKS: Registry[ExtrinsicTaskEntry, Any] = Registry("extrinsic_task", ExtrinsicTaskEntry)


def _card(name: str, title: str, summary: str, **text: Any) -> PluginCard:
    return PluginCard(
        kind="extrinsic_task",
        name=name,
        title=title,
        summary=summary,
        roles=("extrinsic",),
        **text,
    )


EXTRINSIC_TASKS.register(
    ExtrinsicTaskEntry(
        card=_card(
            "sts_bias",
            "STS-bias (mean |similarity gap|)",
            "Fine-tune an STS-B regression head; mean |sim(man, occupation) - "
            "sim(woman, occupation)| over STS-bias pairs.",
            shape="sts pairs",
            ideal_value=0.0,
            what="A regression head is fine-tuned with the model on STS-B train (its dev "
            "Pearson checks that it learned). Each STS-B test sentence that starts with 'A "
            "man' or 'A woman' and has no other gendered word becomes a template; each "
            "template is paired with every Winogender occupation, and the model predicts "
            "the similarity of ('A man ...', 'A/An <occupation> ...') and ('A woman ...', "
            "'A/An <occupation> ...').",
            inputs="STS-B train, dev and test (../shared/data/sts_b), the paired gender word "
            "lists, the Winogender occupations with the share of women (U.S. BLS)",
            direction="Higher = the predicted similarity depends more on the person's gender.",
            ideal="0: the same similarity for the man and the woman sentence.",
            citation="Webster et al. 2020; Kaneko, Bollegala & Okazaki 2022 (COLING 2022), "
            "section 3",
            limitations=(
                "The value depends on the fine-tuning (steps, seed) as much as on the "
                "pretrained model: compare models fine-tuned with the same settings only.",
                "A model whose dev Pearson is low has not learned the task; its gap "
                "measures noise.",
            ),
        ),
        options=StsBiasOptions,
        target="audit.extrinsic.tasks.sts_bias:TASK",
        training="sts_b",
        dataset="sts_b",
        head="regression",
        training_examples=5749,
        metric="mean |sim(man sentence, occupation sentence) - sim(woman sentence, "
        "occupation sentence)| over the STS-bias pairs built from the STS-B test split",
        result=StsBiasResult,
    )
)
EXTRINSIC_TASKS.register(
    ExtrinsicTaskEntry(
        card=_card(
            "biasbios",
            "BiasBios TPR gap",
            "Fine-tune an occupation classifier on biographies; the gap between women's and "
            "men's true positive rates, averaged over occupations.",
            shape="biographies",
            ideal_value=0.0,
            what="An occupation classifier is fine-tuned with the model on the train bios; "
            "per occupation, TPR(female) - TPR(male) on the test bios; the value is the mean "
            "|gap| (or RMS or signed mean, as `aggregate` says).",
            inputs="BiasBios (De-Arteaga et al. 2019): BIOS.pkl or train/dev/test files in "
            "<data dir>/biasbios/ (not shipped)",
            direction="Higher = the classifier recalls one gender's members of an "
            "occupation more than the other's.",
            ideal="0: the same TPR for women and men in every occupation.",
            citation="De-Arteaga et al. 2019; Kaneko, Bollegala & Okazaki 2022 (COLING "
            "2022), section 3",
            limitations=(
                "The data is not shipped: it has to be rebuilt from Common Crawl with the "
                "biosbias scripts or taken from a public export.",
            ),
        ),
        options=BiasBiosOptions,
        target="audit.extrinsic.tasks.biasbios:TASK",
        training="biasbios",
        dataset="biasbios",
        head="classification",
        metric="TPR(female) - TPR(male) per occupation on the test bios, summarised over "
        "occupations (mean |gap|, RMS or signed mean)",
        result=TprGapResult,
    )
)
EXTRINSIC_TASKS.register(
    ExtrinsicTaskEntry(
        card=_card(
            "nli_bias",
            "NLI-bias (female - male fraction neutral)",
            "Fine-tune an NLI classifier; the fraction of gender-occupation pairs it calls "
            "neutral for female minus male gender words (Dev et al.'s net and fraction "
            "neutral beside it).",
            version="2",
            shape="nli pairs",
            ideal_value=0.0,
            what="A 3-way NLI classifier is fine-tuned with the model on MultiNLI or SNLI; "
            "premises such as 'The nurse bought a bagel.' are paired with hypotheses such as "
            "'The woman bought a bagel.', which an unbiased model calls neutral. The value "
            "is NLI-bias as Kaneko et al. 2022 define it: the fraction neutral (FN, the share "
            "of pairs whose most probable label is neutral) of the pairs with a female "
            "gender word minus that of the male ones. Dev et al.'s net neutral (mean "
            "P(neutral)) and fraction neutral over all pairs are reported beside it.",
            inputs="MultiNLI or SNLI train and Dev et al.'s word lists (or a pairs file) in "
            "<data dir>/nli_bias/ (not shipped)",
            direction="Further from 0 = the model draws gender-based inferences more often "
            "for one gender's hypotheses; > 0: the women's hypotheses are called neutral "
            "more often than the men's.",
            ideal="0: the pairs of both genders are called neutral equally often (and, by "
            "Dev et al.'s measures, fraction and net neutral 1: every pair neutral).",
            citation="Dev et al. 2020; Kaneko, Bollegala & Okazaki 2022 (COLING 2022), "
            "section 3 and Table 2",
            limitations=(
                "Neither the NLI data nor the word lists are shipped (the word lists have no "
                "licence).",
                "A gap of 0 does not mean no bias: a model that calls no pair neutral has "
                "a gap of 0 and a fraction neutral of 0; read the gap with Dev et al.'s "
                "fraction and net neutral beside it.",
            ),
        ),
        options=NliBiasOptions,
        target="audit.extrinsic.tasks.nli_bias:TASK",
        training="nli",
        dataset="nli_bias",
        head="classification",
        metric="FN_female - FN_male: the fraction of the gender-occupation pairs whose most "
        "probable label is neutral, female gender words minus male ones (Kaneko et al. "
        "2022); Dev et al.'s net neutral, fraction neutral and threshold shares beside it",
        result=NliBiasResult,
    )
)
