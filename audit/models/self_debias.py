"""Self-Debias settings stored with a model (Schick et al. 2021).

A `self_debias` variant (`audit.variants.methods.self_debias`) is its base model's own
files plus `self_debias.json`: the debiasing prefixes, the decay constant lambda and the
floor epsilon of alpha. The file is part of the model's fingerprint (role
`self_debias`). Loading such a folder gives the `LoadedModel` a `SelfDebias`: the
prefixes tokenised by the model's own tokenizer, which the scorers use to rescale the
next-token / masked-token distribution (`audit.scoring.self_debias`). No weight changes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import ModelSourceError

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

SELF_DEBIAS_FILE = "self_debias.json"
FORMAT = 1


@dataclass(frozen=True)
class SelfDebiasSettings:
    """What the file holds: prefixes (text), lambda, and epsilon (0: the paper's alpha)."""

    prefixes: tuple[str, ...]
    decay: float
    epsilon: float

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "prefixes": list(self.prefixes),
            "decay": self.decay,
            "epsilon": self.epsilon,
        }


@dataclass(frozen=True)
class SelfDebias:
    """The settings ready for scoring: each prefix's token ids (tokenised alone, without
    special tokens, as bias-bench does) and the ids that stay before a prefix when a
    sequence starts with them (the BOS / [CLS] token)."""

    prefix_ids: tuple[tuple[int, ...], ...]
    decay: float
    epsilon: float
    leading_ids: frozenset[int]

    @property
    def groups(self) -> int:
        """Rows per scored row: the plain input and one per prefix."""
        return 1 + len(self.prefix_ids)

    @property
    def longest_prefix(self) -> int:
        return max(len(p) for p in self.prefix_ids)


def save_self_debias(settings: SelfDebiasSettings, folder: Path) -> Path:
    """Write the settings into `folder`; returns the file."""
    path = folder / SELF_DEBIAS_FILE
    path.write_text(json.dumps(settings.as_json(), indent=1, sort_keys=True) + "\n")
    return path


def read_self_debias(path: Path, model_id: str) -> SelfDebiasSettings:
    """The settings of a file (a clear error for one that is not a Self-Debias file)."""
    where = f"model '{model_id}': {path}"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelSourceError(f"{where}: cannot read it: {error}") from error
    expected = (
        "a JSON object {format: 1, prefixes: [text, ...], decay: number >= 0, epsilon: "
        "number in [0, 1)} written by the self_debias variant method"
    )
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ModelSourceError(f"{where}: not a Self-Debias settings file; expected {expected}")
    prefixes, decay, epsilon = raw.get("prefixes"), raw.get("decay"), raw.get("epsilon")
    if (
        not isinstance(prefixes, list)
        or not prefixes
        or not all(isinstance(p, str) and p.strip() for p in prefixes)
    ):
        raise ModelSourceError(f"{where}: `prefixes` is {prefixes!r}; expected {expected}")
    for name, value, upper in (("decay", decay, math.inf), ("epsilon", epsilon, 1.0)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ModelSourceError(f"{where}: `{name}` is {value!r}; expected {expected}")
        if not (0 <= value < upper):
            raise ModelSourceError(f"{where}: `{name}` is {value}; expected {expected}")
    assert isinstance(decay, int | float) and isinstance(epsilon, int | float)
    return SelfDebiasSettings(tuple(prefixes), float(decay), float(epsilon))


def prepare_self_debias(
    settings: SelfDebiasSettings,
    tokenizer: PreTrainedTokenizerBase,
    model: PreTrainedModel,
    model_id: str,
) -> SelfDebias:
    """Tokenise the prefixes with the model's tokenizer (no special tokens)."""
    ids: list[tuple[int, ...]] = []
    for index, text in enumerate(settings.prefixes):
        tokens = tuple(int(t) for t in tokenizer(text, add_special_tokens=False)["input_ids"])
        if not tokens:
            raise ModelSourceError(
                f"model '{model_id}': Self-Debias prefix {index} ({text!r}) gives no token "
                "with this tokenizer"
            )
        ids.append(tokens)
    leading = {
        getattr(tokenizer, "bos_token_id", None),
        getattr(tokenizer, "cls_token_id", None),
        getattr(model.config, "bos_token_id", None),
    }
    return SelfDebias(
        prefix_ids=tuple(ids),
        decay=settings.decay,
        epsilon=settings.epsilon,
        leading_ids=frozenset(int(i) for i in leading if isinstance(i, int)),
    )
