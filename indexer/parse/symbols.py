"""A symbol font's glyphs read as what they draw: a form's boxes and ticks, a list's bullets.

Wingdings draws pictures where a text font has letters, and a PDF that embeds it without saying
which character each picture is gives its text layer the letters: a 10-K's cover reads "Yes x
No ¨" (☒ ☐), "YES ý NO o" (☒ ☐), "Yes þ No o" (☑ ☐); a list's bullets read "§" or "Ø" (or, with
a map to Unicode that knows no better, private-use characters `hygiene` would drop). The font's
name says which letters are pictures, so each such glyph that stands as a word of its own
in an item's text is put back as the character it draws (what a reader sees on the page), and
`indexer.structure.forms` can read the answer.

Read from the page's text layer (pdfium): the font of each character that could be such a
glyph, its position, and the item whose box holds it. Only Wingdings (its mapping is fixed; a
font known only by an embedded alias like "F3" says nothing of what it draws).
"""

from __future__ import annotations

import ctypes
import re
from collections import Counter

from indexer.models import Item
from indexer.parse.page_frame import PageFrame

# Wingdings' letters that draw a box, a tick or a bullet, as the characters they draw.
WINGDINGS: dict[str, str] = {
    "o": "☐",  # a white square: a form's empty box
    "¨": "☐",  # a white medium square: a form's empty box
    "x": "☒",  # a box with an X: ticked
    "ý": "☒",
    "þ": "☑",  # a box with a tick
    "ü": "✓",
    "û": "✗",
    "q": "❑",
    "n": "■",
    "l": "●",
    "§": "▪",
    "Ø": "➢",
    "v": "❖",
}
# With a ToUnicode map that knows no better, the same glyphs read as private-use characters, U+F000
# plus the letter (which `hygiene` would drop as unreadable).
GLYPHS = {**WINGDINGS, **{chr(0xF000 + ord(letter)): drawn for letter, drawn in WINGDINGS.items()}}
_FONT_RE = re.compile(r"wingdings(?![ -]?[23])", re.I)  # Wingdings 2 and 3 draw other pictures
# A candidate standing as a word of its own: no letter or digit touches it.
_GLYPH_RE = re.compile(rf"(?<![^\W_])[{re.escape(''.join(GLYPHS))}](?![^\W_])")
_TEXT_TYPES = ("text", "header", "list", "table")


def read_symbol_glyphs(path: str, items: list[Item]) -> int:
    """Each item's symbol-font glyphs put back as what they draw; how many were."""
    import pypdfium2 as pdfium

    by_page: dict[int, list[Item]] = {}
    for item in items:
        if item.get("type") in _TEXT_TYPES and item.get("bbox") and _GLYPH_RE.search(_text(item)):
            by_page.setdefault(int(item.get("page_idx", 0)), []).append(item)
    if not by_page:
        return 0
    mended = 0
    pdf = pdfium.PdfDocument(path)
    try:
        for page_idx, page_items in by_page.items():
            page = pdf[page_idx]
            try:
                glyphs = _page_glyphs(page)
            finally:
                page.close()
            for item in page_items:
                mended += _mend(item, glyphs)
    finally:
        pdf.close()
    return mended


def _page_glyphs(page: object) -> list[tuple[str, float, float, bool]]:
    """The characters of a page that could be Wingdings glyphs standing as words, in reading order:
    each with its middle (0–1000 units from the top left, as the items' boxes) and whether the
    font that draws it is Wingdings."""
    import pypdfium2.raw as pdfium_c

    frame = PageFrame.of(page)
    textpage = page.get_textpage()  # type: ignore[attr-defined]
    found: list[tuple[str, float, float, bool]] = []
    try:
        text = textpage.get_text_range()
        count = textpage.count_chars()
        for match in _GLYPH_RE.finditer(text):
            index = match.start()  # one UTF-16 unit a character: a letter outside the BMP shifts the rest
            if index >= count or pdfium_c.FPDFText_GetUnicode(textpage.raw, index) != ord(match.group(0)):
                continue
            name = ctypes.create_string_buffer(128)
            flags = ctypes.c_int()
            pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, name, 128, ctypes.byref(flags))
            left, right, bottom, top = (ctypes.c_double() for _ in range(4))
            pdfium_c.FPDFText_GetCharBox(
                textpage.raw, index, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top)
            )
            x, y = frame.to_display((left.value + right.value) / 2, (bottom.value + top.value) / 2)
            found.append((match.group(0), x, y, bool(_FONT_RE.search(name.value.decode("latin-1")))))
    finally:
        textpage.close()
    return found


def _mend(item: Item, glyphs: list[tuple[str, float, float, bool]]) -> int:
    """The Wingdings glyphs inside the item's box put back in its text. The candidates the item's
    text holds as words are matched to the page's in order; where the two do not match one for
    one, a letter is put back only where every one of it inside the box is a glyph ("2 x 3" beside
    a Wingdings "x" leaves both as they are)."""
    x0, y0, x1, y1 = item["bbox"]
    inside = [(letter, drawn) for letter, x, y, drawn in glyphs if x0 - 2 <= x <= x1 + 2 and y0 - 2 <= y <= y1 + 2]
    if not any(drawn for _, drawn in inside):
        return 0
    key = _text_key(item)
    text = str(item.get(key) or "")
    written = list(_GLYPH_RE.finditer(text))
    if [m.group(0) for m in written] == [letter for letter, _ in inside]:
        chosen = [m for m, (_, drawn) in zip(written, inside, strict=True) if drawn]
    else:
        mixed = {letter for letter, drawn in inside if not drawn}
        drawn_count = Counter(letter for letter, drawn in inside if drawn)
        written_count = Counter(m.group(0) for m in written)
        letters = {k for k, n in drawn_count.items() if k not in mixed and written_count[k] == n}
        chosen = [m for m in written if m.group(0) in letters]
    if not chosen:
        return 0
    out: list[str] = []
    last = 0
    for m in chosen:
        out += [text[last : m.start()], GLYPHS[m.group(0)]]
        last = m.end()
    item[key] = "".join(out) + text[last:]  # type: ignore[literal-required]
    return len(chosen)


def _text_key(item: Item) -> str:
    """Where an item keeps its words: its text, a table's HTML, or a picture's text layer."""
    return "text" if item.get("text") else "table_body" if item.get("table_body") else "text_layer"


def _text(item: Item) -> str:
    return str(item.get(_text_key(item)) or "")
