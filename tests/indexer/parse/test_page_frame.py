"""Type sizes and text read where a page shows them: turned pages and crop boxes that start
elsewhere. Real PDFs built here, read by the real pypdfium2."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from fpdf import FPDF

from indexer.models import Item
from indexer.parse.page_frame import UNITS, PageFrame
from indexer.parse.pdf_layers import fill_from_text_layer, read_font_sizes


def _page(path: Path, rotation: int = 0, crop: tuple[float, float, float, float] | None = None) -> Path:
    """A heading in 24 pt over a line in 10 pt, the page turned and cut as asked."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=24)
    pdf.set_xy(30, 60)
    pdf.cell(0, 12, "Annual Review")
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(30, 90)
    pdf.cell(0, 6, "Revenue grew in every region this year")
    pdf.output(str(path))
    doc = pdfium.PdfDocument(str(path))
    page = doc[0]
    page.set_rotation(rotation)
    if crop:
        page.set_cropbox(*crop)
    page.close()
    doc.save(str(path))
    doc.close()
    return path


def _shown_items(path: Path) -> list[Item]:
    """The page's two lines as MinerU would give them: boxes in 0–1000 units of the page as shown,
    placed by PDFium's own mapping of page points to the device (not by `PageFrame`)."""
    doc = pdfium.PdfDocument(str(path))
    page = doc[0]
    textpage = page.get_textpage()
    items: list[Item] = []
    for k in range(textpage.count_rects()):
        rect = textpage.get_rect(k)
        corners = []
        for x, y in ((rect[0], rect[1]), (rect[2], rect[3])):
            across, down = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, UNITS, UNITS, 0, x, y, ctypes.byref(across), ctypes.byref(down))
            corners.append((across.value, down.value))
        (x0, y0), (x1, y1) = corners
        text = textpage.get_text_bounded(*rect).strip()
        items.append(
            {"type": "text", "page_idx": 0, "text": text, "bbox": [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]}
        )
    textpage.close()
    page.close()
    doc.close()
    return items


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_the_frame_places_points_where_pdfium_shows_them(tmp_path: Path, rotation: int) -> None:
    path = _page(tmp_path / "page.pdf", rotation=rotation, crop=(40, 60, 500, 780))
    doc = pdfium.PdfDocument(str(path))
    page = doc[0]
    frame = PageFrame.of(page)
    for x, y in ((50.0, 70.0), (480.0, 700.0), (250.0, 400.0)):
        across, down = ctypes.c_int(), ctypes.c_int()
        pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, UNITS, UNITS, 0, x, y, ctypes.byref(across), ctypes.byref(down))
        shown = frame.to_display(x, y)
        assert abs(shown[0] - across.value) <= 1 and abs(shown[1] - down.value) <= 1
        assert frame.to_page(*shown) == pytest.approx((x, y))
    page.close()
    doc.close()


@pytest.mark.parametrize(
    ("rotation", "crop"), [(90, None), (270, None), (0, (100, 150, 560, 800)), (180, (100, 150, 560, 800))]
)
def test_type_sizes_are_read_on_a_turned_or_cropped_page(
    tmp_path: Path, rotation: int, crop: tuple[float, float, float, float] | None
) -> None:
    """Read as on an upright page cut at (0, 0), every look-up missed: the heading had no size and
    read as body text (a landscape form, a journal's page cut from a larger sheet)."""
    path = _page(tmp_path / "page.pdf", rotation=rotation, crop=crop)
    items = _shown_items(path)
    read_font_sizes(str(path), items)
    sizes = {it["text"]: it.get("font_size") for it in items}
    assert sizes == {"Annual Review": 24.0, "Revenue grew in every region this year": 10.0}


def test_text_in_a_box_is_read_on_a_turned_page(tmp_path: Path) -> None:
    path = _page(tmp_path / "page.pdf", rotation=90)
    heading = next(it for it in _shown_items(path) if it["text"] == "Annual Review")
    items: list[Item] = [{"type": "image", "page_idx": 0, "bbox": heading["bbox"]}]
    fill_from_text_layer(str(path), items)
    assert items[0]["text_layer"] == "Annual Review"


def test_a_page_drawn_in_an_upside_down_media_box_reads_its_sizes(tmp_path: Path) -> None:
    """A media box whose top is below its bottom ([0 0 612 -792], the page drawn at negative heights)."""
    path = tmp_path / "page.pdf"
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=24)
    pdf.set_xy(30, 60)
    pdf.cell(0, 12, "Annual Review")
    pdf.output(str(path))
    doc = pdfium.PdfDocument(str(path))
    page = doc[0]
    width, height = page.get_size()
    page.set_mediabox(0, 0, width, -height)
    # the text moved with it: drawn at negative heights, as such files draw it
    for obj in page.get_objects():
        obj.transform(pdfium.PdfMatrix().translate(0, -height))
    page.gen_content()
    page.close()
    doc.save(str(path))
    doc.close()
    items = _shown_items(path)
    assert items and all(0 <= v <= UNITS for it in items for v in it["bbox"])
    read_font_sizes(str(path), items)
    assert [it.get("font_size") for it in items] == [24.0]


def test_a_line_low_in_a_tall_box_has_its_size_read(tmp_path: Path) -> None:
    """A box that holds more than its line (a logo over a word): the line is looked for down the box."""
    path = _page(tmp_path / "page.pdf")
    heading = next(it for it in _shown_items(path) if it["text"] == "Annual Review")
    x0, y0, x1, y1 = heading["bbox"]
    tall: Item = {"type": "text", "page_idx": 0, "text": "Annual Review", "bbox": [x0, max(0, y0 - 60), x1, y1]}
    read_font_sizes(str(path), [tall])
    assert tall.get("font_size") == 24.0
