"""What the post-hoc projections (INLP, SentenceDebias) are computed from, built while
planning from a corpus and bias-bench's attribute word lists (no model, no torch).

The word lists are bias-bench's `bias_attribute_words.json` (default: `<data dir>/seat/`):
`{"gender": [[male, female], ...], "race": [[w1, w2, w3], ...], "religion": [...]}`.
Sentences are compared as bias-bench compares them: lower-cased, split on single spaces,
words matched whole (so "he," does not match "he").

- SentenceDebias (`counterfactual_sets`): every sentence holding word i of a tuple gives
  one set: the sentence with that word replaced by each word of the tuple in turn
  (bias-bench `bias_bench/dataset/sentence_debias.py`).
- INLP (`inlp_classes`): sentences with attribute words of one class only, and neutral
  sentences with none, each cut after a random position (from the attribute word, or
  from the fourth word for neutral ones), at most `max_sentences` per class, the corpus
  shuffled by the seed first (bias-bench `bias_bench/dataset/inlp.py`). Gender has three
  classes (male, female, neutral); race and religion two (bias, neutral).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from audit.errors import AuditUserError

if TYPE_CHECKING:
    from audit.variants.methods.base import MethodContext

BiasType = Literal["gender", "race", "religion"]
ATTRIBUTE_FILE = "bias_attribute_words.json"
#: bias-bench skips sentences of fewer words than this (INLP).
MIN_WORDS = 5


def load_attribute_words(path: Path, bias_type: BiasType, field: str) -> list[tuple[str, ...]]:
    """The word tuples of `bias_type` in a bias-bench attribute-word file."""
    if not path.is_file():
        raise AuditUserError(
            f"{field}: attribute word file {path} does not exist; give bias-bench's "
            f"{ATTRIBUTE_FILE} (in the shared data folder under seat/)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AuditUserError(f"{field}: {path} is not a JSON file: {error}") from error
    groups = data.get(bias_type) if isinstance(data, dict) else None
    if not isinstance(groups, list) or not groups:
        found = ", ".join(sorted(data)) if isinstance(data, dict) else type(data).__name__
        raise AuditUserError(
            f"{field}: {path} has no list of word tuples under '{bias_type}' (found: "
            f'{found}); expected {{"{bias_type}": [[word, word, ...], ...]}}'
        )
    tuples: list[tuple[str, ...]] = []
    for index, group in enumerate(groups):
        ok = isinstance(group, list) and all(isinstance(w, str) and w for w in group)
        if not ok or len(group) != len(groups[0]) or len(group) < 2:
            raise AuditUserError(
                f"{field}: {path} '{bias_type}'[{index}] is {group!r}; every entry must be "
                f"a list of {max(len(groups[0]), 2)} words, one per group"
            )
        tuples.append(tuple(w.lower() for w in group))
    return tuples


def counterfactual_sets(
    sentences: Sequence[str], words: Sequence[tuple[str, ...]], max_sets: int | None
) -> list[tuple[str, ...]]:
    """SentenceDebias's counterfactual sets (module docstring), in corpus order."""
    sets: list[tuple[str, ...]] = []
    for sentence in sentences:
        tokens = sentence.lower().strip().split(" ")
        present = set(tokens)
        for group in words:
            for word in group:
                if word in present:
                    sets.append(
                        tuple(
                            " ".join(other if t == word else t for t in tokens) for other in group
                        )
                    )
                    if max_sets is not None and len(sets) >= max_sets:
                        return sets
    return sets


def inlp_classes(
    sentences: Sequence[str],
    words: Sequence[tuple[str, ...]],
    bias_type: BiasType,
    *,
    max_sentences: int,
    seed: int,
    reference_cut: bool = False,
) -> dict[str, tuple[str, ...]]:
    """INLP's labelled sentences (module docstring): class name -> sentences. A class
    sentence is cut from its last attribute word; with `reference_cut`, from the first
    occurrence of that word, as bias-bench's `tokens.index(token)` finds it (they differ
    when the last attribute word also comes earlier in the sentence)."""
    rng = random.Random(seed)
    order = list(sentences)
    rng.shuffle(order)
    names: tuple[str, ...]
    if bias_type == "gender":
        word_class = {g[0]: "male" for g in words} | {g[1]: "female" for g in words}
        names = ("male", "female", "neutral")
    else:
        word_class = {w: "bias" for g in words for w in g}
        names = ("bias", "neutral")
    out: dict[str, list[str]] = {name: [] for name in names}
    seen: set[str] = set()
    for sentence in order:
        tokens = sentence.lower().split(" ")
        if len(tokens) < MIN_WORDS:
            continue
        found = {word_class[t] for t in tokens if t in word_class}
        if not found:
            if len(out["neutral"]) < max_sentences:
                out["neutral"].append(" ".join(tokens[: rng.randint(4, len(tokens))]))
            continue
        if len(found) > 1 or sentence in seen:
            continue
        (label,) = found
        if len(out[label]) < max_sentences:
            seen.add(sentence)
            last = max(i for i, t in enumerate(tokens) if word_class.get(t) == label)
            if reference_cut:
                last = tokens.index(tokens[last])
            out[label].append(" ".join(tokens[: rng.randint(last, len(tokens)) + 1]))
        if all(len(v) >= max_sentences for v in out.values()):
            break
    return {name: tuple(v) for name, v in out.items()}


def attribute_words_of(
    option: str | None, bias_type: BiasType, context: MethodContext
) -> list[tuple[str, ...]]:
    """The word tuples of the method's `attribute_words` option, else of
    `<data dir>/seat/bias_attribute_words.json`."""
    if option is not None:
        path, field = context.path(option), f"{context.loc}.options.attribute_words"
    else:
        data_dir = context.require_data_dir("bias-bench's attribute word lists")
        path, field = data_dir / "seat" / ATTRIBUTE_FILE, f"{context.loc}.method"
    return load_attribute_words(path, bias_type, field)
