"""Pages too heavy for the layout parser: one page never costs its document.

A detailed vector map, a chart exported from a plotting tool or a CAD drawing can hold a
hundred thousand path objects on one page, where a page of text holds tens to hundreds.
MinerU reads every object of such a page (tens of seconds, and on real maps more memory than
the parser's ceiling), and a failure fails the whole document. So a PDF's pages are counted
first (`heavy_pages`: pdfium loads a page of 200,000 objects in about 0.2 s); MinerU parses a
copy without the heavy ones (`without_pages`), its page numbers mapped back; each heavy page
is then read the simple way (`simple_items`): its text layer as paragraphs on its page, and
the page itself as a figure that hosts that see can ask for. A heavy page with no text layer
is read by OCR like any page without one (`mineru_worker.read_blank_pages`). The document's
warnings say which pages were read this way and why, and the map shows them.
"""

from __future__ import annotations

import os

from indexer.models import Item

HEAVY_PAGE_OBJECTS = 20_000  # a page of text holds tens to hundreds; a dense chart a few thousand
PARAGRAPH_WORDS = 120  # a heavy page's text layer is cut into paragraphs of about this many words


def heavy_pages(path: str, limit: int = HEAVY_PAGE_OBJECTS) -> dict[int, int]:
    """0-based index → object count of the pages holding more than `limit` objects (0: none are heavy)."""
    if limit <= 0:
        return {}
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(path)
    try:
        found = {}
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                count = pdfium_c.FPDFPage_CountObjects(page.raw)
            finally:
                page.close()
            if count > limit:
                found[index] = count
        return found
    finally:
        pdf.close()


def without_pages(path: str, left_out: set[int], target: str) -> list[int]:
    """Write a copy of the PDF without `left_out` pages to `target`; returns, for each page of
    the copy, its 0-based index in the original."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(path)
    copy = pdfium.PdfDocument.new()
    try:
        kept = [i for i in range(len(source)) if i not in left_out]
        copy.import_pages(source, kept)
        part = f"{target}.{os.getpid()}.part"
        with open(part, "wb") as out:
            copy.save(out)
        os.replace(part, target)
        return kept
    finally:
        copy.close()
        source.close()


def simple_items(path: str, heavy: dict[int, int]) -> list[Item]:
    """Content-list items for the heavy pages: the text layer's lines in paragraphs of about
    PARAGRAPH_WORDS words (a map's labels, a drawing's notes), then the page as a figure."""
    import pypdfium2 as pdfium

    items: list[Item] = []
    pdf = pdfium.PdfDocument(path)
    try:
        for index, count in sorted(heavy.items()):
            page = pdf[index]
            textpage = page.get_textpage()
            try:
                lines = [line.strip() for line in textpage.get_text_range().splitlines()]
            finally:
                textpage.close()
                page.close()
            paragraph: list[str] = []
            for line in [*[x for x in lines if x], None]:
                if line is not None:
                    paragraph.append(line)
                if paragraph and (line is None or sum(len(x.split()) for x in paragraph) >= PARAGRAPH_WORDS):
                    items.append({"type": "text", "text": " ".join(paragraph), "page_idx": index})
                    paragraph = []
            items.append(
                {
                    "type": "image",
                    "page_idx": index,
                    "bbox": [0, 0, 1000, 1000],
                    "image_caption": [f"Page {index + 1}: a drawing of {count:,} objects, shown as an image"],
                }
            )
        return items
    finally:
        pdf.close()


def heavy_warning(heavy: dict[int, int], limit: int) -> str:
    pages = ", ".join(str(i + 1) for i in sorted(heavy))
    most = max(heavy.values())
    return (
        f"page{'s' if len(heavy) > 1 else ''} {pages} read from the text layer only (up to {most:,} drawing "
        f"objects on a page, over the {limit:,} the layout parser takes): no headings or tables "
        "recovered there; the page image is its figure"
    )
