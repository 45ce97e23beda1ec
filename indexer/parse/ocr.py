"""Text of scanned PDFs, and of the pictures in other PDFs, without MinerU's models:
RapidOCR on pages (or picture regions) rendered by pypdfium2.

MinerU reads a scan only with its model tiers (a download of ~0.8 GB). RapidOCR
ships PaddleOCR's detection and recognition models (ONNX, ~16 MB) inside its
wheel, so a scanned PDF gets its text offline. Runs in the MinerU child process
(`mineru_worker`), never in the server.

What it returns looks like MinerU's content list — `text` items with `page_idx`,
a 0–1000 `bbox` and a `font_size` (the height of the letters in points) — so the layout
repair and the structure builder treat a scan like any PDF: lines in much larger
type become headings, short items side by side become table rows.

In a PDF with a text layer, flash returns a chart or an infographic that is a
raster image as a picture without text; `read_images` puts the words OCR finds
in it into the item's `content`, which the figure's paragraph carries.

The recognition model often drops the spaces between English words
("Thecommitteereviewedthe", "THECOMPLETEVIEW"); a run of letters that is not a
word is split back into words with wordninja's English word frequencies,
keeping its case, unless the split is mostly rare words (a name:
"Kubernetes" stays whole).
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer.models import Item
from indexer.parse.blocks import is_sizeable
from indexer.parse.items import body_size

RENDER_DPI = 150  # enough for slide and body text; higher costs time for little gain
_MIN_SCORE = 0.5  # recognitions the model itself doubts are noise
_HEADING_SIZE = 1.2  # a short line with letters this much taller than the body's is a heading
IMAGE_BUDGET_S = 120.0  # seconds of OCR on the pictures of one document
BLANK_PAGES_BUDGET_S = 300.0  # …and on the pages without a text layer of a PDF that has one
_MIN_IMAGE_SCORE = 0.8  # a photo's texture read as letters scores low; a chart label does not
_WORD = re.compile(r"[^\W_]{2,}")  # a line without two letters or digits in a row is a stray mark
_RUN = re.compile(r"[A-Za-z]{6,}")  # a run of letters this long may be several words
_WORD_NUMBER = re.compile(r"([a-z]{3})(\d{2})")  # a lower-case word run into a number lost a space
_SHORT = frozenset("a i an as at be by do go he if in is it me my no of on or so to up us we".split())


# The models rapidocr-onnxruntime 1.4.4 ships (PP-OCRv4 detection and recognition, v2 direction
# classifier); checked before they are loaded, like the embedding model.
_SHA256 = {
    "ch_PP-OCRv4_det_infer.onnx": "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
    "ch_PP-OCRv4_rec_infer.onnx": "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
    "ch_ppocr_mobile_v2.0_cls_infer.onnx": "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
}


@functools.cache
def unavailable() -> str | None:
    """Why OCR cannot run here, or None when it can (checked once per process: it hashes the models)."""
    try:
        import rapidocr_onnxruntime
    except ImportError as exc:  # not installed (Python ≥ 3.13), or OpenCV misses a system library
        return f"RapidOCR is not usable ({exc})"
    models = Path(rapidocr_onnxruntime.__file__).parent / "models"
    for name, expected in _SHA256.items():
        path = models / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != expected:
            return f"RapidOCR's model {name} is missing or failed its sha256 check; reinstall rapidocr-onnxruntime"
    return None


@dataclass
class _Line:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    ink: float = 0.0  # height of the letters in pixels (`_ink_height`)

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass
class _Paragraph:
    lines: list[_Line] = field(default_factory=list)

    @property
    def last(self) -> _Line:
        return self.lines[-1]

    def box(self) -> tuple[float, float, float, float]:
        return (
            min(line.x0 for line in self.lines),
            min(line.y0 for line in self.lines),
            max(line.x1 for line in self.lines),
            max(line.y1 for line in self.lines),
        )

    def text(self) -> str:
        out = ""
        for line in self.lines:
            if out.endswith("-") and line.text[:1].islower():
                out = out[:-1] + line.text  # a word hyphenated at the line end
            else:
                out = f"{out} {line.text}" if out else line.text
        return out


def recognise(path: str, pages: list[int] | None = None, budget_s: float | None = None) -> tuple[list[Item], int]:
    """Content-list items for the pages (0-based; default every page) of the PDF at `path`,
    in reading order, and how many pages were left unread when `budget_s` seconds were spent."""
    import time

    import pypdfium2 as pdfium
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()
    scale = RENDER_DPI / 72
    deadline = time.monotonic() + budget_s if budget_s is not None else None
    items: list[Item] = []
    unread = 0
    pdf = pdfium.PdfDocument(path)
    try:
        todo = list(range(len(pdf))) if pages is None else pages
        for n, page_idx in enumerate(todo):
            if deadline is not None and time.monotonic() > deadline:
                unread = len(todo) - n
                break
            page = pdf[page_idx]
            image = page.render(scale=scale).to_numpy()
            page.close()
            items.extend(page_items(engine, image, page_idx, scale))
    finally:
        pdf.close()
    mark_headings(items)
    return items, unread


def page_items(
    engine: object, image: np.ndarray, page_idx: int, scale: float, lines: list[_Line] | None = None
) -> list[Item]:
    """The `text` items of one page image, a paragraph each, in reading order: boxes in 0–1000 page
    units, `font_size` the letters' height in points (`scale`: pixels per point). `lines`: the lines
    OCR read on it, when they were read already."""
    if lines is None:
        lines = _read_lines(engine, image)
    height, width = image.shape[:2]
    items: list[Item] = []
    for paragraph in paragraphs(lines):
        x0, y0, x1, y1 = paragraph.box()
        items.append(
            {
                "type": "text",
                "text": respace(paragraph.text()),
                "page_idx": page_idx,
                "bbox": [
                    round(x0 * 1000 / width),
                    round(y0 * 1000 / height),
                    round(x1 * 1000 / width),
                    round(y1 * 1000 / height),
                ],
                "font_size": round(statistics.median(line.ink for line in paragraph.lines) / scale * 2) / 2,
            }
        )
    return items


def read_lines(engine: object, image: np.ndarray) -> list[_Line]:
    """The lines OCR reads in an image that have a word in them (two letters or digits in a row)."""
    return [line for line in _read_lines(engine, image) if _has_word(line.text)]


def read_images(path: str, items: list[Item], budget_s: float = IMAGE_BUDGET_S) -> tuple[int, int]:
    """Set `content` on the picture items (`image`, `chart`) of a text-layer PDF that have no
    text yet, from OCR of their region: the labels of a chart, the words of an infographic
    or a screenshot become searchable with the figure. Pictures under `MIN_PICTURE_AREA` of
    the page are skipped (logos, icons), and so is the rest once `budget_s` is spent (a
    catalogue of photos must not take the whole parse timeout). Returns how many were read, of how many."""
    import time

    import pypdfium2 as pdfium
    from rapidocr_onnxruntime import RapidOCR

    todo = [
        it
        for it in items
        if it.get("type") in ("image", "chart")
        and it.get("bbox")
        and not (it.get("content") or it.get("text_layer"))
        and is_sizeable(it["bbox"])
    ]
    if not todo:
        return 0, 0
    engine = RapidOCR()
    scale = RENDER_DPI / 72
    deadline = time.monotonic() + budget_s
    done = 0
    pdf = pdfium.PdfDocument(path)
    try:
        for it in todo:
            if time.monotonic() > deadline:
                break
            page = pdf[int(it["page_idx"])]
            width, height = page.get_size()
            x0, y0, x1, y1 = (min(1000, max(0, v)) for v in it["bbox"])  # from the top left
            # What to cut off, in points: left, bottom, right, top.
            crop = (x0 * width / 1000, (1000 - y1) * height / 1000, (1000 - x1) * width / 1000, y0 * height / 1000)
            image = page.render(scale=scale, crop=crop).to_numpy()
            page.close()
            lines = [line for line in _read_lines(engine, image, _MIN_IMAGE_SCORE) if _has_word(line.text)]
            text = "\n".join(respace(p.text()) for p in paragraphs(lines))
            if text:
                it["content"] = text
            done += 1
    finally:
        pdf.close()
    return done, len(todo)


def _read_lines(engine: object, image: np.ndarray, min_score: float = _MIN_SCORE) -> list[_Line]:
    found, _ = engine(image)  # type: ignore[operator]
    gray = image.mean(axis=2) if image.ndim == 3 else image.astype(float)
    return [_line(box, text, gray) for box, text, score in found or [] if float(score) >= min_score and text.strip()]


def _has_word(text: str) -> bool:
    return bool(_WORD.search(text))


def mark_headings(items: list[Item]) -> None:
    """A short line in type clearly larger than the body text is a heading (`text_level`, as
    MinerU marks them; depth then comes from size). A scan has no bold or outline to tell a
    heading by, and letter heights measured in pixels are rough, so the bar is lower than the
    layout's for text-layer PDFs (1.3 ×)."""
    body = body_size(items)
    if body is None:
        return
    for it in items:
        text = it["text"]
        if it["font_size"] >= _HEADING_SIZE * body and len(text.split()) <= 12 and not text.endswith((".", ",", ";")):
            it["text_level"] = 1


