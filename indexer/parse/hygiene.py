"""Text as a reader would accept it: mojibake mended, private-use glyphs read, Markdown escapes gone.

Three faults of extracted text, each mended where text enters (`formats.decode_text` for text
and Markdown files; `repair_items` and `items.clean` for what MinerU reads from PDFs and office
files):

* **Mojibake**: text decoded with the wrong code page, once or twice ("â€™" for "’", an "Â"
  left where a bullet or a no-break space was). ftfy knows the code pages and their round trips
  and mends only what it can prove; it is told to leave alone what is no mojibake: quotes stay
  curly, full-width forms (CJK punctuation) stay full-width, and HTML entities stay as written
  (a Markdown file's "&lt;" means something). A text file that is not UTF-8 is decoded as
  ftfy guesses (`decode_legacy`): Mac Roman when its lines end in CR alone (how classic Mac
  software and Office for Mac save text: its "•" read as Windows-1252 is "¥"), else Windows-1252.
* **Private-use glyphs**: a symbol font (Symbol, Wingdings) maps its bullets, boxes and arrows
  into Unicode's private-use area (Symbol's bullet is U+F0B7), code points no reader's font
  draws. One that opens a line (or a table cell) is a bullet and reads "•"; any other is
  dropped; the symbol fonts' space (U+F020) is a space.
* **Markdown escapes**: MinerU writes the text of PDFs and office files as Markdown, escaping
  the punctuation Markdown would read ("@Name\\_Of\\_Handle", "\\*", "\\$400"). A paragraph
  here is plain text, so the backslashes go (`unescape_markdown`); inline math ($…$) keeps its
  own, and code and equations never pass through here. Markdown files keep their source: an
  escape there is the author's Markdown, which the reader reads as Markdown.
"""

from __future__ import annotations

import re

import ftfy

from indexer.models import Item

# What ftfy mends, and what it must leave as the author wrote it.
_FTFY = ftfy.TextFixerConfig(
    unescape_html=False,  # "&lt;" in a Markdown file, "&amp;" in a table's HTML: not ours to change
    uncurl_quotes=False,  # "’" is the author's apostrophe, not damage
    fix_character_width=False,  # full-width forms are CJK text's own punctuation
    explain=False,
)
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_SYMBOL_SPACE = "\uf020"  # a symbol font's space: U+F000 plus the ASCII space
# A private-use glyph that opens a line or a table cell (after any emphasis), followed by a space: a bullet.
_PRIVATE_BULLET = re.compile(rf"(^|>)([ \t*_]*)[{_PRIVATE}](?=\s)", re.M)
_PRIVATE_GLYPH = re.compile(rf"[{_PRIVATE}]")
_PRIVATE_WORD = re.compile(rf"[ \t]*[{_PRIVATE}]+(?=[ \t]|$)", re.M)  # a glyph between spaces: one space stays
# A backslash before ASCII punctuation (CommonMark's escapes), and inline math whose own backslashes stay.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_INLINE_MATH = re.compile(r"(?<!\\)\$(?!\s)[^$\n]*?\\[^$\n]*?(?<![\s\\])\$")


def repair(text: str) -> str:
    """Mojibake mended and private-use glyphs read ("•") or dropped; ASCII text is returned as is."""
    if text.isascii():
        return text
    text = ftfy.fix_text(text, _FTFY)
    if _PRIVATE_GLYPH.search(text):
        text = _PRIVATE_BULLET.sub(r"\1\2•", text.replace(_SYMBOL_SPACE, " "))
        text = _PRIVATE_GLYPH.sub("", _PRIVATE_WORD.sub("", text))
    return text


def repair_lines(text: str) -> str:
    """`repair` over a whole file, line by line: the lines that are plain ASCII (most of an English
    file) cost a test each, not ftfy's pass."""
    if text.isascii():
        return text
    return "\n".join(repair(line) for line in text.split("\n"))


def decode_legacy(data: bytes) -> str:
    """Bytes that are not UTF-8: Mac Roman when lines end in CR alone, else Windows-1252 (ftfy's guess)."""
    text, _encoding = ftfy.guess_bytes(data)
    return text


def unescape_markdown(text: str) -> str:
    """Plain text from MinerU's Markdown-flavoured text: "\\_" → "_", "\\*" → "*", "\\#" → "#"…;
    inline math keeps its backslashes."""
    if "\\" not in text:
        return text
    out: list[str] = []
    at = 0
    for math in _INLINE_MATH.finditer(text):
        out.append(_ESCAPE.sub(r"\1", text[at : math.start()]))
        out.append(math.group())
        at = math.end()
    out.append(_ESCAPE.sub(r"\1", text[at:]))
    return "".join(out)


# The fields of MinerU's content-list items that hold text a reader reads (code and LaTeX excluded).
_TEXT_FIELDS = ("text", "table_body", "content", "text_layer")
_LIST_FIELDS = ("list_items", "_caption", "_footnote")  # list_items; image_caption, table_footnote, …


def repair_items(items: list[Item]) -> list[Item]:
    """MinerU's content list with `repair` applied to each item's text, and a table's HTML cells
    unescaped (the rest is unescaped with its markup, by `items.clean`); copies of the items it
    changes, as the parse cache keeps what MinerU gave. Code and equations are left as they are."""
    out: list[Item] = []
    for item in items:
        if item.get("type") in ("code", "equation"):
            out.append(item)
            continue
        changed: dict = {}
        for key, value in item.items():
            if key == "table_body" and isinstance(value, str) and "\\" in value:
                changed[key] = unescape_markdown(repair(value))
            elif isinstance(value, str) and key in _TEXT_FIELDS and not value.isascii():
                changed[key] = repair(value)
            elif (
                isinstance(value, list)
                and key.endswith(_LIST_FIELDS)
                and any(isinstance(v, str) and not v.isascii() for v in value)
            ):
                changed[key] = [repair(v) if isinstance(v, str) else v for v in value]
        out.append({**item, **changed} if changed else item)
    return out


# A picture inlined as a data URI: in a table's cell by MinerU's Office readers (`<img
# src="data:image/png;base64,…">`: a logo, a form's check box, a one-pixel spacer), in Markdown
# that a notebook or an editor exported (`![png](data:image/png;base64,…)`). Thousands of
# characters no reader reads, in every answer that shows the passage; its alternative text stays.
_INLINE_IMG_RE = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*[\"']?data:[^>]*>", re.I)
_INLINE_MD_IMAGE_RE = re.compile(r"(!\[[^\]]*\])\(\s*data:([\w.+-]+/[\w.+-]+)?[^)\s]*\s*\)", re.I)
_ALT_RE = re.compile(r"\balt\s*=\s*([\"'])(.*?)\1", re.I | re.S)


def without_inline_pictures(text: str) -> str:
    """`text` with each picture inlined as a data URI reduced to its alternative text (HTML), or
    to its kind (Markdown: "![png](embedded image/png)")."""
    if "data:" not in text:
        return text
    text = _INLINE_IMG_RE.sub(_alt_text, text)
    return _INLINE_MD_IMAGE_RE.sub(lambda m: f"{m.group(1)}(embedded {m.group(2) or 'picture'})", text)


def _alt_text(found: re.Match[str]) -> str:
    alt = _ALT_RE.search(found.group(0))
    return f" {alt.group(2).strip()} " if alt and alt.group(2).strip() else ""
