"""Template log-probability bias score, TBS (Kurita et al. 2019; METHODS.md section 2).

For a template with a target slot and an attribute slot ("[TARGET] is a/an
[ATTRIBUTE]."), a target word t and an attribute a:

    p_tgt   = P(t at the target slot | template, attribute filled, target masked)
    p_prior = P(t at the target slot | template, attribute tokens masked too)
    score   = log(p_tgt / p_prior)

Gender TBS compares the scores of "he" and "she" per attribute. `target_probabilities`
returns p_tgt alone: P(he) and P(she) on "[MASK] is a/an [occupation].", the sanity check
of bias-controlled fine-tuning. Both probabilities are over the whole vocabulary (not
renormalised over the targets), as in the paper. All copies run through the batched
masked-LM engine.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.data.items import TemplateSlots
from audit.errors import DataError
from audit.models.loaded import LoadedModel
from audit.scoring.base import (
    ProgressCallback,
    ScorePair,
    ScoringCall,
    ScoringInputError,
    SentenceScore,
    TemplateScorer,
)
from audit.scoring.masked.engine import MaskedCopy, run_masked_copies
from audit.scoring.masked.inputs import mask_token_id
from audit.scoring.options import TBSOptions, TemplateOptions

TARGET_SLOT = "[TARGET]"
ATTRIBUTE_SLOT = "[ATTRIBUTE]"
ARTICLE = "a/an"
DEFAULT_TEMPLATE = "[TARGET] is a/an [ATTRIBUTE]."


@dataclass(frozen=True)
class TemplateProbe:
    """A template, the words for its target slot and the words for its attribute slot."""

    template: str
    targets: tuple[str, ...]
    attributes: tuple[str, ...]


@dataclass(frozen=True)
class TemplateScore:
    """One (template, attribute, target) result; log-probabilities are float64."""

    template: str
    attribute: str
    target: str
    log_p_target: float
    log_p_prior: float

    @property
    def score(self) -> float:
        """log(p_tgt / p_prior)."""
        return self.log_p_target - self.log_p_prior

    @property
    def p_target(self) -> float:
        return math.exp(self.log_p_target)


def fill_template(template: str, target: str, attribute: str) -> tuple[str, int, int]:
    """The sentence, and the character offsets where the target and the attribute start.

    `a/an` becomes "an" before an attribute starting with a vowel letter, else "a".
    """
    article = "an" if attribute[:1].lower() in {"a", "e", "i", "o", "u"} else "a"
    pieces = re.split(r"(\[TARGET\]|\[ATTRIBUTE\])", template.replace(ARTICLE, article))
    out: list[str] = []
    target_at = attribute_at = length = 0
    for piece in pieces:
        if piece == TARGET_SLOT:
            target_at, piece = length, target
        elif piece == ATTRIBUTE_SLOT:
            attribute_at, piece = length, attribute
        out.append(piece)
        length += len(piece)
    return "".join(out), target_at, attribute_at


def _tokens_in(offsets: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    return [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]


@dataclass(frozen=True)
class _Slots:
    ids: tuple[int, ...]  # the sentence with the first target filled in
    target_position: int
    target_ids: tuple[int, ...]  # one token id per target
    attribute_positions: tuple[int, ...]


def _locate(model: LoadedModel, template: str, targets: Sequence[str], attribute: str) -> _Slots:
    tokenizer = model.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise ScoringInputError(
            f"model '{model.model_id}': tbs needs a fast tokenizer (character offsets)"
        )
    masked_versions: set[tuple[int, ...]] = set()
    target_ids: list[int] = []
    first: tuple[list[int], int, list[int]] | None = None
    mask_id = mask_token_id(tokenizer, model.model_id)
    for target in targets:
        text, target_at, attribute_at = fill_template(template, target, attribute)
        enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=True)
        ids, offsets = list(enc["input_ids"]), list(enc["offset_mapping"])
        slot = _tokens_in(offsets, target_at, target_at + len(target))
        if len(slot) != 1 or tuple(offsets[slot[0]]) != (target_at, target_at + len(target)):
            pieces = tokenizer.convert_ids_to_tokens([ids[i] for i in slot])
            raise ScoringInputError(
                f"model '{model.model_id}': target word {target!r} in {text!r} is not one "
                f"token of the vocabulary (it becomes {pieces}); tbs needs single-token "
                "targets: pick other target words or another model"
            )
        target_ids.append(ids[slot[0]])
        attribute_positions = _tokens_in(offsets, attribute_at, attribute_at + len(attribute))
        ids[slot[0]] = mask_id
        masked_versions.add(tuple(ids))
        if first is None:
            first = (ids, slot[0], attribute_positions)
    assert first is not None
    if len(masked_versions) != 1:
        raise ScoringInputError(
            f"model '{model.model_id}': template {template!r} with attribute {attribute!r} "
            f"tokenises differently around the targets {list(targets)}, so one masked "
            "sentence cannot serve all targets; rephrase the template"
        )
    ids, position, attribute_positions = first
    return _Slots(tuple(ids), position, tuple(target_ids), tuple(attribute_positions))


def score_templates(
    model: LoadedModel,
    probes: Sequence[TemplateProbe],
    *,
    options: TemplateOptions,
    progress: ProgressCallback,
) -> list[TemplateScore]:
    """TBS for every (template, attribute, target) of `probes`, in probe order.

    Progress counts (template, attribute) combinations.
    """
    if model.model_type != "masked":
        raise ScoringInputError(
            f"tbs needs a masked language model; '{model.model_id}' is {model.model_type}"
        )
    mask_id = mask_token_id(model.tokenizer, model.model_id)
    combos: list[tuple[TemplateProbe, str]] = []
    copies: list[MaskedCopy] = []
    for probe in probes:
        for attribute in probe.attributes:
            slots = _locate(model, probe.template, probe.targets, attribute)
            sentence = len(combos)
            combos.append((probe, attribute))
            read = ((slots.target_position,), (slots.target_ids,))
            copies.append(MaskedCopy(sentence, slots.ids, (slots.target_position,), *read))
            prior_masked = (slots.target_position, *slots.attribute_positions)
            copies.append(MaskedCopy(sentence, slots.ids, prior_masked, *read))
    results = run_masked_copies(
        model, copies, n_sentences=len(combos), mask_id=mask_id,
        batch_tokens=options.batch_tokens, autocast=options.autocast, progress=progress,
    )  # fmt: skip
    scores: list[TemplateScore] = []
    for k, (probe, attribute) in enumerate(combos):
        with_attribute, prior = results[2 * k][0], results[2 * k + 1][0]
        for j, target in enumerate(probe.targets):
            scores.append(
                TemplateScore(
                    probe.template, attribute, target, float(with_attribute[j]), float(prior[j])
                )
            )
    return scores


def target_probabilities(
    model: LoadedModel,
    attributes: Sequence[str],
    *,
    template: str = DEFAULT_TEMPLATE,
    targets: Sequence[str] = ("he", "she"),
    batch_tokens: int | None = None,
) -> list[dict[str, float]]:
    """P(target | template with the attribute filled in), one dict per attribute.

    The default is P(he) and P(she) on "[MASK] is a/an [occupation]." (METHODS.md
    section 5, the sanity check of bias-controlled fine-tuning).
    """
    options = TBSOptions(templates=(template,), targets=tuple(targets), batch_tokens=batch_tokens)
    probe = TemplateProbe(template, tuple(targets), tuple(attributes))
    scores = score_templates(model, [probe], options=options, progress=lambda _n: None)
    table: list[dict[str, float]] = [{} for _ in attributes]
    per_attribute = len(targets)
    for index, score in enumerate(scores):
        table[index // per_attribute][score.target] = score.p_target
    return table


def load_bolukbasi_professions(path: Path) -> list[str]:
    """Profession words from Bolukbasi et al.'s `professions.json` ([word, def, stereo]
    rows), with underscores turned into spaces ("adjunct_professor" -> "adjunct professor")."""
    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: cannot read the professions list: {exc}") from exc
    words: list[str] = []
    for index, row in enumerate(rows if isinstance(rows, list) else []):
        if not (isinstance(row, list) and row and isinstance(row[0], str) and row[0].strip()):
            raise DataError(
                f"{path}: row {index} is {row!r}; expected [word, definitional, stereotypical]"
            )
        words.append(row[0].replace("_", " "))
    if not words:
        raise DataError(f"{path}: expected a JSON list of [word, definitional, stereotypical]")
    return words


def probes_from_options(options: TBSOptions, attributes: Sequence[str]) -> list[TemplateProbe]:
    """One probe per template of the options, all sharing the targets and attributes."""
    return [TemplateProbe(t, options.targets, tuple(attributes)) for t in options.templates]


@dataclass(frozen=True)
class TemplateBiasScorer(TemplateScorer):
    """The `tbs` scorer: on template items (attribute + stereotypical and other target),
    each side's score is its target's TBS averaged over the templates of the options."""

    name: str

    def score_slots(
        self, model: LoadedModel, slots: Sequence[TemplateSlots], call: ScoringCall
    ) -> list[ScorePair]:
        """(score of target_st, score of target_at) per item; progress counts two
        sentences (the two targets) per item, reported when the items are done."""
        options = call.options
        if not isinstance(options, TemplateOptions):
            raise TypeError(f"tbs needs TemplateOptions, got {type(options).__name__}")
        probes = [
            TemplateProbe(template, (s.target_st, s.target_at), (s.attribute,))
            for template in options.templates
            for s in slots
        ]
        scores = score_templates(model, probes, options=options, progress=call.progress)
        n = len(slots)
        out = []
        for k in range(n):
            # score_templates lists, per probe, one score per target (st, then at)
            per_template = [
                scores[2 * (t * n + k) : 2 * (t * n + k) + 2] for t in range(len(options.templates))
            ]
            st = sum(p[0].score for p in per_template) / len(per_template)
            at = sum(p[1].score for p in per_template) / len(per_template)
            out.append((SentenceScore(st, 1), SentenceScore(at, 1)))
        return out


TBS_SCORER = TemplateBiasScorer("tbs")
