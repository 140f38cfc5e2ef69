"""What a study could have detected (results_version 4.0): the detection limit of a table
of correlation tests, given its models and its family's multiple-comparison correction.

A non-significant correlation is a finding only beside its power: with 12 models and 24
tests under Holm, Kendall's |tau| must reach about 0.67 to be significant, so a true tau
of 0.5 is missed four times in five. `audit.stats.power` computes these records; the
report words every "no correlation" with them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from audit.results.record import Record


class PowerAt(Record):
    """The chance that the table's test detects a true correlation of this strength."""

    tau: float = Field(description="Population Kendall tau of the simulated association.")
    power: float = Field(description="Share of simulations in which the test was significant.")


class DetectionLimit(Record):
    """The smallest correlation a test can call significant after its family's correction,
    and its power at given strengths (a seeded simulation; `method` says how)."""

    test: Literal["kendall", "spearman"] = Field(
        description="The test whose significance decides: Kendall (correlation tables) or "
        "Spearman (the meta-evaluation)."
    )
    n: int = Field(description="Models (points) the test has.")
    family_size: int = Field(description="Tests corrected together (m).")
    correction: Literal["holm", "bh"] | None = Field(
        description="The family's correction; None when the tests are not corrected."
    )
    alpha: float
    alpha_per_test: float = Field(
        description="The level one test must reach when it is the family's only effect: "
        "alpha / m under Holm and Benjamini-Hochberg alike (their first step)."
    )
    critical_kendall_tau: float | None = Field(
        description="The smallest |tau| (no ties) whose p-value reaches alpha_per_test; None "
        "when no value of tau can."
    )
    critical_spearman_rho: float | None = Field(
        description="The smallest |rho| (no ties) whose p-value reaches alpha_per_test; None "
        "when no value of rho can."
    )
    power: list[PowerAt] = Field(
        description="Power at population tau 0.3, 0.5 and the effect size the spec names."
    )
    effect_size: float = Field(description="The spec's effect size, a population Kendall tau.")
    target_power: float = Field(description="The power a conclusive study needs (0.8 default).")
    power_at_effect: float = Field(description="The power at `effect_size`.")
    simulations: int
    seed: int
    method: str = Field(description="How the power was simulated, in words.")

    @property
    def powered(self) -> bool:
        """Whether the test had the target power at the spec's effect size."""
        return self.power_at_effect >= self.target_power

    def power_at(self, tau: float) -> float | None:
        """The simulated power at population tau `tau`, None when not simulated."""
        return next((p.power for p in self.power if abs(p.tau - tau) < 1e-12), None)
