"""The score cache: keys, reuse, and corruption that is detected and never used."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from audit.errors import AuditUserError
from audit.scoring import cache_db
from audit.scoring.base import SentenceScore
from audit.scoring.cache import ScoreCache, text_key
from audit.scoring.catalog import scorer_info
from audit.scoring.options import CausalOptions

LL = scorer_info("ll")


def _namespace(root: Path, fingerprint: str = "fp1", compat: str = "formula"):  # type: ignore[no-untyped-def]
    return ScoreCache(root).namespace(
        model_fingerprint=fingerprint, scorer=LL, options=CausalOptions(compat=compat)
    )


def test_entries_round_trip_exactly(tmp_path: Path) -> None:
    ns = _namespace(tmp_path)
    value = (SentenceScore(-12.345678901234567, 7),)
    ns.put_many({text_key(["a b c"]): value})
    found, stats = ns.get_many([text_key(["a b c"]), text_key(["missing"])])
    assert found == {text_key(["a b c"]): value}
    assert stats.hits == 1 and stats.corrupt == 0
    assert (ns.folder / "manifest.json").read_text().count('"scorer": "ll"') == 1


def test_namespace_depends_on_every_input_that_changes_a_score(tmp_path: Path) -> None:
    folders = {
        _namespace(tmp_path).folder,
        _namespace(tmp_path, fingerprint="fp2").folder,
        _namespace(tmp_path, compat="reference").folder,
        ScoreCache(tmp_path)
        .namespace(
            model_fingerprint="fp1", scorer=LL, options=CausalOptions(), precision="cuda/bfloat16"
        )
        .folder,
    }
    assert len(folders) == 4
    assert _namespace(tmp_path).folder in folders  # same inputs, same place


def test_text_key_is_exact_and_ordered() -> None:
    assert text_key(["A"]) != text_key(["a"])
    assert text_key(["x", "y"]) != text_key(["y", "x"])
    assert text_key(["x y"]) != text_key(["x", "y"])


def test_tampered_entry_is_detected_and_dropped(tmp_path: Path) -> None:
    ns = _namespace(tmp_path)
    key = text_key(["sentence"])
    ns.put_many({key: (SentenceScore(-3.0, 2),)})
    ns.close()
    db = sqlite3.connect(ns.folder / "scores.sqlite")
    db.execute("UPDATE entries SET payload = ? WHERE key = ?", ("[[-1.0, 2]]", key))
    db.commit()
    db.close()
    ns = _namespace(tmp_path)
    found, stats = ns.get_many([key])
    assert found == {} and stats.corrupt == 1
    # the corrupt row is gone, so the next lookup is a clean miss
    assert ns.get_many([key])[1].corrupt == 0


def test_unreadable_database_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    ns = _namespace(tmp_path)
    ns.put_many({text_key(["s"]): (SentenceScore(-1.0, 1),)})
    ns.close()
    for extra in ns.folder.glob("scores.sqlite-*"):
        extra.unlink()
    (ns.folder / "scores.sqlite").write_bytes(b"this is not a database" * 100)
    ns = _namespace(tmp_path)
    found, _ = ns.get_many([text_key(["s"])])
    assert found == {}
    assert list(ns.folder.glob("scores.corrupt-*.sqlite")) == list(ns.set_aside)
    ns.put_many({text_key(["s"]): (SentenceScore(-1.0, 1),)})
    assert ns.get_many([text_key(["s"])])[0][text_key(["s"])][0].score == -1.0


def test_runtime_only_options_share_the_namespace(tmp_path: Path) -> None:
    from audit.scoring.options import MaskedOptions

    cps = scorer_info("cps")
    cache = ScoreCache(tmp_path)
    small = cache.namespace(model_fingerprint="f", scorer=cps, options=MaskedOptions())
    large = cache.namespace(
        model_fingerprint="f", scorer=cps, options=MaskedOptions(batch_tokens=8192)
    )
    reference = cache.namespace(
        model_fingerprint="f", scorer=cps, options=MaskedOptions(compat="reference")
    )
    assert small.folder == large.folder != reference.folder


def test_set_aside_files_are_reported(tmp_path: Path) -> None:
    ns = _namespace(tmp_path)
    ns.close()
    for extra in ns.folder.glob("scores.sqlite-*"):
        extra.unlink()
    (ns.folder / "scores.sqlite").write_bytes(b"this is not a database" * 100)
    ns = _namespace(tmp_path)
    assert [p.name for p in ns.set_aside] == [p.name for p in ns.folder.glob("scores.corrupt-*")]
    assert len(ns.set_aside) == 1 and not ns.read_only


def test_only_a_failed_integrity_check_proves_corruption(tmp_path: Path) -> None:
    ns = _namespace(tmp_path)
    ns.put_many({text_key(["s"]): (SentenceScore(-1.0, 1),)})
    ns.close()
    database = ns.folder / "scores.sqlite"
    assert not cache_db.proves_corrupt(database)
    assert not cache_db.proves_corrupt(tmp_path / "missing.sqlite")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    assert cache_db.proves_corrupt(garbage)


def test_a_database_that_cannot_be_written_is_never_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ns = _namespace(tmp_path)
    ns.put_many({text_key(["s"]): (SentenceScore(-1.0, 1),)})
    ns.close()

    def refuse(path: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(cache_db, "_open_for_writing", refuse)
    with pytest.raises(AuditUserError, match=r"cannot open the score cache database .*readonly"):
        _namespace(tmp_path)
    assert not list(ns.folder.glob("scores.corrupt-*"))


def test_a_read_only_namespace_reads_and_refuses_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root, chmod does not stop writing: tell the cache what os.access would say.
    ns = _namespace(tmp_path)
    ns.put_many({text_key(["s"]): (SentenceScore(-1.0, 1),)})
    ns.close()
    monkeypatch.setattr(cache_db, "can_write", lambda _path: False)
    ns = _namespace(tmp_path)
    assert ns.read_only
    assert ns.get_many([text_key(["s"])])[0][text_key(["s"])] == (SentenceScore(-1.0, 1),)
    with pytest.raises(AuditUserError, match="cannot be written"):
        ns.put_many({text_key(["t"]): (SentenceScore(-2.0, 1),)})
    ns.close()
    empty = _namespace(tmp_path, fingerprint="never-written")
    assert empty.read_only and empty.get_many([text_key(["s"])])[0] == {}
    assert not (empty.folder / "scores.sqlite").exists()
