"""The score cache: keys, reuse, and corruption that is detected and never used."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
    assert list(ns.folder.glob("scores.corrupt-*.sqlite"))
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
