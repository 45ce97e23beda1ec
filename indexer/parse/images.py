"""Pictures of documents — a photographed or scanned page, a screenshot, a fax — read by OCR in the
parser's child process (`mineru_worker`), never in the server.

`.png .jpg .jpeg .tif .tiff .webp .bmp` are read with Pillow, one page per image (one per frame of
a multi-frame TIFF), each page by the project's offline OCR (`indexer.parse.ocr`, RapidOCR's
bundled models): its lines become paragraphs as a scanned PDF's do (boxes in 0–1000 page units,
the letters' height as type size, so larger lines become headings). Each page is also kept as a
picture (`indexer.parse.pictures`, beside the parse cache): a figure item that spans the page, which
read_section(images=true) shows, and view_page serves as the page. A JPEG, PNG or WebP of one page
is kept as it is; any other (TIFF, BMP, a frame) as a PNG at most `KEPT_SIDE` pixels long.

A picture in which OCR finds no word (a photo, a pattern) fails with `NO_TEXT`, which says so.
HEIC (an iPhone's photos) is not read: no reader of it installs as a wheel without native
libraries of its own, and the skip reason says to export it as JPEG.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.models import Item

if TYPE_CHECKING:
    import numpy as np
    from PIL.Image import Image

IMAGE_FORMATS = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"})
NO_TEXT = "no text found in the picture (a photo?): OCR read no words in it"
ASSUMED_DPI = 150  # a picture that does not say its resolution: letter heights in points assume this
KEPT_SIDE = 2000  # a page kept as a PNG is scaled to at most this many pixels on its longer side
_KEPT_AS_IS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}


def read_image(
    path: str, pictures_dir: Path | None, result: dict, report_pages: Callable[[int], None] | None = None
) -> dict:
    """The worker's result for a picture file: `result` filled with its pages' items, or its reason;
    `report_pages` is told the page count (the parent extends its time limit by it)."""
    from PIL import Image as PILImage
    from PIL import ImageSequence, UnidentifiedImageError

    from indexer.parse import ocr

    if problem := ocr.unavailable():
        result["reason"] = f"a picture's text is read by OCR, which cannot run here: {problem}"
        return result
    try:
        image = PILImage.open(path)
        image.load()
    except PILImage.DecompressionBombError as exc:
        result["reason"] = f"the picture is too large to read ({exc})"[:300]
        return result
    except UnidentifiedImageError:
        result["reason"] = "not a picture: its bytes are no PNG, JPEG, TIFF, WebP or BMP image (a wrong extension?)"
        return result
    except (OSError, ValueError) as exc:
        result["reason"] = f"a damaged picture: it cannot be read to its end ({exc})"[:300]
        return result
    frames = getattr(image, "n_frames", 1)
    result["page_count"] = frames
    if report_pages is not None:
        report_pages(frames)
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()
    dpi = image.info.get("dpi")
    scale = (float(dpi[0]) if dpi and dpi[0] and float(dpi[0]) > 30 else ASSUMED_DPI) / 72
    items: list[Item] = []
    found_text = False
    for page_idx, frame in enumerate(ImageSequence.Iterator(image)):
        pixels = _on_white(frame)
        lines = ocr.read_lines(engine, pixels)
        texts = ocr.page_items(engine, pixels, page_idx, scale, lines)
        found_text = found_text or bool(texts)
        ocr.mark_headings(texts)
        page: Item = {"type": "image", "page_idx": page_idx, "bbox": [0, 0, 1000, 1000]}
        if pictures_dir is not None:
            from indexer.parse.pictures import keep_bytes

            data, suffix = _kept(path, image, frame, frames)
            page["picture"] = keep_bytes(data, suffix, pictures_dir)
        items.append(page)
        items.extend(texts)
    if not found_text:
        result["reason"] = NO_TEXT
        return result
    result.update(ok=True, tier="ocr", content_list=items, title=None, pictures_kept=pictures_dir is not None)
    return result


def _on_white(frame: Image) -> np.ndarray:
    """The frame as RGB pixels, a transparent background made white (OCR reads dark on light)."""
    import numpy as np
    from PIL import Image as PILImage

    if frame.mode in ("RGBA", "LA", "PA") or (frame.mode == "P" and "transparency" in frame.info):
        rgba = frame.convert("RGBA")
        white = PILImage.new("RGBA", rgba.size, (255, 255, 255, 255))
        return np.asarray(PILImage.alpha_composite(white, rgba).convert("RGB"))
    return np.asarray(frame.convert("RGB"))


def _kept(path: str, image: Image, frame: Image, frames: int) -> tuple[bytes, str]:
    """What is kept of a page: the file itself when hosts show it as it is, else a PNG of the frame."""
    from PIL import Image as PILImage

    from indexer.parse.pictures import MAX_PICTURE_BYTES

    suffix = _KEPT_AS_IS.get(image.format or "")
    if suffix and frames == 1:
        data = Path(path).read_bytes()
        if len(data) <= MAX_PICTURE_BYTES:
            return data, suffix
    copy = frame.convert("RGBA" if frame.mode in ("RGBA", "LA", "PA", "P") else "RGB")
    copy.thumbnail((KEPT_SIDE, KEPT_SIDE), PILImage.Resampling.LANCZOS)
    out = io.BytesIO()
    copy.save(out, format="PNG", optimize=True)
    return out.getvalue(), "png"
