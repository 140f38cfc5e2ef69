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


def _small_png(source: Path, target: Path, width: int | None = None) -> None:
    image = Image.open(source).convert("RGB")
    if width is not None and image.width > width:
        size = (width, round(image.height * width / image.width))
        image = image.resize(size, Image.Resampling.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


def screenshot(html: Path, target: Path, size: tuple[int, int], start: str = "") -> None:
    """A headless Chromium screenshot of `html`, from the element with id `start` on (the
    parts before it are hidden in a copy, as headless screenshots ignore #fragments)."""
    with tempfile.TemporaryDirectory() as profile:
        raw = Path(profile) / "shot.png"
        if start:
            hide = f"main > *:has(~ #{start}) {{ display: none; }}</style>"
            page = Path(profile) / "page.html"
            page.write_text(html.read_text().replace("</style>", hide, 1))
            html = page
        subprocess.run(
            [
                "chromium",
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}/user",
                f"--window-size={size[0]},{size[1]}",
                f"--screenshot={raw}",
                f"file://{html}",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        _small_png(raw, target)


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
        html, pdf = write_reports(synthetic_studied_result(scores), out, formats=["html", "pdf"])
        screenshot(html, IMAGES / "report-desktop.png", (1280, 1000))
        screenshot(html, IMAGES / "report-desktop-gates.png", (1280, 1000), "gates")
        screenshot(html, IMAGES / "report-phone.png", (390, 1100), "dataset-crows-pairs")
        pdf_page(pdf, 1, IMAGES / "report-pdf-cover.png")
        pdf_page(pdf, 5, IMAGES / "report-pdf-dataset.png")
    for path in sorted(IMAGES.glob("report-*.png")):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