def _line(box: list[list[float]], text: str, gray: np.ndarray) -> _Line:
    xs, ys = [p[0] for p in box], [p[1] for p in box]
    line = _Line(min(xs), min(ys), max(xs), max(ys), " ".join(text.split()))
    line.ink = _ink_height(gray, line)
    return line


def _ink_height(gray: np.ndarray, line: _Line) -> float:
    """Height of the ink in the line's box (rows that differ from its background): the
    detector pads its boxes by an amount that varies with their width, so box height says
    little about type size, while ink from ascender to descender does."""
    crop = gray[max(0, int(line.y0)) : int(line.y1) + 1, max(0, int(line.x0)) : int(line.x1) + 1]
    if crop.size == 0:
        return line.height
    ink = np.abs(crop - np.median(crop)) > 60
    rows = np.flatnonzero(ink.sum(axis=1) >= max(1, 0.01 * crop.shape[1]))
    return float(rows[-1] - rows[0] + 1) if rows.size else line.height


def paragraphs(lines: list[_Line]) -> list[_Paragraph]:
    """Lines → paragraphs: a line continues the paragraph whose last line sits just above
    it, overlaps it horizontally and has about its height; anything else starts one."""
    found: list[_Paragraph] = []
    for line in sorted(lines, key=lambda line: (line.y0, line.x0)):
        for paragraph in reversed(found):
            last = paragraph.last
            tall = max(last.ink, line.ink)
            if (
                -0.3 * tall <= line.y0 - last.y1 <= 0.8 * tall
                and min(last.x1, line.x1) - max(last.x0, line.x0) > 0
                and abs(last.ink - line.ink) <= 0.2 * tall
            ):
                paragraph.lines.append(line)
                break
        else:
            found.append(_Paragraph([line]))
    return sorted(found, key=lambda p: (p.lines[0].y0, p.lines[0].x0))


