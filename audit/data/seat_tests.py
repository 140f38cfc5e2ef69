"""SEAT, the sentence encoder association tests (May et al. 2019), as bias-bench runs them.

Each test is one file `<test>.jsonl` in the `seat/` folder of a data folder (the
project's reference data: `<data dir>/seat/`), laid out as bias-bench @291426a
(`data/seat/`, originally W4ngatang/sent-bias) ships it: despite the extension, one JSON
object (not JSON Lines) with four sets, `targ1` (X), `targ2` (Y), `attr1` (A) and
`attr2` (B), each `{"category": ..., "examples": [...]}`. The `sent-*` tests hold
sentences ("This is John."), the others words.

`read_seat_test` reads one file, `load_seat_tests` a list of tests from a folder, each
file's sha256 checked against the pinned release below (a file that differs is read, and
its test says it is not verified). bias-bench keys encodings by text, so a set with a
repeated example would silently shrink: a repeated example is an error here, as are
unequal X and Y (the permutation test splits X u Y in halves) and an empty set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.data.download import sha256_file
from audit.data.reading import read_text
from audit.errors import DataError

FOLDER = "seat"
SUFFIX = ".jsonl"
SOURCE = "McGill-NLP/bias-bench @291426a, data/seat/ (originally W4ngatang/sent-bias)"
ROLES = ("targ1", "targ2", "attr1", "attr2")

#: The tests bias-bench reports per bias type (its experiments' GENDER_TESTS,
#: RACE_TESTS and RELIGION_TESTS), the default selection of `bias_type_tests`.
BIAS_TYPE_TESTS: Mapping[str, tuple[str, ...]] = {
    "gender": (
        "sent-weat6",
        "sent-weat6b",
        "sent-weat7",
        "sent-weat7b",
        "sent-weat8",
        "sent-weat8b",
    ),
    "race": (
        "sent-angry_black_woman_stereotype",
        "sent-angry_black_woman_stereotype_b",
        "sent-weat3",
        "sent-weat3b",
        "sent-weat4",
        "sent-weat5",
        "sent-weat5b",
    ),
    "religion": ("sent-religion1", "sent-religion1b", "sent-religion2", "sent-religion2b"),
}

#: sha256 of every test file of the pinned release (test name -> digest).
SHA256: Mapping[str, str] = {
    "angry_black_woman_stereotype": (
        "06ac61a1054ff82596a4b713e1acc5d800e5b70e84b1dd24d9e32231854e8828"
    ),
    "angry_black_woman_stereotype_b": (
        "69844f32f32f1f33264446d5a8ff75b11e896719c6627e8721a2e3153c493b9d"
    ),
    "heilman_double_bind_competent_1+3-": (
        "21924ce01aaee12162d8833e4f1dc5c3c332ebbbc720e7736ef554851cf1e4d2"
    ),
    "heilman_double_bind_competent_1-": (
        "08d78185021e1dc899ca349759906d42a74d245de62a624ca7cf24853c85f936"
    ),
    "heilman_double_bind_competent_1": (
        "83260f3683107446d18f20d1653a63cf53e30660fb800b4419719c0548d81c5e"
    ),
    "heilman_double_bind_competent_one_sentence": (
        "472b008cdeaebc97287e25dda29cee80fbcfdf976bbdcc267a9789c39580b2bf"
    ),
    "heilman_double_bind_competent_one_word": (
        "2926a59745fa07c4069cdfe5eec3153b3a1eb43e1edeefe41667765f2b87a32f"
    ),
    "heilman_double_bind_likable_1+3-": (
        "7bae0867001c671175d1582e1607fa16fbf3268a4862d68ee05b8b0a046c5663"
    ),
    "heilman_double_bind_likable_1-": (
        "aa3c3b26c8059b7f6318b37f1d1133161dc0b28531f9f2e797acbf46c1c219ca"
    ),
    "heilman_double_bind_likable_1": (
        "ebfc4ce95c6687a96d8cecdd453c51b252803b1cd94c98efccb4860a5612f139"
    ),
    "heilman_double_bind_likable_one_sentence": (
        "76a61eade11c46470d40746a45fff48235339aebe6302a00e7edeb95c6498a06"
    ),
    "heilman_double_bind_likable_one_word": (
        "47566cb0cf9a96a102f96a8b4f5fa1a7ff5108fc9d51b7564adcae30f4031ae4"
    ),
    "sent-angry_black_woman_stereotype": (
        "d421fb37fbac73184d60a73b95b5585cfc9bf0683b8100a57cd87d6d1c149588"
    ),
    "sent-angry_black_woman_stereotype_b": (
        "95b0bf8cde740bcd5241af89a217687dcf0a13bb48db8a628a49872df9bb1505"
    ),
    "sent-heilman_double_bind_competent_one_word": (
        "cc99565db26eaea3b09fe73b93109a6c3c11decb7b320f73942abdd7f60fa5d4"
    ),
    "sent-heilman_double_bind_likable_one_word": (
        "f3bb2f8e41caec232262ca3eec86ad4d773e1cb6fa5d0e33c7a863dccd40db7a"
    ),
    "sent-religion1": "39eceaa76103c32772bf6d13e78686a10272754e821c3197d07cf2bd4cee34e2",
    "sent-religion1b": "baddaead03ed69f50bb29ac3130108ca753fb6933ed0de435d3146403b51fbf5",
    "sent-religion2": "692ca32dc36305d34792aea17b9b1e3d520fe0f3c686f59d34159c9cfb3cdb2a",
    "sent-religion2b": "b7012c637402e85f00da240daf040b92888df4923c31a06e64998abf3a043521",
    "sent-weat1": "ff493f29fa0e0984b67e1502b0c04688473e189fd6d107c91054507ed73ff77a",
    "sent-weat10": "04dd864639909052e2ee1f386cfc0a99b5d5311c7c3ab0411396a6f5ddf0aeae",
    "sent-weat2": "58378442b8894e6987250a4ca52fc36495429c85695e9dcf952e9c4c31626609",
    "sent-weat3": "1e1b9f89f518ad5bba47cbe5bd1d08d679b296b3eb640ee0b060f080c5d7ffef",
    "sent-weat3b": "8db3f84b109031a8b86392fbd4544ca1b29f361d98b30b1e83a82b1ca60ee351",
    "sent-weat4": "5eb5a2bc5b36d8c0567b1992aea7adb015f3e170e4d24a220c2dca763f59a418",
    "sent-weat5": "2478d808135759371ee43754fa8efd89a928e434ad2981df61726b7328c5fb47",
    "sent-weat5b": "c0af61519bee074d0c3218bf8e5537b10fae5d795230422cd7bff92f90cafc26",
    "sent-weat6": "bcf1a6864e3da0e8982d70451721877f23e2efaf6aea33628df843d826b68ae2",
    "sent-weat6b": "8d1dd09833d1854784503c2eb9986d1951d684fb3289a18da85e72fa1e59e4ff",
    "sent-weat7": "86c151b640bc9ebf6f60cd94920ab1f5bff68ea1a993f322f729cf3620173e0f",
    "sent-weat7b": "16b7c23eb529421b411b508b2928b0d62e52cbb80cf40f8e9acbdfb52cd75350",
    "sent-weat8": "352fea8d5440800a219dd6141a6f5e414a708770bc2717bfc581bc249e108ded",
    "sent-weat8b": "c410535cac813f806d20a7f76f4bea62ee44f98d8828f8f0ac6a4b7694c414bc",
    "sent-weat9": "dd1b60d64dedde7ce532915a6a39cd8ec7d036e90896a6a854bfcd6315866c6c",
    "weat1": "c12c192a4b8011590cfe7de237cb2e0dbcd0e7328e3b7baf63869ccfd61bc0ea",
    "weat10": "4878efc95d1bbb9c482fc90a5c2c379f9b5a990c7ea9e61f13611fff355a23bc",
    "weat2": "d907a10b5a84a72f4e60bf069562565aa88b0e0c84e26adb38a75536718e25b9",
    "weat3": "99e5fdbfe3749608afb803eb55d1fb291f81399862ba4cc2b21461ae82215bf7",
    "weat3b": "1642a16492fb2e65ff84c858f81ee50737825b96cc0ce880f3409b4dc2e8dd5a",
    "weat4": "c0d0c606d20a0ccb8759dcbddaea1b692a860e9dbeea2ccdcade3e3c25868dbb",
    "weat5": "7e1ac48a1c8b549200ce5e4c9ed7fd6f0c2c766485d04e73adee05358a9b3224",
    "weat5b": "95d5e31bebbe612274fcde0bb311c6fe012f26623522ac4a2b2c9a78ddbb9d2a",
    "weat6": "21681d3f4d7fdf97cf4cd2c0f9160940cfbd797ec62c7621b5600dc9e6e5b248",
    "weat6b": "b6c85b5228a3786827b528af3d633fbbddc4fbf05d93e6ceb6f76a4881386c1d",
    "weat7": "c7e68ec95e30f42df3faa9e1ba933596c9e49651e0017bb90c19d0f58312f2b0",
    "weat7b": "714c42ccf6ec71113fcb2064daa7b4dfc80b0cd4bb191c8d0196053681a9792b",
    "weat8": "86e650b44e8fd539a9082564f5ede5dae2ed67d120938b9c92a7495f143801e9",
    "weat8b": "db822460372ae472b8cf8fd41a44ca13e4f166bb9ee05ea13a983fe0301016ef",
    "weat9": "e4c9ab7cd719dcc05a2bd86c390de31ae2778db3c362b360206c0491751fe9f7",
}


@dataclass(frozen=True)
class SeatSet:
    """One of a test's four sets: its role (targ1, targ2, attr1, attr2), the category it
    stands for (e.g. "MaleNames") and its examples, in file order."""

    role: str
    category: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class SeatTest:
    """One SEAT test: targets X (targ1) and Y (targ2), attributes A (attr1) and B (attr2),
    the file it was read from, its sha256 and whether that matches the pinned release."""

    name: str
    targ1: SeatSet
    targ2: SeatSet
    attr1: SeatSet
    attr2: SeatSet
    source: str
    sha256: str
    verified: bool

    @property
    def sets(self) -> tuple[SeatSet, SeatSet, SeatSet, SeatSet]:
        return (self.targ1, self.targ2, self.attr1, self.attr2)

    def texts(self) -> list[str]:
        """Every distinct example of the four sets, in order of first appearance."""
        return list(dict.fromkeys(text for one in self.sets for text in one.examples))


def known_tests() -> tuple[str, ...]:
    """The names of the pinned release's tests, sorted."""
    return tuple(sorted(SHA256))


