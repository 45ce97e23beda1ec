"""A PDF page's items read again from its text layer where flash's reading of the page is wrong.

Two kinds of page flash misreads, each told by evidence on the page (position, never a
phrase): margin line numbers (`margins`) and an item read across columns (`columns`). The
affected items are read again from the text layer (`pdf_layers`), in the parser's child, after
MinerU (and on a parse cached by an earlier version, without it). A page with none of them is left
exactly as flash read it; the cheap tests on its items come first, so that the text layer is read
only on pages that may need it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexer.models import Item
from indexer.parse.columns import EDGE_TYPES, SIDE_ITEMS, split_across_columns
from indexer.parse.margins import MIN_LINES, strip_line_numbers
from indexer.parse.pdf_layers import PageWord, page_word_boxes

_SMALL_NUMBER = re.compile(r"(?<!\S)\d{1,2}(?!\S)")


def repair_pages(path: str, items: list[Item]) -> list[Item]:
    """The items with every page that needs it read again (module docstring); the same list when none does."""
    import pypdfium2 as pdfium

    by_page: dict[int, list[Item]] = {}
    for item in items:
        by_page.setdefault(int(item.get("page_idx", 0)), []).append(item)
    changed = False
    pdf = pdfium.PdfDocument(path)
    try:
        for index, page_items in by_page.items():
            if not 0 <= index < len(pdf):
                continue
            page = pdf[index]
            try:
                repaired = _repair_page(page, page_items)
            finally:
                page.close()
            if repaired is not None:
                by_page[index] = repaired
                changed = True
    finally:
        pdf.close()
    return [it for page_items in by_page.values() for it in page_items] if changed else items


def _repair_page(page: object, items: list[Item]) -> list[Item] | None:
    words: list[PageWord] | None = None

    def read() -> list[PageWord]:
        nonlocal words
        if words is None:
            words = page_word_boxes(page)
        return words

    out, changed = items, False
    steps: list[tuple[Callable[[list[Item]], bool], Callable[[list[Item]], list[Item] | None]]] = [
        (_may_have_line_numbers, lambda its: strip_line_numbers(its, read())),
        (_may_cross_columns, lambda its: split_across_columns(its, read())),
    ]
    for may, step in steps:
        if may(out) and (repaired := step(out)) is not None:
            out, changed = repaired, True
    return out if changed else None


def _may_have_line_numbers(items: list[Item]) -> bool:
    """At least MIN_LINES small whole numbers in the page's text, "1" among them."""
    numbers = [n for it in items for n in _SMALL_NUMBER.findall(str(it.get("text", "")))]
    return len(numbers) >= MIN_LINES and "1" in numbers


def _may_cross_columns(items: list[Item]) -> bool:
    """A text item spans a band that every other item of the page keeps clear of, with items on both sides."""
    body = [it["bbox"] for it in items if it.get("bbox") and it.get("type") not in EDGE_TYPES]
    for item in items:
        box = item.get("bbox")
        if item.get("type") != "text" or not box:
            continue
        others = [b for b in body if b is not box]
        edges = sorted({b[2] for b in others if box[0] < b[2] < box[2]})
        for edge in edges:  # a gutter would open just right of some column's right edge
            crossing = any(b[0] < edge - 1 and b[2] > edge + 1 for b in others)
            if (
                not crossing
                and sum(b[2] <= edge + 1 for b in others) >= SIDE_ITEMS
                and sum(b[0] >= edge for b in others) >= SIDE_ITEMS
            ):
                return True
    return False
