"""What a PDF says about itself, read with pypdfium2 in the parser's child: whether it opens,
which pages have a text layer, its outline, the text inside a box, and type sizes.

MinerU's flash tier reads a PDF's text but not these: a scan looks like empty pictures, every
heading is level 2, and some tables come out as boxes without text. Each reader here is cheap
(no layout model) and fills in what flash leaves out (`indexer.parse.mineru_worker`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from indexer.models import Item
from indexer.parse.page_frame import PageFrame

# A page "has text" with at least this many non-blank characters; a PDF whose first
# pages have none is a scan, which flash would return as empty images.
MIN_PAGE_CHARS = 20
# A scanned page that carries a line of text added after the scan (a court's filing stamp, a Bates
# number, a fax header) has no more than this many characters in its layer, and a picture over at
# least SCAN_COVER of its area: its words are in the picture, read as a scan's.
STAMP_CHARS = 200
SCAN_COVER = 0.6
STAMP_BAND = 0.12  # … and the stamp's text lies in the top or bottom band of this share of the page's height,
ANNOTATION_CHARS = 10  # all but this many characters (a date written on the scan, a struck-out word)
STAMP_LINE = 0.025  # a stamp's line is at most this share of the page's height (11 pt on a letter page)
PROBE_PAGES = 8
FILLABLE = ("equation", "table", "image", "chart")


def check_pdf(path: str) -> tuple[int, str | None, bool]:
    """(page count, reason it cannot be parsed or None, whether it is a scan without a text layer)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            return 0, "encrypted PDF: it needs a password, which the server does not have", False
        if "success" in message.lower():  # PDFium fails to load an empty page tree without an error code
            return 0, "the PDF has no pages (its page tree is empty or broken)", False
        return 0, f"not a readable PDF ({message})", False
    try:
        pages = len(pdf)
        if pages == 0:
            return 0, "the PDF has no pages", False
        scanned = not any(_has_text(pdf, i) for i in range(min(PROBE_PAGES, pages)))
        return pages, None, scanned
    finally:
        pdf.close()


def _has_text(pdf: object, index: int) -> bool:
    """Whether page `index` of an open pypdfium2 document has a text layer."""
    return not _is_scanned(pdf, index, page_chars(pdf, index))


def _is_scanned(pdf: object, index: int, chars: str) -> bool:
    """Whether page `index`, whose text layer holds `chars`, shows its words in a picture: no text
    layer, or only a stamp's line over a picture that covers the page."""
    if len(chars) < MIN_PAGE_CHARS:
        return True
    return len(chars) <= STAMP_CHARS and _in_margins(pdf, index) and _picture_cover(pdf, index) >= SCAN_COVER


def _in_margins(pdf: object, index: int) -> bool:
    """Whether page `index`'s text lies in its top or bottom band (`STAMP_BAND`), a word or a date
    aside: a stamp, not a slide's words over a background picture."""
    page = pdf[index]  # type: ignore[index]
    textpage = page.get_textpage()
    try:
        height = page.get_size()[1]
        band = STAMP_BAND * height
        inside = 0  # characters in the page's body: a scan's annotation at most ("2/2/09")
        for k in range(textpage.count_rects()):
            rect = textpage.get_rect(k)
            if rect[1] < height - band and rect[3] > band:
                inside += len("".join(textpage.get_text_bounded(*rect).split()))
            elif rect[3] - rect[1] > STAMP_LINE * height:
                return False  # type a slide's title is set in, not a stamp's
        return inside <= ANNOTATION_CHARS
    finally:
        textpage.close()
        page.close()


def _picture_cover(pdf: object, index: int) -> float:
    """The share of page `index`'s area under its largest picture."""
    import pypdfium2.raw as pdfium_c

    page = pdf[index]  # type: ignore[index]
    try:
        width, height = page.get_size()
        largest = 0.0
        for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3):
            left, bottom, right, top = obj.get_bounds()
            w = max(0.0, min(right, width) - max(left, 0.0))
            h = max(0.0, min(top, height) - max(bottom, 0.0))
            largest = max(largest, w * h)
        return largest / (width * height) if width and height else 0.0
    finally:
        page.close()