def bias_type_tests(bias_types: Sequence[str]) -> tuple[str, ...]:
    """bias-bench's tests of `bias_types` (gender, race, religion), in its order."""
    unknown = [name for name in bias_types if name not in BIAS_TYPE_TESTS]
    if unknown:
        raise DataError(
            f"SEAT: bias type {unknown[0]!r} has no test list; accepted: "
            f"{', '.join(BIAS_TYPE_TESTS)}"
        )
    return tuple(test for name in bias_types for test in BIAS_TYPE_TESTS[name])


def bias_type_of(test: str) -> str | None:
    """The bias type whose bias-bench list holds `test`, or None."""
    for bias_type, tests in BIAS_TYPE_TESTS.items():
        if test in tests:
            return bias_type
    return None


def read_seat_test(path: Path, name: str | None = None) -> SeatTest:
    """One test file (name: the file name without `.jsonl` unless given)."""
    test_name = name if name is not None else path.name.removesuffix(SUFFIX)
    try:
        document = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise DataError(
            f"{path}:{error.lineno}:{error.colno}: not JSON ({error.msg}); a SEAT test file "
            "is one JSON object with targ1, targ2, attr1 and attr2"
        ) from None
    if not isinstance(document, dict):
        raise DataError(
            f"{path}: a {type(document).__name__} at the top; expected one JSON object with "
            "targ1, targ2, attr1 and attr2"
        )
    sets = [_read_set(path, document, role) for role in ROLES]
    if len(sets[0].examples) != len(sets[1].examples):
        raise DataError(
            f"{path}: targ1 has {len(sets[0].examples)} examples and targ2 "
            f"{len(sets[1].examples)}; the permutation test needs target sets of equal size"
        )
    digest = sha256_file(path)
    return SeatTest(
        name=test_name,
        targ1=sets[0],
        targ2=sets[1],
        attr1=sets[2],
        attr2=sets[3],
        source=str(path),
        sha256=digest,
        verified=SHA256.get(test_name) == digest,
    )


