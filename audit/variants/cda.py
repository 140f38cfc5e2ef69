"""Counterfactual data augmentation (CDA; METHODS.md section 5, issue 10).

`swap` replaces every gendered word of a sentence by its other-gender counterpart from the
paired word lists (`audit.variants.wordlists`), in both directions at once (he -> she and
she -> he in one pass, so a swap is never swapped back):

- whole words only: a match may not touch a letter, digit or "_" on either side, so "hero"
  stays "hero" (never "shero") and "manly" stays "manly";
- case is kept: "he" -> "she", "He" -> "She", "HE" -> "SHE" (an all-capital match gives an
  all-capital word, a capitalised one a capitalised word, anything else lower case);
- possessives follow from whole-word matching: "man's" -> "woman's", "men's" -> "women's";
- plurals are swapped only as the lists allow: "men" -> "women" because both are listed;
  no plural is made up by rule;
- the lists are many-to-one, so each direction keeps the first pair in file order. In
  particular "her" (his or him?) always becomes "his", while "his" and "him" both become
  "her" and "hers" becomes "his". "I saw her" -> "I saw his" is the known cost of that
  choice: telling object "her" from possessive "her" needs a parser, and this module stays
  pure Python and deterministic.

`augment` returns the originals followed by one swapped copy of each sentence that the
swap changed; a sentence without a gendered word gets no copy (it would be a duplicate).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from audit.variants.wordlists import GenderWordLists

_WORD_CHAR = r"\w"  # a letter, digit or "_"


def _pattern_for(word: str) -> str:
    # A phrase ("hair salon") matches with any run of white space between its words.
    return r"\s+".join(re.escape(part) for part in word.split(" "))


def gendered_word_regex(words: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive whole-word regex for all `words`, longest first."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    alternation = "|".join(_pattern_for(w) for w in ordered)
    return re.compile(rf"(?<!{_WORD_CHAR})(?:{alternation})(?!{_WORD_CHAR})", re.IGNORECASE)


def match_case(original: str, replacement: str) -> str:
    """`replacement` in the case pattern of `original` (all caps, capitalised or lower)."""
    letters = [c for c in original if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return replacement.upper()
    if letters and letters[0].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


class CounterfactualSwapper:
    """Swaps gendered words both ways with one compiled regex over both lists."""

    def __init__(self, lists: GenderWordLists) -> None:
        self.lists = lists

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return gendered_word_regex(self.lists.male_words | self.lists.female_words)

    def _replace(self, match: re.Match[str]) -> str:
        found = match.group(0)
        counterpart = self.lists.counterpart(found)
        if counterpart is None:  # cannot happen: the regex holds only listed words
            return found
        return match_case(found, counterpart)

    def swap(self, sentence: str) -> str:
        return self.regex.sub(self._replace, sentence)

    def augment(self, sentences: Iterable[str]) -> list[str]:
        originals = list(sentences)
        swapped = [self.swap(s) for s in originals]
        return originals + [new for old, new in zip(originals, swapped, strict=True) if new != old]


def swap(sentence: str, lists: GenderWordLists) -> str:
    """`sentence` with every gendered word replaced by its counterpart (see module doc)."""
    return CounterfactualSwapper(lists).swap(sentence)


def augment(sentences: Iterable[str], lists: GenderWordLists) -> list[str]:
    """Originals, then a swapped copy of each sentence the swap changed, in input order."""
    return CounterfactualSwapper(lists).augment(sentences)
