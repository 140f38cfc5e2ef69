"""The paired gender word lists (METHODS.md section 5) as an immutable two-way mapping.

The pairs come from `<data_dir>/wordlists/gn_glove_male.txt` and `gn_glove_female.txt`
(Zhao et al. 2018, GN-GloVe; Apache-2.0, see LICENSE.gn_glove there): line i of the male
file pairs with line i of the female file. Entries are lower-cased and an underscore (the
GN-GloVe spelling of a phrase, e.g. "hair_salon") becomes a space, so phrases match
running text. Nothing else is changed: entries are used as the files spell them.

The lists are not one-to-one: a word can pair with several others ("his" with "her" and
"hers", "manservant" with "maidservant" and "maid"; "her" with "his" and "him"). Each
direction of the mapping keeps the *first* pair in file order, so with the shipped files
"his" -> "her", "him" -> "her", "her" -> "his", "hers" -> "his". Every word of either list
still counts as gendered for mining, whatever it maps to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from audit.errors import AuditUserError

MALE_FILE = "gn_glove_male.txt"
FEMALE_FILE = "gn_glove_female.txt"


def normalise_entry(word: str) -> str:
    """How an entry of the lists is compared with text: lower-case, "_" as a space."""
    return " ".join(word.strip().lower().replace("_", " ").split())


@dataclass(frozen=True)
class GenderWordLists:
    """Paired male/female words; `to_female` and `to_male` are read-only mappings."""

    pairs: tuple[tuple[str, str], ...]
    to_female: Mapping[str, str] = field(init=False, repr=False, compare=False)
    to_male: Mapping[str, str] = field(init=False, repr=False, compare=False)
    male_words: frozenset[str] = field(init=False, repr=False, compare=False)
    female_words: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        to_female: dict[str, str] = {}
        to_male: dict[str, str] = {}
        for male, female in self.pairs:
            to_female.setdefault(male, female)
            to_male.setdefault(female, male)
        both = sorted(set(to_female) & set(to_male))
        if both:
            raise AuditUserError(
                f"gender word lists: {', '.join(both[:5])} appear(s) in both the male and "
                "the female list; each word must be on one side only"
            )
        object.__setattr__(self, "to_female", MappingProxyType(to_female))
        object.__setattr__(self, "to_male", MappingProxyType(to_male))
        object.__setattr__(self, "male_words", frozenset(to_female))
        object.__setattr__(self, "female_words", frozenset(to_male))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> GenderWordLists:
        """Build from (male, female) pairs, normalising each entry as the loader does."""
        items = tuple((normalise_entry(m), normalise_entry(f)) for m, f in pairs)
        return cls(pairs=items)

    def counterpart(self, word: str) -> str | None:
        """The other-gender word for `word` (any case), or None when it is not gendered."""
        key = normalise_entry(word)
        return self.to_female.get(key) or self.to_male.get(key)

    def __len__(self) -> int:
        return len(self.pairs)


def _read_list(path: Path) -> list[str]:
    if not path.is_file():
        raise AuditUserError(
            f"gender word list {path} is missing; expected a text file with one word per "
            "line, paired line by line with its other-gender list"
        )
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise AuditUserError(
            f"gender word list {path} is empty; expected one word per line, paired line by "
            "line with its other-gender list"
        )
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise AuditUserError(
                f"gender word list {path}: line {number} is blank; every line must hold one "
                "word, since line i pairs with line i of the other list"
            )
    return lines


def load_gender_word_lists(data_dir: Path | str) -> GenderWordLists:
    """Load the paired lists from `<data_dir>/wordlists/`; AuditUserError when a file is
    missing, empty, has a blank line, or the two files differ in length."""
    return load_word_list_folder(Path(data_dir) / "wordlists")


def load_word_list_folder(folder: Path | str) -> GenderWordLists:
    """Load the paired lists from `folder/gn_glove_male.txt` and `gn_glove_female.txt`."""
    folder = Path(folder)
    male_path, female_path = folder / MALE_FILE, folder / FEMALE_FILE
    male, female = _read_list(male_path), _read_list(female_path)
    if len(male) != len(female):
        raise AuditUserError(
            f"gender word lists differ in length: {male_path} has {len(male)} words, "
            f"{female_path} has {len(female)}; they must pair line by line"
        )
    return GenderWordLists.from_pairs(zip(male, female, strict=True))