def page_chars(pdf: object, index: int) -> str:
    """The characters of page `index`'s text layer, spaces aside (an open pypdfium2 document)."""
    page = pdf[index]  # type: ignore[index]
    textpage = page.get_textpage()
    try:
        return "".join(textpage.get_text_range().split())
    finally:
        textpage.close()
        page.close()


def read_outline(path: str, warnings: list[str]) -> list[dict]:
    """The PDF's bookmarks: title, level (1 = top) and 1-based target page."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        entries = []
        for item in pdf.get_toc():
            title = (item.get_title() or "").strip()
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            if title:
                entries.append(
                    {"title": title, "level": item.level + 1, "page": page + 1 if page is not None else None}
                )
        return entries
    except Exception as exc:  # a broken outline is no reason to fail the document
        warnings.append(f"the PDF's outline could not be read ({type(exc).__name__}); heading depth guessed")
        return []
    finally:
        pdf.close()


def fill_from_text_layer(path: str, items: list[Item]) -> None:
    """flash emits some tables as `equation` items without text, and pictures whose words are in
    the text layer: read their text from the PDF's text layer inside the item's box (bbox is in
    0–1000 page units), whole words only (`words_in_box`)."""
    todo = [
        it
        for it in items
        if it.get("type") in FILLABLE
        and it.get("bbox")
        and not (it.get("text") or it.get("table_body") or it.get("content"))
    ]
    if not todo:
        return
    import pypdfium2 as pdfium

    by_page: dict[int, list[Item]] = {}
    for it in todo:
        by_page.setdefault(int(it["page_idx"]), []).append(it)
    pdf = pdfium.PdfDocument(path)
    try:
        for page_idx, page_items in by_page.items():
            page = pdf[page_idx]
            frame = PageFrame.of(page)
            textpage = page.get_textpage()
            words = page_words(textpage)
            textpage.close()
            page.close()
            for it in page_items:
                text = words_in_box(words, frame.box_to_page(it["bbox"]))
                if text:
                    it["type"] = "table" if it["type"] == "equation" else it["type"]
                    it["text_layer"] = text
    finally:
        pdf.close()


def refill_text_layer(path: str, items: list[Item]) -> None:
    """Read again the text an earlier version read from the text layer inside items' boxes."""
    for it in items:
        it.pop("text_layer", None)
    fill_from_text_layer(path, items)


# A word of the text layer: its text, the middle of its box (points, from the bottom left), and
# whether it starts a line.
Word = tuple[str, float, float, bool]


def page_words(textpage: object) -> list[Word]:
    """The words of a page's text layer in reading order, each with the middle of its box. A word
    starts a line after a line break in the text, or when it shares less than half its height with
    the word before, or starts left of it."""
    return [(text, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, starts) for text, box, starts in _words(textpage)]


def _words(textpage: object) -> list[tuple[str, tuple[float, float, float, float], bool]]:
    """The words of a page's text layer in reading order: text, box (left, bottom, right, top in
    points from the bottom left) and whether it starts a line (`page_words`)."""
    import pypdfium2.raw as pdfium_c

    raw = textpage.raw  # type: ignore[attr-defined]
    words: list[tuple[str, tuple[float, float, float, float], bool]] = []
    chars: list[str] = []
    boxes: list[tuple[float, float, float, float]] = []
    broken = False
    last: tuple[float, float, float] | None = None  # the previous word's right edge, bottom and top

    def close() -> None:
        nonlocal broken, last
        if chars:
            left, bottom = min(b[0] for b in boxes), min(b[1] for b in boxes)
            right, top = max(b[2] for b in boxes), max(b[3] for b in boxes)
            # On the line of the word before: half the shorter one's height shared, and not left of it.
            if last is not None:
                shared = min(top, last[2]) - max(bottom, last[1])
                broken = broken or shared < min(top - bottom, last[2] - last[1]) / 2 or left < last[0] - (top - bottom)
            words.append(("".join(chars), (left, bottom, right, top), broken and bool(words)))
            last = (right, bottom, top)
            chars.clear()
            boxes.clear()
            broken = False

    for i in range(pdfium_c.FPDFText_CountChars(raw)):
        char = chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32)
        if char.isspace() or not char.isprintable():
            close()
            broken = broken or char in "\r\n"
            continue
        chars.append(char)
        boxes.append(textpage.get_charbox(i))  # type: ignore[attr-defined]
    close()
    return words


