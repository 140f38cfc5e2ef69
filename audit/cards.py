"""What a plug-in says about itself: the card a report prints and results.json keeps.

Every registry entry carries a `PluginCard`; `audit run` writes the cards of the plug-ins
it used into results.json, so reports and comparisons need no registry to explain them.
Pure pydantic, no other import.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PluginKind = Literal["dataset", "scorer", "measure", "variant_method", "extrinsic_task"]

#: Roles a plug-in may declare; report code asks for roles, never for names.
#: - headline: may head a dataset's summary sentence (first headline measure in
#:   registration order wins);
#: - group_chart: its per-group values are drawn as a chart;
#: - diagnostic: shown in its own per-dataset table (titled by the card's `table_*`
#:   fields), not among the headline estimates;
#: - normality_check: a test whose p-value below the audit's alpha flags a score set as not
#:   normal: its diagnostic table gets a verdict column, and it drives the non-normal caveat;
#: - gaussian_fit: fits Gaussians to the score sets (KLS, JSS), so a non-normal set
#:   weakens it (the non-normal caveat and the distribution chart's caption name it);
#:   two such measures on the same scores are functions of the same fits, so their
#:   correlation across models is not a finding (it is marked and left out of counts);
#: - pair_indicator: its value is 100 x the share of pairs whose stereotypical sentence
#:   scores higher (the bias score), so McNemar's exact test on the pairs' outcomes is the
#:   exact paired test of a difference between two models;
#: - intrinsic / extrinsic: Kaneko et al. 2022's two families of bias measures;
#: - resamplable: the cross-model studies (robustness, comparison) can redraw it;
#: - corpus: measures a text corpus, not a model.
Role = Literal[
    "headline",
    "group_chart",
    "diagnostic",
    "normality_check",
    "gaussian_fit",
    "pair_indicator",
    "intrinsic",
    "extrinsic",
    "resamplable",
    "corpus",
]


class PluginCard(BaseModel):
    """A plug-in's own description. Measures fill every field; other kinds may leave the
    long texts empty."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: PluginKind
    name: str
    title: str = Field(description="Display name, e.g. 'Bias score (indicator)'.")
    summary: str = Field(description="One line for listings.")
    version: str = Field(
        default="1",
        description="The plug-in's own version: raise it when what it computes changes "
        "(cards written before results_version 2.1 have none and read as '1').",
    )
    shape: str = Field(
        description="The input it takes or gives: pairs, labelled, templates, corpus, ..."
    )
    roles: tuple[Role, ...] = ()
    ideal_value: float | None = Field(
        default=None,
        description="The unbiased value on the measure's scale, None when it has none.",
    )
    what: str = ""
    inputs: str = ""
    direction: str = ""
    ideal: str = ""
    citation: str = ""
    #: Known limitations; a dataset's are its pitfalls, which the report prints as a caveat.
    limitations: tuple[str, ...] = ()
    table_title: str = Field(
        default="",
        description="A diagnostic measure's table title after '<dataset>: ' (default: title).",
    )
    table_caption: str = Field(
        default="",
        description="A diagnostic measure's table caption; '{alpha}' becomes the audit's alpha.",
    )
    table_value_heading: str = Field(
        default="",
        description="Heading of the value-with-CI column of a diagnostic measure's table "
        "(default: short title and '(CI)').",
    )

    def has_role(self, role: Role) -> bool:
        return role in self.roles

    @property
    def short_title(self) -> str:
        """The title without its parenthesis: a column heading."""
        return self.title.split(" (", 1)[0]
