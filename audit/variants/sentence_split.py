"""A small, deterministic English sentence splitter for running text (no model, no data).

Used for built-in corpora that come as paragraphs (`sotu`). Rules, in order:

1. Whitespace runs (newlines included) become one space.
2. A sentence ends at one or more of `.`, `!`, `?` (with any closing quotes or brackets
   after them) when whitespace follows and the next word starts with an upper-case
   letter, a digit, or an opening quote or bracket before one.
3. A `.` does not end a sentence after a known abbreviation ("Mr.", "Gen.", "U.S.",
   "e.g."), after a single letter (initials: "John Q. Adams", "U. S."), or after "No.",
   "Vol.", "Art.", "Sec.", "p." when a digit follows ("No. 5").

It splits the same text the same way on every machine. It is not punkt: it misses a
sentence that ends with an abbreviation ("... in the U.S. Then ...") and splits after an
unlisted abbreviation followed by a capital. For corpus statistics and continued training
that error rate is harmless; tests pin its behaviour on examples of each rule.
"""

from __future__ import annotations

import re

#: Lower-cased abbreviations (without the final ".") after which "." ends no sentence.
ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "messrs", "mme", "dr", "st", "jr", "sr", "esq", "rev", "hon",
        "prof", "gen", "gov", "sen", "rep", "reps", "col", "capt", "lt", "maj", "sgt",
        "adm", "cmdr", "supt", "atty", "pres", "vs", "etc", "viz", "cf", "al", "inc",
        "ltd", "co", "corp", "bros", "dept", "univ", "assn", "ave", "blvd", "mt", "ft",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
        "dec", "e.g", "i.e", "u.s", "u.s.a", "u.k", "d.c", "a.m", "p.m", "wm", "geo",
        "chas", "jas", "thos", "jno", "benj", "saml",
    }
)  # fmt: skip
#: Abbreviations that end no sentence when a digit follows ("No. 5", "p. 12").
NUMBER_ABBREVIATIONS = frozenset(
    {"no", "nos", "vol", "vols", "art", "arts", "sec", "secs", "ch", "p", "pp", "fig"}
)

_BOUNDARY = re.compile(r"([.!?]+[\"'\u2019\u201d)\]]*)\s+(?=[\"'\u2018\u201c(\[]?[A-Z0-9])")
_SINGLE_LETTER = re.compile(r"[a-z]")
_DOTTED = re.compile(r"(?:[a-z]\.)+[a-z]")


def _no_boundary(before: str, mark: str, following: str) -> bool:
    """True when the "." that ends `before` belongs to an abbreviation or an initial."""
    if not mark.startswith(".") or len(mark.rstrip("\"'\u2019\u201d)]")) != 1:
        return False
    word = before.rsplit(" ", 1)[-1].lower().lstrip("\"'\u2018\u201c([")
    if word in ABBREVIATIONS or _SINGLE_LETTER.fullmatch(word) or _DOTTED.fullmatch(word):
        return True
    return word in NUMBER_ABBREVIATIONS and following[:1].isdigit()


def split_sentences(text: str) -> list[str]:
    """The sentences of running text, in order, each stripped (see the module docstring)."""
    flat = " ".join(text.split())
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(flat):
        if _no_boundary(flat[start : match.start(1)], match.group(1), flat[match.end() :]):
            continue
        sentence = flat[start : match.end(1)].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    rest = flat[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences
