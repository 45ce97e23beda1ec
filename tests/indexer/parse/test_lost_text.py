"""A page whose words the layout parser lost (a TeX file's Type 3 fonts, a printed e-mail's layers)
read from the real text layer (pypdfium2): found by how few of its characters the items hold, and
read in blocks, a column at a time, the title apart from the text under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.parse.lost_text import lost_pages, read_lost_pages
from tests.conftest import BENCH

LEFT = ["the agency proposes to inspect", "the wiring and to replace any", "damaged part before the flight"]
RIGHT = ["results are reported to the", "manufacturer within thirty days", "of the inspection of the part"]


def two_pages(path: Path) -> None:
    """Page 1: a title, a byline, then two columns of three lines; page 2: a line of text."""
    pdf = FPDF(format="letter", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 22)
    pdf.set_xy(72, 60)
    pdf.cell(468, 28, "Heavy Mesons In A Relativistic Model", align="C")
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(72, 100)
    pdf.cell(468, 14, "J. Zeng and W. Roberts", align="C")
    pdf.set_font("Times", size=10)
    for column, lines in ((72.0, LEFT), (320.0, RIGHT)):
        for row, line in enumerate(lines):
            pdf.set_xy(column, 160 + 12 * row)
            pdf.cell(220, 12, line)
    pdf.add_page()
    pdf.set_font("Times", size=10)
    pdf.set_xy(72, 72)
    pdf.cell(400, 12, "The second page is read by the parser as it is printed, word for word.")
    pdf.output(str(path))


def test_a_page_whose_words_the_parser_lost_is_read_from_its_text_layer(tmp_path: Path) -> None:
    path = tmp_path / "lost.pdf"
    two_pages(path)
    second = {"type": "text", "text": "The second page is read by the parser as it is printed, word for word.",
              "page_idx": 1, "bbox": [117, 90, 700, 106]}  # fmt: skip
    picture = {"type": "image", "page_idx": 0, "bbox": [100, 400, 400, 600]}
    stray = {"type": "text", "text": "P", "page_idx": 0, "bbox": [500, 500, 510, 510]}  # all flash kept of it
    items = [picture, stray, second]
    assert lost_pages(str(path), items) == [0]  # the second page's words are in its items

    read = read_lost_pages(str(path), items, [0])
    page = [it for it in read if it["page_idx"] == 0]
    assert picture in page and stray not in page  # the page's pictures stay; its scraps give way
    texts = [it["text"] for it in page if it["type"] == "text"]
    assert texts == [
        "Heavy Mesons In A Relativistic Model",  # set larger: a block of its own
        "J. Zeng and W. Roberts",
        " ".join(LEFT),  # the left column whole, then the right
        " ".join(RIGHT),
    ]
    title = next(it for it in page if it.get("text", "").startswith("Heavy"))
    assert 60 <= title["bbox"][1] <= 120 and title["bbox"][0] < 500 < title["bbox"][2]  # where the page prints it
    assert [it for it in read if it["page_idx"] == 1] == [second]  # a page read whole is left as it is


def test_a_page_with_few_words_in_its_text_layer_is_never_lost(tmp_path: Path) -> None:
    pdf = FPDF(format="letter", unit="pt")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(200, 14, "Exhibit 12")  # a stamp's or a caption's few words: judged by nothing
    pdf.output(str(tmp_path / "stamp.pdf"))
    assert lost_pages(str(tmp_path / "stamp.pdf"), []) == []


GARBLED = BENCH / "mmlongbench" / "pdfs" / "afe620b9beac86c1027b96d31d396407.pdf"  # a font whose codes map to nothing


@pytest.mark.skipif(not GARBLED.exists(), reason="needs ../shared/bench")
def test_a_page_whose_text_layer_is_not_text_is_never_read_from_it(tmp_path: Path) -> None:
    """Its pages hold thousands of the text layer's characters and flash kept none: they are left
    to OCR (`read_garbled_pages`), never read from a layer of control characters."""
    import pypdfium2 as pdfium

    from indexer.parse.mineru_worker import _read_lost_pages
    from indexer.parse.pdf_layers import pages_by_text_layer

    source = pdfium.PdfDocument(GARBLED)
    pages = pdfium.PdfDocument.new()
    pages.import_pages(source, [0, 1])
    path = tmp_path / "report.pdf"
    pages.save(str(path))
    assert lost_pages(str(path), []) == [0, 1]  # by its characters' count alone, lost
    warnings: list[str] = []
    garbled = pages_by_text_layer(str(path))[1]
    assert garbled == [0, 1] and _read_lost_pages(str(path), [], garbled, warnings) == [] and warnings == []
