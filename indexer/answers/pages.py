"""Page images for vision-capable hosts: a figure's, chart's or table's region, or a whole page,
rendered from the source PDF with pypdfium2 when asked for, never stored.

A region is its paragraph's box (0–1000 page units) with a small margin, rendered at up to
`DPI` and scaled so its longer side is at most `MAX_SIDE` pixels; a whole page likewise. An
image costs the host about width × height / 750 tokens (`image_tokens`, the rule Claude's
hosts document); the answers count that against their budget. Rendering one crop takes tens of
milliseconds, so nothing is cached: nothing to bound, nothing that could go stale.

An office file has no page to render: its pictures, kept by the parser
(`indexer.parse.pictures`), are served by `StoredPictures` as they are, or scaled to `MAX_SIDE`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

from indexer.parse.pictures import MIME_TYPES

DPI = 144  # a crop is rendered at most this sharp (2× a PDF's 72 points per inch) …
MAX_SIDE = 1000  # … and its longer side at most this many pixels
MARGIN = 8  # around a region, in 0–1000 page units
PIXELS_PER_TOKEN = 750


def image_tokens(width: int, height: int) -> int:
    return math.ceil(width * height / PIXELS_PER_TOKEN)


@dataclass
class Rendered:
    data: bytes
    width: int
    height: int
    mime_type: str = "image/png"


class PdfPages:
    """One open PDF to size and render regions of (a context manager: the file is closed after)."""

    def __init__(self, path: Path):
        import pypdfium2 as pdfium

        self._pdf = pdfium.PdfDocument(str(path))

    def __enter__(self) -> PdfPages:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pdf.close()

    def __len__(self) -> int:
        return len(self._pdf)

    def size(self, page: int, bbox: list[int] | None = None) -> tuple[int, int]:
        """Pixel size the region (or the page) will be rendered at; `page` is 1-based."""
        _, (width, height) = self._plan(page, bbox)
        return width, height

    def render(self, page: int, bbox: list[int] | None = None) -> Rendered:
        (scale, crop), (width, height) = self._plan(page, bbox)
        pdf_page = self._pdf[page - 1]
        try:
            image = pdf_page.render(scale=scale, crop=crop).to_pil()
        finally:
            pdf_page.close()
        if image.size != (width, height):
            image = image.resize((width, height))
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return Rendered(out.getvalue(), width, height)

    def _plan(self, page: int, bbox: list[int] | None) -> tuple[tuple[float, tuple[float, ...]], tuple[int, int]]:
        pdf_page = self._pdf[page - 1]
        try:
            page_w, page_h = pdf_page.get_size()
        finally:
            pdf_page.close()
        x0, y0, x1, y1 = (
            (0, 0, 1000, 1000)
            if bbox is None
            else (
                max(0, bbox[0] - MARGIN),
                max(0, bbox[1] - MARGIN),
                min(1000, bbox[2] + MARGIN),
                min(1000, bbox[3] + MARGIN),
            )
        )
        # pypdfium2 crops in points from the left, bottom, right and top edges.
        crop = (x0 * page_w / 1000, (1000 - y1) * page_h / 1000, (1000 - x1) * page_w / 1000, y0 * page_h / 1000)
        width_pt, height_pt = max((x1 - x0) * page_w / 1000, 1), max((y1 - y0) * page_h / 1000, 1)
        scale = min(DPI / 72, MAX_SIDE / max(width_pt, height_pt))
        return (scale, crop), (max(1, round(width_pt * scale)), max(1, round(height_pt * scale)))


def open_pdf(path: Path, size: int | None, mtime_ns: int | None, shown: str) -> tuple[PdfPages | None, str | None]:
    """The indexed PDF at `path`, open to render, or why its pages cannot be shown: not a PDF,
    gone, changed since it was indexed (`size`, `mtime_ns`), or unreadable."""
    if path.suffix.lower() != ".pdf":
        return None, f"only a PDF's pages can be rendered, and {shown} is not one."
    try:
        info = path.stat()
    except OSError:
        return None, "the file is gone; it will be removed from the index shortly."
    if (info.st_size, info.st_mtime_ns) != (size, mtime_ns):
        return None, "the file changed since it was indexed; images return once it is indexed again."
    try:
        return PdfPages(path), None
    except (RuntimeError, OSError) as exc:  # pypdfium2's PdfiumError (a RuntimeError) for damaged files
        return None, f"the PDF cannot be rendered ({type(exc).__name__})."


class StoredPictures:
    """The kept pictures, by name, sized and served for read_section."""

    def __init__(self, folder: Path):
        self.folder = folder

    def size(self, name: str) -> tuple[int, int] | None:
        """Pixel size it will be served at; None when it is gone or unreadable."""
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(self.folder / name) as image:
                return _fitted(*image.size)
        except (OSError, UnidentifiedImageError, ValueError):
            return None

    def render(self, name: str) -> Rendered:
        """The picture as stored when it fits `MAX_SIDE`, else scaled down (as PNG)."""
        from PIL import Image

        path = self.folder / name
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as image:
            width, height = _fitted(*image.size)
            if (width, height) == image.size:
                return Rendered(data, width, height, MIME_TYPES[path.suffix[1:]])
            out = io.BytesIO()
            image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB").resize((width, height)).save(
                out, format="PNG"
            )
        return Rendered(out.getvalue(), width, height)


def _fitted(width: int, height: int) -> tuple[int, int]:
    scale = min(1.0, MAX_SIDE / max(width, height, 1))
    return max(1, round(width * scale)), max(1, round(height * scale))
