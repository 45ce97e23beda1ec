"""PDF pages whose words flash loses: the text layer holds them, flash returns next to nothing (a
TeX file's Type 3 fonts, a printed e-mail's layers), so the page would be neither searchable nor
able to name its document. Such a page is read from the text layer instead: its words in the
lines they are printed on, lines joined into blocks by their spacing, blocks in reading order
(a column at a time between the full-width blocks). Told by evidence on the page only (how many
of its characters flash returned), never by what the words say.
"""

from __future__ import annotations

from collections.abc import Collection

from indexer.models import Item
from indexer.parse.pdf_layers import PageWord, join_lines, lines_of, page_chars, page_word_boxes, union_box

LOST_MIN_CHARS = 200  # a page whose text layer holds fewer characters (a stamp, a caption) is judged by nothing
LOST_SHARE = 0.2  # … and whose items hold less than this share of them has lost its text
TEXT_TYPES = ("text", "header", "footer", "page_number", "page_footnote", "list", "title")
WORD_GAP = 1.5  # a gap between two words wider than this many line heights parts a line into two blocks
LINE_GAP = 0.9  # a line joins the block above when the space between them is under this many line heights
SIZE_CHANGE = 1.3  # … and neither line's height is this many times the other's (a title over its text)
MIDDLE = 500  # the page's middle (0–1000 units): a block on one side of it is a column's


def _chars(text: str) -> int:
    return sum(not c.isspace() for c in text)


def _item_chars(item: Item) -> int:
    parts = [str(item.get(k) or "") for k in ("text", "content", "text_layer", "table_body", "latex", "code_body")]
    return _chars(" ".join(parts + list(item.get("list_items") or [])))


def lost_pages(path: str, items: list[Item], skip: Collection[int] = ()) -> list[int]:
    """0-based pages whose text layer holds at least LOST_MIN_CHARS characters, of which the
    parser's items hold less than LOST_SHARE; never one in `skip` (a text layer that is not text,
    which OCR reads instead)."""
    import pypdfium2 as pdfium

    held: dict[int, int] = {}
    for item in items:
        page = int(item.get("page_idx", 0))
        held[page] = held.get(page, 0) + _item_chars(item)
    pdf = pdfium.PdfDocument(path)
    lost: list[int] = []
    try:
        for index in range(len(pdf)):
            layer = len(page_chars(pdf, index))
            if layer >= LOST_MIN_CHARS and held.get(index, 0) < LOST_SHARE * layer and index not in skip:
                lost.append(index)
    finally:
        pdf.close()
    return lost


def read_lost_pages(path: str, items: list[Item], pages: list[int]) -> list[Item]:
    """The items with each of `pages` read from its text layer (`page_blocks`): the page's text
    items give way to the blocks; its pictures and tables stay."""
    if not pages:
        return items
    import pypdfium2 as pdfium

    found: list[Item] = []
    pdf = pdfium.PdfDocument(path)
    try:
        for index in pages:
            page = pdf[index]
            try:
                words = [w for w in page_word_boxes(page) if _on_page(w)]
            finally:
                page.close()
            blocks = page_blocks(words)
            found.extend({"type": "text", "text": text, "bbox": box, "page_idx": index} for text, box in blocks)
    finally:
        pdf.close()
    read = {it["page_idx"] for it in found}
    kept = [it for it in items if not (it.get("page_idx") in read and it.get("type") in TEXT_TYPES)]
    # (stable: a page's items keep their order, its new blocks after the pictures and tables it kept)
    return sorted(kept + found, key=lambda it: int(it.get("page_idx", 0)))


def _on_page(word: PageWord) -> bool:
    """A word the page shows: the text layer also holds words outside the page's box."""
    x, y = word.middle
    return 0 <= x <= 1000 and 0 <= y <= 1000


def page_blocks(words: list[PageWord]) -> list[tuple[str, list[int]]]:
    """A page's words as blocks of text with their boxes, in reading order."""
    pieces = [piece for line in lines_of(words) for piece in _pieces(line)]
    blocks: list[list[list[PageWord]]] = []
    for piece in pieces:  # top to bottom: a piece joins the block it continues, else opens one
        home = next((b for b in reversed(blocks) if _continues(b[-1], piece)), None)
        if home is None:
            blocks.append([piece])
        else:
            home.append(piece)
    return [(join_lines(block), union_box([w for line in block for w in line])) for block in _in_reading_order(blocks)]


def _pieces(line: list[PageWord]) -> list[list[PageWord]]:
    """A printed line parted where a gap between words is wider than WORD_GAP line heights (two
    columns, a label and its value far apart)."""
    height = _height(line)
    pieces = [[line[0]]]
    for word in line[1:]:
        if word.x0 - pieces[-1][-1].x1 > WORD_GAP * height:
            pieces.append([word])
        else:
            pieces[-1].append(word)
    return pieces


def _height(line: list[PageWord]) -> float:
    return max([w.y1 - w.y0 for w in line] + [0.1])


def _continues(above: list[PageWord], line: list[PageWord]) -> bool:
    """Whether `line` goes on from `above`: right under it, set alike, the two sharing part of their width."""
    top, bottom = min(w.y0 for w in line), max(w.y1 for w in above)
    high, low = max(_height(above), _height(line)), min(_height(above), _height(line))
    left, right = max(above[0].x0, line[0].x0), min(above[-1].x1, line[-1].x1)
    return -0.5 * low <= top - bottom <= LINE_GAP * low and high <= SIZE_CHANGE * low and left < right


def _in_reading_order(blocks: list[list[list[PageWord]]]) -> list[list[list[PageWord]]]:
    """Top to bottom, a column at a time: between two blocks that span the page's middle, the left
    column's blocks, then the right's."""

    def box(block: list[list[PageWord]]) -> list[int]:
        return union_box([w for line in block for w in line])

    ordered: list[list[list[PageWord]]] = []
    left: list[list[list[PageWord]]] = []
    right: list[list[list[PageWord]]] = []
    for block in sorted(blocks, key=lambda b: box(b)[1]):
        x0, _, x1, _ = box(block)
        if x1 <= MIDDLE + 20:
            left.append(block)
        elif x0 >= MIDDLE - 20:
            right.append(block)
        else:  # across the middle: the columns above it end here
            ordered.extend(left + right)
            left, right = [], []
            ordered.append(block)
    return ordered + left + right
