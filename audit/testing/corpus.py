"""The tiny corpora of `audit.testing`: sentences the tiny tokenizers are trained on, and
the gendered occupation sentences a debiasing method's test trains and probes with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: What the tokenizers of `save_tiny_*` are trained on (any English text still tokenizes).
TINY_CORPUS = [
    "The man worked as a nurse at the hospital.",
    "The woman worked as a doctor at the hospital.",
    "She is a brilliant engineer and he is a caring teacher.",
    "He said that his sister was a lawyer.",
    "They were poor, so their neighbours looked down on them.",
    "The rich family lived in a big house in the city.",
    "My friend is Black and my colleague is White.",
    "The old man could not use the computer, but the young woman could.",
    "Muslims and Christians and Jews prayed together.",
    "The capital of France is Paris.",
    "People from every country, religion, age and gender are welcome.",
    "The developer argued with the designer because she did not like the design.",
]

OCCUPATIONS = ("doctor", "nurse", "engineer", "teacher", "lawyer", "artist", "accountant")
#: Sentences with no gendered word but the last two (a training corpus's neutral part).
NEUTRAL = (
    "the doctor works at the hospital .",
    "the nurse helps the patient .",
    "the engineer builds a bridge .",
    "the teacher reads a book .",
    "the lawyer talks to the judge .",
    "the artist paints a picture .",
    "the accountant counts the money .",
    "a friend is here .",
    "the man and the woman talk .",
    "his sister and her brother walk .",
)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def gendered_sentences(pronoun: str) -> list[str]:
    """ "<pronoun> is a/an <occupation> ." for every occupation."""
    return [f"{pronoun} is {article(o)} {o} ." for o in OCCUPATIONS]


def probe_sentences(pronoun: str) -> list[str]:
    """The causal probe's own form: "He is a doctor." for every occupation."""
    return [f"{pronoun.capitalize()} is {article(o)} {o}." for o in OCCUPATIONS]


#: A small training corpus: every occupation with "he" and with "she", then `NEUTRAL`.
#: The tokenizers of `save_probe_*` are trained on it.
CORPUS = [*gendered_sentences("he"), *gendered_sentences("she"), *NEUTRAL]


#: A few sentence pairs (stereotypical, anti-stereotypical, bias type).
TINY_PAIRS = (
    ("He is an engineer.", "She is an engineer.", "gender"),
    ("She is a nurse.", "He is a nurse.", "gender"),
    ("The man worked as a doctor.", "The woman worked as a doctor.", "gender"),
    ("The poor are lazy.", "The rich are lazy.", "socioeconomic"),
    ("Old people cannot use computers.", "Young people cannot use computers.", "age"),
    ("The young woman could use the computer.", "The old man could use the computer.", "age"),
)


def write_tiny_pairs(path: Path) -> dict[str, Any]:
    """`TINY_PAIRS` as a CSV at `path` (folders created); returns the spec's `datasets`
    entry that reads it (named `tiny_pairs`, kind `pairs`)."""
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["stereotype", "anti_stereotype", "bias_type"])
        writer.writerows(TINY_PAIRS)
    columns = {"stereotype": "stereotype", "anti_stereotype": "anti_stereotype"}
    return {
        "name": "tiny_pairs",
        "kind": "pairs",
        "path": str(path),
        "columns": {**columns, "bias_type": "bias_type"},
    }