@dataclass
class PageWord:
    """A word of a page's text layer in the items' units: 0–1000 of the page's width and height,
    from the top left (a MinerU item's `bbox`)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def middle(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


def page_word_boxes(page: object) -> list[PageWord]:
    """The words of an open pypdfium2 page with their boxes in the items' units (`PageWord`)."""
    frame = PageFrame.of(page)
    textpage = page.get_textpage()  # type: ignore[attr-defined]
    try:
        found = _words(textpage)
    finally:
        textpage.close()
    return [PageWord(text, *frame.box_to_display(box)) for text, box, _ in found]


def inside(word: PageWord, box: Sequence[float], margin: float = 1.0) -> bool:
    """Whether the middle of the word lies in the box (0–1000 units), give or take `margin`."""
    x, y = word.middle
    return box[0] - margin <= x <= box[2] + margin and box[1] - margin <= y <= box[3] + margin


def words_of(item: Item, items: list[Item], words: list[PageWord]) -> list[PageWord]:
    """The words an item holds: those in its box that no smaller box of another of the page's items
    holds too (flash's boxes overlap: a centred line inside the box of the paragraph around it)."""
    box = item["bbox"]
    area = _area(box)
    smaller = [b for it in items if it is not item and (b := it.get("bbox")) and _area(b) < area]
    return [w for w in words if inside(w, box) and not any(inside(w, b, margin=0) for b in smaller)]


def _area(box: Sequence[float]) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def lines_of(words: list[PageWord]) -> list[list[PageWord]]:
    """Words grouped into the lines they are printed on, top to bottom, each line left to right: a
    word joins a line when it shares half its height with it (by position, not by the text
    layer's order, which a form or a margin may scramble)."""
    lines: list[list[PageWord]] = []
    spans: list[tuple[float, float]] = []
    for word in sorted(words, key=lambda w: (w.y0 + w.y1) / 2):
        height = max(word.y1 - word.y0, 0.1)
        if spans:
            top, bottom = spans[-1]
            shared = min(bottom, word.y1) - max(top, word.y0)
            if shared >= 0.5 * min(height, max(bottom - top, 0.1)):
                lines[-1].append(word)
                spans[-1] = (min(top, word.y0), max(bottom, word.y1))
                continue
        lines.append([word])
        spans.append((word.y0, word.y1))
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def join_lines(lines: list[list[PageWord]]) -> str:
    """Lines of words as running text: a space between lines, none after a hyphen that breaks a word."""
    out = ""
    for line in lines:
        text = " ".join(w.text for w in line)
        if not out:
            out = text
        elif out.endswith("-") and not out.endswith(" -") and text[:1].islower():
            out += text
        else:
            out += " " + text
    return out


def union_box(words: list[PageWord]) -> list[int]:
    return [
        round(min(w.x0 for w in words)),
        round(min(w.y0 for w in words)),
        round(max(w.x1 for w in words)),
        round(max(w.y1 for w in words)),
    ]


def words_in_box(words: list[Word], box: tuple[float, float, float, float]) -> str:
    """The words whose middle lies in the box (left, bottom, right, top), whole, a line each line:
    pdfium's bounded text cuts a word the box's edge crosses ("Quarterly re", ",369)" for "($4,369)")."""
    left, bottom, right, top = box
    out = ""
    for text, x, y, starts_line in words:
        if left <= x <= right and bottom <= y <= top:
            out += ("\n" if starts_line else " ") + text if out else text
    return out


PROBE_STEP, PROBE_ROWS = 6, 12  # a line's size is looked for every 6 units down its box: 12 more rows at most


