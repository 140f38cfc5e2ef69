"""Options models of the scorers (light: no torch), validated against the spec."""

from __future__ import annotations

from audit.scoring.base import ScorerOptions


class CausalOptions(ScorerOptions):
    """`compat: reference` scores as SafeNLP does: no BOS prepended, first token unscored."""
