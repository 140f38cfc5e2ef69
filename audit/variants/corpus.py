"""Training corpora of variants: a built-in by name or a user file, read into sentences.

A corpus is an ordered tuple of sentences plus where it came from and the sha256 of the
sentences as used ("\\n"-joined UTF-8, after `limit`); that hash is part of a trained
variant's cache key. Built-ins (`BUILTIN_CORPORA`) are described in
`audit.variants.corpus_builtin`. User files, by extension:

- `.txt`: one sentence per line; blank lines are skipped.
- `.csv` / `.tsv`: a header row, then one sentence per row in the column `column`.
- `.jsonl`: one JSON object per line, the sentence under the key `column`.

Every sentence is stripped of surrounding whitespace; blank ones (and JSON nulls) are
skipped. User files keep repeats and their order (mining counts a repeat twice; write
the file without repeats if that matters). `limit` keeps the first N sentences. Relative
paths are read from the spec file's folder, `~` is expanded. Every problem is an
`AuditUserError` that names the spec field (e.g. `variants[1].corpus.path`), the file and
what would be accepted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.data.reading import read_jsonl, read_table, read_text
from audit.errors import DataError, UnknownNameError
from audit.registry import did_you_mean
from audit.variants.corpus_builtin import BUILTIN_CORPORA, SOTU, STS_B, BuiltinText, sotu, sts_b
from audit.variants.settings import CorpusSpec

__all__ = [
    "BUILTIN_CORPORA",
    "FILE_FORMATS",
    "Corpus",
    "load_corpus",
    "read_user_sentences",
    "sentences_sha256",
]

#: Extension -> what the file holds.
FILE_FORMATS: dict[str, str] = {
    ".txt": "one sentence per line",
    ".csv": "comma-separated, header row, sentences in `column`",
    ".tsv": "tab-separated, header row, sentences in `column`",
    ".jsonl": "one JSON object per line, sentences under the key `column`",
}


@dataclass(frozen=True)
class Corpus:
    """Sentences to train on, in order, with their origin and hash."""

    name: str  # built-in name, or the file name for a user file
    source: str  # where it was read from (path(s)), for the report
    sha256: str  # hash of the sentences as used (after limit), "\n"-joined utf-8
    sentences: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.sentences)


def sentences_sha256(sentences: Sequence[str]) -> str:
    """sha256 (hex) of the sentences joined by "\\n", UTF-8."""
    return hashlib.sha256("\n".join(sentences).encode("utf-8")).hexdigest()


#: The name of the corpus of a method that reads none (Self-Debias).
NO_CORPUS_NAME = "none"


def no_corpus() -> Corpus:
    """The empty corpus of a method that reads none: no sentence, the hash of no text."""
    return Corpus(name=NO_CORPUS_NAME, source="", sha256=sentences_sha256(()), sentences=())


def load_corpus(
    spec: CorpusSpec,
    *,
    data_dir: Path | None,
    base_dir: Path,
    field: str = "corpus",
    cache_dir: Path | None = None,
) -> Corpus:
    """Read the corpus `spec` names (see the module docstring).

    `data_dir` is the shared data folder (`audit run --data-dir`), where built-ins are
    looked for first; `cache_dir` (optional) is where a built-in is downloaded or
    installed when the data folder lacks it; `base_dir` is the spec file's folder, for
    relative paths; `field` names the spec location in error messages.
    """
    if spec.name is not None:
        name, text = spec.name, _builtin(spec, data_dir, cache_dir, base_dir, field)
        sentences, source = text.sentences, text.source
    else:
        assert spec.path is not None  # CorpusSpec guarantees one of name / path
        path = resolve_path(spec.path, base_dir)
        sentences = read_user_sentences(path, spec.column, field=field)
        name, source = path.name, str(path)
    if spec.limit is not None:
        sentences = sentences[: spec.limit]
    return Corpus(
        name=name, source=source, sha256=sentences_sha256(sentences), sentences=tuple(sentences)
    )


def resolve_path(path: str, base_dir: Path) -> Path:
    """`path` with `~` expanded, relative to `base_dir` unless absolute."""
    resolved = Path(path).expanduser()
    return resolved if resolved.is_absolute() else base_dir / resolved


def _builtin(
    spec: CorpusSpec, data_dir: Path | None, cache_dir: Path | None, base_dir: Path, field: str
) -> BuiltinText:
    name = spec.name
    assert name is not None
    if name not in BUILTIN_CORPORA:
        hint = did_you_mean(name, list(BUILTIN_CORPORA))
        raise UnknownNameError(
            f"{field}.name: unknown built-in corpus '{name}'"
            + (f"; {hint}" if hint else "")
            + f" (built-ins: {', '.join(BUILTIN_CORPORA)}); for your own text give "
            "`corpus: {path: my_sentences.txt}`"
        )
    if spec.column is not None:
        raise DataError(
            f"{field}.column: `column` applies to user files (.csv, .tsv, .jsonl); the "
            f"built-in corpus {name} knows its own format: drop `column`"
        )
    where = f"{field}.name"
    if name == STS_B:
        return sts_b(data_dir=data_dir, cache_dir=cache_dir, where=where)
    if name == SOTU:
        return sotu(data_dir=data_dir, cache_dir=cache_dir, base_dir=base_dir, where=where)
    raise AssertionError(f"built-in corpus {name} has no reader")  # pragma: no cover


def read_user_sentences(path: Path, column: str | None, *, field: str = "corpus") -> list[str]:
    """The sentences of a user file (see the module docstring); errors name `field`."""
    where = f"{field}.path"
    suffix = path.suffix.lower()
    if path.is_dir():
        raise DataError(
            f"{where}: {path} is a folder; give a corpus file ({', '.join(FILE_FORMATS)})"
        )
    if suffix not in FILE_FORMATS:
        accepted = "; ".join(f"{ext} ({what})" for ext, what in FILE_FORMATS.items())
        raise DataError(
            f"{where}: {path}: cannot read a corpus from a {suffix or 'extension-less'!r} "
            f"file; accepted: {accepted}"
        )
    if not path.is_file():
        raise DataError(
            f"{where}: {path}: file not found (relative paths are read from the spec file's folder)"
        )
    try:
        if suffix == ".txt":
            if column is not None:
                raise DataError(
                    f"{field}.column: {path} is a .txt file (one sentence per line); "
                    "`column` applies to .csv, .tsv and .jsonl files: drop it"
                )
            sentences = _txt_sentences(path)
        elif suffix == ".jsonl":
            sentences = _jsonl_sentences(path, column, field)
        else:
            sentences = _table_sentences(path, "\t" if suffix == ".tsv" else ",", column, field)
    except DataError as exc:
        message = str(exc)
        if message.startswith(f"{field}."):
            raise
        raise DataError(f"{where}: {message}") from None
    if not sentences:
        raise DataError(
            f"{where}: {path} holds no sentences (only blank lines or cells); expected "
            f"{FILE_FORMATS[suffix]}"
        )
    return sentences


def _txt_sentences(path: Path) -> list[str]:
    # Split on "\n" only: U+2028 and friends may stand inside a sentence.
    lines = (line.strip() for line in read_text(path).split("\n"))
    return [line for line in lines if line]


def _need_column(path: Path, column: str | None, present: Sequence[str], field: str) -> str:
    listed = ", ".join(repr(c) for c in present) or "none"
    what = "key" if path.suffix.lower() == ".jsonl" else "column"
    if column is None:
        raise DataError(
            f"{field}.column: {path} needs `column`, the {what} that holds the sentences; "
            f"{what}s there: {listed}"
        )
    if column not in present:
        raise DataError(f"{field}.column: {path} has no {what} {column!r}; {what}s there: {listed}")
    return column


def _table_sentences(path: Path, delimiter: str, column: str | None, field: str) -> list[str]:
    table = read_table(path, delimiter)
    name = _need_column(path, column, table.columns, field)
    sentences = [record.cells[name].strip() for record in table.records]
    return [s for s in sentences if s]


def _jsonl_sentences(path: Path, column: str | None, field: str) -> list[str]:
    objects = read_jsonl(path)
    keys = list(dict.fromkeys(key for _, obj in objects for key in obj))
    name = _need_column(path, column, keys, field)
    sentences: list[str] = []
    for line, obj in objects:
        if name not in obj:
            raise DataError(
                f"{field}.column: {path}:{line}: no key {name!r} in this object; keys there: "
                f"{', '.join(repr(k) for k in obj) or 'none'}"
            )
        value: Any = obj[name]
        if value is None:
            continue
        if not isinstance(value, str):
            raise DataError(
                f"{field}.path: {path}:{line}: {name!r} must hold text, got "
                f"{type(value).__name__} {value!r}"
            )
        if value.strip():
            sentences.append(value.strip())
    return sentences