def read_font_sizes(path: str, items: list[Item], skip: Collection[int] = ()) -> None:
    """Set `font_size` (points, to the half point) on each text line from the PDF's text layer:
    flash marks every heading level 2, so size is what tells a chapter from a subsection,
    and a "heading" smaller than the body text from a real one. The size is read where the
    item's first line is (three points along it, lower in the box when large type puts it there),
    not averaged over a whole paragraph, where the page shows it (`PageFrame`: a turned or cropped
    page). Pages in `skip` (read by OCR) keep theirs. A font set at 1 pt under a scaled matrix
    reads 1.0, which the readers of sizes take for unknown (its printed size, read instead, moved
    the Federal Register's headings under one another and cost whole-folder landing 1.7 points)."""
    import statistics

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    by_page: dict[int, list[Item]] = {}
    for it in items:
        if it.get("type") in ("text", "header") and it.get("bbox") and int(it["page_idx"]) not in skip:
            by_page.setdefault(int(it["page_idx"]), []).append(it)
    pdf = pdfium.PdfDocument(path)
    try:
        for page_idx, page_items in by_page.items():
            page = pdf[page_idx]
            frame = PageFrame.of(page)
            textpage = page.get_textpage()
            for it in page_items:
                it.pop("font_size", None)  # an earlier version's reading (`mineru_worker.run_upgrade`)
                x0, y0, x1, y1 = it["bbox"]
                sizes: list[float] = []
                # The first line's middle; in large type (a cover's title), or under a picture the
                # box holds too, it lies lower in the box: read down it until a character is met.
                downs = [y0 + min(6, (y1 - y0) / 2), *(y0 + k * PROBE_STEP for k in range(2, PROBE_ROWS + 2))]
                for down in [d for d in downs if d < y1]:
                    for share in (0.05, 0.25, 0.5):
                        x, y = frame.to_page(x0 + share * (x1 - x0), down)
                        index = pdfium_c.FPDFText_GetCharIndexAtPos(textpage.raw, x, y, 4.0, 4.0)
                        if index >= 0:
                            sizes.append(pdfium_c.FPDFText_GetFontSize(textpage.raw, index))
                    if sizes:
                        break
                if sizes:
                    it["font_size"] = round(statistics.median(sizes) * 2) / 2
            textpage.close()
            page.close()
    finally:
        pdf.close()


GARBLED_SHARE = 0.3  # of a page's characters, codes that are no characters: its font maps to none
GARBLED_MIN_CHARS = 100  # a page with fewer characters than this is judged by nothing


def pages_by_text_layer(path: str) -> tuple[list[int], list[int]]:
    """0-based pages with no text layer (or only a stamp's over a scan), and pages whose text layer
    is not text, in one pass: a font whose codes map to no characters gives control characters and
    private-use codes where the letters should be ("\\x01\\x04 \\x05\\x06…"), though the page shows
    words. A leader of replacement characters ("Contents ����� 4") is text."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    blank: list[int] = []
    garbled: list[int] = []
    try:
        for index in range(len(pdf)):
            chars = page_chars(pdf, index)
            odd = sum(1 for c in chars if ord(c) < 32 or "\ue000" <= c <= "\uf8ff")
            if _is_scanned(pdf, index, chars):
                blank.append(index)
            elif len(chars) >= GARBLED_MIN_CHARS and odd >= GARBLED_SHARE * len(chars):
                garbled.append(index)
    finally:
        pdf.close()
    return blank, garbled


def stamped_pages(path: str) -> list[int]:
    """0-based scanned pages whose text layer is only a stamp's line (`_is_scanned`), which a parse
    before version 10 kept as a picture."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        return [
            index
            for index in range(len(pdf))
            if len(chars := page_chars(pdf, index)) >= MIN_PAGE_CHARS and _is_scanned(pdf, index, chars)
        ]
    finally:
        pdf.close()


def declared(path: str) -> dict:
    """What the PDF's document information declares, as MinerU reports it for a PDF it reads whole
    (`indexer.models.Declared`): its title, authors, subject and creation date."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        info = pdf.get_metadata_dict()
    finally:
        pdf.close()
    authors = (info.get("Author") or "").strip()
    return {
        "title": (info.get("Title") or "").strip() or None,
        "authors": [authors] if authors else [],
        "subject": (info.get("Subject") or "").strip() or None,
        "created_at": _pdf_date(info.get("CreationDate") or ""),
    }


def _pdf_date(value: str) -> str | None:
    """ "D:20061207105020Z" → "2006-12-07T10:50:20"; None when it is not a PDF date."""
    found = re.match(r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?", value.strip())
    if not found:
        return None
    year, month, day, hour, minute, second = found.groups()
    date = "-".join(p for p in (year, month, day) if p)
    return f"{date}T{hour}:{minute or '00'}:{second or '00'}" if hour else date
