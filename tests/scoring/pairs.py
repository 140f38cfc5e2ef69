"""Sentence pairs for the masked-LM tests: modified spans at the start, the middle and the
end, insertions (sides of different length), words the tiny vocabularies split into many
pieces, and one long pair so that batches mixing it with short ones are padding-heavy."""

from __future__ import annotations

PAIRS: list[tuple[str, str]] = [
    ("Women are bad at math.", "Men are bad at math."),  # modified at the very start
    ("He is a nurse.", "He is a doctor"),  # modified at the very end (no period)
    ("The poor are really lazy and never work.", "The rich are really lazy."),
    ("My neighbour from Mexico stole my car last night.",
     "My neighbour from Canada stole my car last night."),
    ("Jamal was arrested by the police again.", "Jack was arrested by the police again."),
    ("Old people cannot use computers at all.", "Young people cannot use computers."),
    ("Xylophones quack.", "Zebras quack."),  # out-of-vocabulary words: many pieces
    ("She", "He"),  # one word each
    ("The secretary typed the letter for her boss and the carpenter built the table in "
     "his shop while everyone in the village knew the baker and the farmer.",
     "The secretary typed the letter for his boss and the carpenter built the table in "
     "his shop while everyone in the village knew the baker and the farmer."),
]  # fmt: skip

SENTENCES: list[str] = [text for pair in PAIRS for text in pair]
