"""docs/measures/ generated from the measure registry: one page per measure and an index.

`python -m audit.measures.card_docs --write` rewrites the pages from the registrations in
audit/measures/catalog.py; `--check` exits 1 and names the stale pages when the committed
ones differ from what the registry generates.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from audit.measures.catalog import MEASURES, MeasureEntry

#: The command that regenerates the pages (run from the repository root).
REGENERATE = "python -m audit.measures.card_docs --write"
DEFAULT_FOLDER = Path("docs/measures")
_GENERATED = "<!-- generated from audit/measures/catalog.py by audit.measures.card_docs -->"


def options_markdown(options: type[BaseModel]) -> str:
    """A bullet list of the fields of an options model (required or default, description)."""
    bullets = []
    for field, info in options.model_fields.items():
        default = "required" if info.is_required() else f"default `{info.default!r}`"
        bullets.append(f"- `{field}` ({default}): {info.description or ''}".rstrip(": "))
    return "\n".join(bullets)


def card_markdown(entry: MeasureEntry) -> str:
    """One measure's documentation page."""
    card = entry.card
    lines = [
        f"# {card.title} (`{card.name}`)",
        "",
        _GENERATED,
        "",
        f"**What it measures.** {card.what}",
        "",
        f"**Inputs.** {card.inputs}",
        "",
        f"**Direction.** {card.direction}",
        "",
        f"**Ideal value.** {card.ideal}",
        "",
        f"**Citation.** {card.citation}",
        "",
        f"**Roles.** {', '.join(card.roles)}",
        "",
        "**Known limitations.**",
        "",
        *[f"- {item}" for item in card.limitations],
        "",
    ]
    options_doc = options_markdown(entry.options)
    if options_doc:
        lines += ["**Options.**", "", options_doc, ""]
    return "\n".join(lines)


def index_markdown(entries: Sequence[MeasureEntry]) -> str:
    """The index page: one row per measure, by name."""
    rows = [
        f"| [`{e.name}`]({e.name}.md) | {e.card.title} | {e.card.ideal} |"
        for e in sorted(entries, key=lambda e: e.name)
    ]
    return "\n".join(
        [
            "# Measures",
            "",
            _GENERATED,
            "",
            "Alpha (CI level 1 - alpha, significance flags) comes from the spec's `alpha`.",
            "",
            "| name | measure | ideal |",
            "|---|---|---|",
            *rows,
            "",
        ]
    )


def generated_pages(entries: Sequence[MeasureEntry] | None = None) -> dict[str, str]:
    """File name -> text of every page (the built-in measures when `entries` is None:
    docs/measures documents the tool's own, not those of installed plug-ins)."""
    if entries is None:
        chosen = [e for e in MEASURES.entries() if MEASURES.is_built_in(e.name)]
    else:
        chosen = list(entries)
    pages = {f"{e.name}.md": card_markdown(e) for e in chosen}
    pages["index.md"] = index_markdown(chosen)
    return pages


def stale_pages(folder: Path, pages: dict[str, str] | None = None) -> list[str]:
    """Names of the pages in `folder` that are missing, differ, or belong to no measure."""
    expected = generated_pages() if pages is None else pages
    stale = [
        name
        for name, text in expected.items()
        if not (folder / name).is_file() or (folder / name).read_text("utf-8") != text
    ]
    extra = [p.name for p in folder.glob("*.md") if p.name not in expected]
    return sorted(stale + extra)


def write_pages(folder: Path, pages: dict[str, str] | None = None) -> list[Path]:
    """Write every page into `folder` and remove pages of measures no longer registered."""
    expected = generated_pages() if pages is None else pages
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        if old.name not in expected:
            old.unlink()
    written = []
    for name, text in expected.items():
        path = folder / name
        path.write_text(text, "utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """`--write` regenerates the pages, `--check` exits 1 when they are stale."""
    parser = argparse.ArgumentParser(prog="python -m audit.measures.card_docs")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate the pages")
    action.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    args = parser.parse_args(argv)
    if args.write:
        for path in write_pages(args.folder):
            print(path)
        return 0
    stale = stale_pages(args.folder)
    if stale:
        print(f"stale in {args.folder}: {', '.join(stale)}; run `{REGENERATE}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
