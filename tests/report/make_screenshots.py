"""Regenerate docs/images/: the synthetic audit's report as a person sees it.

Run from the repository root (needs Debian's chromium and poppler-utils):
    python -m tests.report.make_screenshots
Desktop and phone screenshots of report.html (headless Chromium, no network) and PNGs of
report.pdf pages (pdftoppm), palette-quantised to stay small.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

from audit.report.render import write_reports
from tests.report.synthetic import synthetic_scores, synthetic_studied_result

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def _small_png(
    source: Path, target: Path, width: int | None = None, crop: tuple[int, int] | None = None
) -> None:
    image = Image.open(source).convert("RGB")
    if crop is not None:
        image = image.crop((0, 0, *crop))
    if width is not None and image.width > width:
        size = (width, round(image.height * width / image.width))
        image = image.resize(size, Image.Resampling.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


# Headless Chromium's window is never narrower than 500 px, so a 390 px "phone" window would
# lay the page out 500 px wide and crop it. The page is shown instead in an iframe of the
# exact size, whose viewport (and so the report's media queries) is that size.
FRAME = (
    '<!DOCTYPE html><html><body style="margin:0">'
    '<iframe src="{src}" style="border:0;display:block;width:{w}px;height:{h}px"></iframe>'
    "</body></html>"
)


def screenshot(html: Path, target: Path, size: tuple[int, int], start: str = "") -> None:
    """A headless Chromium screenshot of `html` in a viewport of `size`, from the element
    with id `start` on (the parts before it are hidden in a copy, as headless screenshots
    ignore #fragments)."""
    with tempfile.TemporaryDirectory() as profile:
        raw = Path(profile) / "shot.png"
        page = Path(profile) / "page.html"
        text = html.read_text()
        if start:
            hide = f"main > *:has(~ #{start}) {{ display: none; }}</style>"
            text = text.replace("</style>", hide, 1)
        page.write_text(text)
        frame = Path(profile) / "frame.html"
        frame.write_text(FRAME.format(src=page.name, w=size[0], h=size[1]))
        subprocess.run(
            [
                "chromium",
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}/user",
                f"--window-size={max(size[0], 500)},{size[1]}",
                f"--screenshot={raw}",
                f"file://{frame}",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        _small_png(raw, target, crop=size)


def pdf_page(pdf: Path, page: int, target: Path) -> None:
    """Page `page` of `pdf` as a PNG (pdftoppm at 80 dpi)."""
    with tempfile.TemporaryDirectory() as tmp:
        stem = Path(tmp) / "page"
        subprocess.run(
            ["pdftoppm", "-r", "80", "-png", "-f", str(page), "-l", str(page), str(pdf), stem],
            check=True,
            timeout=120,
        )
        _small_png(next(Path(tmp).glob("page*.png")), target)


def _page_of(pdf: Path, heading: str, after: int) -> int:
    """The number of the first page after page `after` whose text holds `heading` (the
    contents page names every section too)."""
    from pypdf import PdfReader

    for number, page in enumerate(PdfReader(pdf).pages, start=1):
        if number > after and heading in (page.extract_text() or ""):
            return number
    raise SystemExit(f"no page of {pdf} holds {heading!r}")


def main() -> None:
    if shutil.which("chromium") is None or shutil.which("pdftoppm") is None:
        raise SystemExit(
            "needs chromium and poppler-utils (apt-get install chromium poppler-utils)"
        )
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        scores = synthetic_scores()
        scores.to_parquet(out / "scores.parquet", index=False)
        written = write_reports(synthetic_studied_result(scores), out, formats=["html", "pdf"])
        html, pdf = written[0], written[1]  # report.html, the signed report.pdf
        screenshot(html, IMAGES / "report-desktop.png", (1280, 1000))
        screenshot(html, IMAGES / "report-desktop-gates.png", (1280, 1000), "gates")
        screenshot(html, IMAGES / "report-phone.png", (390, 1100), "gates")
        pdf_page(pdf, 1, IMAGES / "report-pdf-cover.png")
        pdf_page(
            pdf, _page_of(pdf, "Dataset: crows_pairs", after=3), IMAGES / "report-pdf-dataset.png"
        )
    for path in sorted(IMAGES.glob("report-*.png")):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