def respace(text: str) -> str:
    """Split runs of letters that are not English words ("THECOMPLETEVIEW") into words."""
    text = _WORD_NUMBER.sub(r"\1 \2", text)  # "January2012"
    return _RUN.sub(lambda m: _split_run(m.group()), text)


def _split_run(run: str) -> str:
    import wordninja

    model = wordninja.DEFAULT_LANGUAGE_MODEL
    costs = model._wordcost  # the model's vocabulary: word → cost, rising with rarity
    if run.lower() in costs:  # a long word, not a run of words
        return run
    words = model.split(run.lower())
    if "".join(words) != run.lower() or len(words) < 2 or any(len(w) <= 2 and w not in _SHORT for w in words):
        return run  # an acronym or code ("EB IT DA")
    common = _common_cost(len(costs))
    if sum(costs[w] > common for w in words) > max(1, len(words) // 4):
        return run  # a name wordninja can only shred into rare words ("KU BERNE TES")
    out, at = [], 0
    for word in words:
        out.append(run[at : at + len(word)])
        at += len(word)
    return " ".join(out)


def _common_cost(vocabulary: int, rank: int = 5000) -> float:
    """wordninja's cost of the word at `rank` (Zipf: log((rank + 1) · log N))."""
    return math.log((rank + 1) * math.log(vocabulary))
