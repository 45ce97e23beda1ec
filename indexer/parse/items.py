"""Reading MinerU's content-list items: their text without markup, page, pages and type size.

MinerU's flash tier leaves inline HTML, Markdown emphasis and escapes in its text (`<strong>`,
`**…**`, links, `\\_`); the layout repair compares lines in a normalised form (no digits, no
punctuation), so that "Page 3 of 40" on every page is one running footer.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from indexer.models import Item
from indexer.parse.hygiene import unescape_markdown

_DIGITS = re.compile(r"\d+")
_BOLD = re.compile(r"(\*\*|__)(.+?)\1")
# "*italic*" (what "***bold italic***" leaves once bold is gone), not "5 * 3", a "* note" or an escaped "\*".
_ITALIC = re.compile(r"(?<![\w*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])")
# Inline HTML that flash leaves in text: <strong> is bold like **, the rest is dropped.
_STRONG_TAG = re.compile(r"</?(?:strong|b)>", re.I)
_INLINE_TAG = re.compile(r"</?(?:u|em|i|sup|sub|span|s|del|ins|mark|small|font)\b[^>]*>", re.I)
_LINK_TAG = re.compile(r"<a\b[^>]*?href=\"([^\"]*)\"[^>]*>(.*?)</a>", re.I | re.S)


def normalise(text: str) -> str:
    """Comparable form of a line: lower case, digits and punctuation dropped."""
    text = _BOLD.sub(r"\2", text)
    return " ".join(re.sub(r"[^\w\s]", " ", _DIGITS.sub("", text.lower())).split())


def inline_html(text: str) -> str:
    """<strong>/<b> → **, links → [text](url), other inline tags dropped (before unescaping,
    so an escaped "&lt;NAME&gt;" in the text stays)."""
    text = _LINK_TAG.sub(lambda m: f"[{m.group(2)}]({m.group(1)})" if m.group(1) else m.group(2), text)
    return _INLINE_TAG.sub("", _STRONG_TAG.sub("**", text))


def clean(text: str) -> str:
    """Plain text of MinerU's Markdown-flavoured text: tags, entities, emphasis and escapes gone
    (escapes last, so that an escaped "\\*\\*" never reads as bold)."""
    text = html.unescape(inline_html(text))
    return " ".join(unescape_markdown(_ITALIC.sub(r"\1", _BOLD.sub(r"\2", text))).split())


def has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def page_of(item: Item, paged: bool) -> int | None:
    return int(item["page_idx"]) + 1 if paged and item.get("page_idx") is not None else None


def page_count(items: list[Item], n_pages: int | None) -> int:
    """The document's pages: as MinerU counted them, else up to the last item's page."""
    return n_pages or (1 + max((int(i.get("page_idx", 0)) for i in items), default=0))


def body_size(items: list[Item]) -> float | None:
    """The font size most of the text is set in (weighted by characters)."""
    chars: Counter[float] = Counter()
    for item in items:
        if item.get("type") == "text" and item.get("font_size") and not item.get("text_level"):
            chars[float(item["font_size"])] += len(item.get("text", ""))
    return chars.most_common(1)[0][0] if chars else None


def one_picture_per_place(items: list[Item]) -> list[Item]:
    """A scan stored in layers (a picture and its masks, drawn at one place) is one picture: of the
    pictures with the same page and box, the first. MinerU lists each layer, and each carries the
    same words (the text layer under it, or OCR's), which would be indexed as many times."""
    seen: set[tuple[object, tuple[float, ...]]] = set()
    out: list[Item] = []
    for item in items:
        if item.get("type") == "image" and item.get("bbox"):
            place = (item.get("page_idx"), tuple(item["bbox"]))
            if place in seen:
                continue
            seen.add(place)
        out.append(item)
    return out