def _read_set(path: Path, document: Mapping[str, object], role: str) -> SeatSet:
    where = f"{path}: field {role!r}"
    block = document.get(role)
    if not isinstance(block, dict):
        found = "missing" if block is None else f"a {type(block).__name__}"
        raise DataError(f"{where} is {found}; expected {{category, examples: [...]}}")
    category = block.get("category")
    if not isinstance(category, str) or not category.strip():
        raise DataError(f"{where}.category is {category!r}; expected a non-empty string")
    examples = block.get("examples")
    if not isinstance(examples, list) or not examples:
        raise DataError(f"{where}.examples is {examples!r}; expected a non-empty list of texts")
    seen: set[str] = set()
    for index, example in enumerate(examples):
        if not isinstance(example, str) or not example.strip():
            raise DataError(
                f"{where}.examples[{index}] is {example!r}; expected a non-empty string"
            )
        if example in seen:
            raise DataError(
                f"{where}.examples[{index}] {example!r} is repeated; each example must be "
                "distinct (bias-bench keys encodings by text, so a repeat would silently "
                "shrink the set)"
            )
        seen.add(example)
    return SeatSet(role=role, category=category, examples=tuple(examples))


def load_seat_tests(folder: Path, tests: Sequence[str]) -> list[SeatTest]:
    """The named tests, read from `<folder>/<test>.jsonl`, in the order given."""
    if not tests:
        raise DataError("SEAT: no test named; name at least one (e.g. sent-weat6)")
    repeated = sorted({test for test in tests if list(tests).count(test) > 1})
    if repeated:
        raise DataError(f"SEAT: test {repeated[0]!r} is named twice")
    missing = [test for test in tests if not (folder / f"{test}{SUFFIX}").is_file()]
    if missing:
        known = ", ".join(known_tests()[:6])
        raise DataError(
            f"SEAT: no file {folder / (missing[0] + SUFFIX)} for test {missing[0]!r}; the "
            f"folder needs one <test>.jsonl per test (the release's tests: {known}, ...; "
            f"{len(SHA256)} in all)"
        )
    return [read_seat_test(folder / f"{test}{SUFFIX}", test) for test in tests]
