"""AT, all-layer token-level debiasing (Kaneko & Bollegala 2021): the corpus split into
target sentences (a target word and no attribute word) and attribute sentences (an
attribute word), as the reference code splits it; attribute words are both gender lists,
targets the reference's stereotype words (`at_targets`) or a user list."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from audit.data.builtin.professions import DEFINITIONAL_LIMIT
from audit.errors import AuditUserError
from audit.variants.methods.at_targets import STEREOTYPE_WORDS
from audit.variants.methods.base import MethodContext, VariantMethod, VariantPart, single_part
from audit.variants.methods.options import AtOptions

if TYPE_CHECKING:
    from audit.training.objective import TrainingObjective
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, ObjectiveSetup, TrainingData

PROFESSIONS_FILE = "professions.json"
#: Fewest sentences of each kind AT can learn anything from.
MIN_SENTENCES = 8


def read_target_words(path: Path, *, field: str) -> list[str]:
    """Words of a target file: a JSON list (of words, or of [word, ...] rows as debiaswe's
    professions.json) or one word per line. Underscores become spaces. Of debiaswe's
    [word, definitional, stereotypical] rows, the words not gendered by definition are
    kept (|definitional| < 0.5, the professions dataset's rule: nurse -0.1 and
    carpenter 0.1 stay, actress -1.0 goes)."""
    if not path.is_file():
        raise AuditUserError(
            f"{field}: file {path} does not exist; give a file of target words, one per "
            "line, or a JSON list"
        )
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise AuditUserError(f"{field}: {path} is not valid JSON ({error})") from None
        if not isinstance(rows, list):
            raise AuditUserError(f"{field}: {path} must hold a JSON list of words")
        words = [row[0] if isinstance(row, list) else row for row in rows]
        if path.name == PROFESSIONS_FILE:  # debiaswe: [word, definitional, stereotypical]
            words = [r[0] for r in rows if _not_definitional(r)]
    else:
        words = [line.strip() for line in text.splitlines() if line.strip()]
    words = [str(w).replace("_", " ").lower() for w in words]
    if not words:
        raise AuditUserError(f"{field}: {path} holds no words")
    return words


def _not_definitional(row: object) -> bool:
    """A debiaswe row whose definitional value is below the professions dataset's limit."""
    if not isinstance(row, list) or len(row) < 2:
        return False
    value = row[1]
    return isinstance(value, int | float) and abs(value) < DEFINITIONAL_LIMIT


def training_data(
    corpus: Corpus, options: AtOptions, part: VariantPart, context: MethodContext
) -> TrainingData:
    from audit.variants.cda import gendered_word_regex
    from audit.variants.methods.at_data import AtData
    from audit.variants.objective import TrainingData

    lists = context.word_lists(options.word_lists)
    if options.target_words is not None:
        field = f"{context.loc}.options.target_words"
        words = read_target_words(context.path(options.target_words), field=field)
    else:
        words = list(STEREOTYPE_WORDS)
    attributes = lists.male_words | lists.female_words
    targets = [w for w in words if w not in attributes]
    attribute_regex = gendered_word_regex(attributes)
    target_regex = gendered_word_regex(targets)
    target_sentences: list[str] = []
    attribute_sentences: list[str] = []
    for sentence in corpus.sentences:
        if attribute_regex.search(sentence):
            attribute_sentences.append(sentence)
        elif target_regex.search(sentence):
            target_sentences.append(sentence)
    if options.max_sentences is not None:
        target_sentences = target_sentences[: options.max_sentences]
        attribute_sentences = attribute_sentences[: options.max_sentences]
    for kind, found in (("target", target_sentences), ("attribute", attribute_sentences)):
        if len(found) < MIN_SENTENCES:
            raise AuditUserError(
                f"{context.loc}: corpus '{corpus.name}' has {len(found)} {kind} sentences, "
                f"AT needs at least {MIN_SENTENCES}; use a larger corpus or other word lists"
            )
    found_targets = sorted({m.lower() for s in target_sentences for m in _all(target_regex, s)})
    own = AtData(
        target_sentences=tuple(target_sentences),
        attribute_sentences=tuple(attribute_sentences),
        attribute_words={
            "male": tuple(sorted(lists.male_words)),
            "female": tuple(sorted(lists.female_words)),
        },
        target_words=tuple(found_targets),
    )
    return TrainingData(own=own)


def _all(regex: re.Pattern[str], sentence: str) -> list[str]:
    return [m.group(0) for m in regex.finditer(sentence)]


def build_at(setup: ObjectiveSetup) -> TrainingObjective:
    """AT's loss (`at_loss.AttributeTargetTask`) on the setup's `AtData`."""
    from audit.variants.methods.at_loss import AttributeTargetTask

    return AttributeTargetTask(setup)


def at_objective(
    *,
    alpha: float = 0.2,
    beta: float = 0.8,
    layers: Literal["all", "first", "last"] = "all",
    level: Literal["token", "sentence"] = "token",
    compat: Literal["formula", "reference"] = "formula",
) -> Objective:
    """AT's objective with its settings (`AtOptions`'s, defaults included)."""
    from audit.variants.objective import Objective

    settings = {"alpha": alpha, "beta": beta, "layers": layers, "level": level, "compat": compat}
    return Objective(kind="at", settings=settings, build=build_at)


def objective(options: AtOptions) -> Objective:
    return at_objective(
        alpha=options.alpha,
        beta=options.beta,
        layers=options.layers,
        level=options.level,
        compat=options.compat,
    )


METHOD = VariantMethod(parts=single_part, training_data=training_data, objective=objective)
