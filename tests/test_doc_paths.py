"""The docs name only files that exist: every `audit/...` path that README.md or a page
under docs/ cites (a module, `.py`, or a folder) is in the package.

A path with a placeholder (`audit/data/builtin/<name>.py`) names no file and is not
checked; the files a walkthrough tells the reader to create are listed in `TO_CREATE`
(each must still be cited, and must not exist: an example that became real is checked
like any other path)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: An `audit/` path not inside a longer path or word (`bias-audit/...` is not one).
_PATH = re.compile(r"(?<![\w./-])audit/[\w./-]*[\w/]")
#: The example files a walkthrough has the reader write (doc -> paths).
TO_CREATE = {
    "docs/architecture.md": {"audit/measures/mean_gap.py", "audit/scoring/mean_ll.py"},
    "docs/datasets.md": {"audit/data/builtin/my_pairs.py"},
}


def _docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def cited_paths(text: str) -> set[str]:
    """The `audit/...` paths in `text`: with `.py`, a folder, or a module without its
    `.py`; placeholders (`<name>`, `*`, `{...}`) left out."""
    found = set()
    for match in _PATH.finditer(text):
        end = match.end()
        if end < len(text) and text[end] in "<*{":
            continue  # audit/variants/methods/<name>.py: a placeholder
        found.add(match.group().rstrip("."))
    return found


def _exists(path: str) -> bool:
    target = ROOT / path.rstrip("/")
    if path.endswith("/"):
        return target.is_dir()
    return target.exists() or target.with_name(target.name + ".py").is_file()


def test_the_pattern_finds_paths_not_placeholders() -> None:
    text = (
        "See `audit/extrinsic/head_kinds.py`, audit/scoring/ and (audit/spec/models). "
        "Each in `audit/data/builtin/<name>.py`; not bias-audit/x.py nor my_audit/y.py."
    )
    assert cited_paths(text) == {
        "audit/extrinsic/head_kinds.py",
        "audit/scoring/",
        "audit/spec/models",
    }
    assert _exists("audit/spec/models") and _exists("audit/scoring/")
    assert not _exists("audit/extrinsic/finetune/records.py") and not _exists("audit/cli.py/")


def test_every_cited_audit_path_exists() -> None:
    missing = []
    for doc in _docs():
        name = doc.relative_to(ROOT).as_posix()
        allowed = TO_CREATE.get(name, set())
        for path in sorted(cited_paths(doc.read_text(encoding="utf-8")) - allowed):
            if not _exists(path):
                missing.append(f"{name}: {path}")
    assert not missing, "the docs cite files that do not exist:\n" + "\n".join(missing)


def test_the_walkthrough_files_are_cited_and_not_there() -> None:
    for doc, paths in TO_CREATE.items():
        cited = cited_paths((ROOT / doc).read_text(encoding="utf-8"))
        for path in paths:
            assert path in cited, f"{doc} no longer cites {path}: drop it from TO_CREATE"
            assert not _exists(path), f"{path} exists now: drop it from TO_CREATE"
