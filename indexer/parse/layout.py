"""MinerU's content list → blocks, repairing what its model-free tier gets wrong.

MinerU gives a flat list of items in reading order (`text` with `text_level`
on headings, `list`, `table`, `image`, `chart`, `equation`, `code`, `header`,
`footer`, `page_number`, `page_footnote`), each with a 0-based `page_idx`
and, for PDFs, a `bbox` in 0–1000 page units. On born-digital PDFs its flash
tier (text layer only) has three weaknesses this module repairs:

* every heading is level 2: levels come from the PDF outline when there is
  one (`outline_levels`), else from numbering (`indexer.numbering`), and
  headings are marked `inferred` so the structure builder may demote noise;
* page-top and page-bottom lines are labelled header/footer: they are kept as
  content unless the same text (digits ignored) repeats on several pages,
  which is what running headers, footers and page numbers do;
* tables without ruling come out as one text item per cell: runs of short
  items laid out in rows and columns are put back together as one table,
  also across a page break.

Headings flash misses are recovered: lines in bold (`**…**` or `<strong>`) that
read like titles, keyword-numbered lines it labels as a page's header ("PART II"),
a part heading with its first item run in ("Part I … Item 1. …") is split, and a
title set on two lines is joined. What only looks like a heading stays out of the
TOC: a line that shares its row with other short items is a table cell, a line
inside a table or figure is a label, dates, totals and chart titles are labels,
the headings of a cover page (everything before a printed "Table of Contents"
that the contents do not list) are front matter, and in Word files the numbered
or bulleted list items MinerU promotes to headings are list items again.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from indexer.models import Block, ParsedDocument
from indexer.numbering import KEYWORD_SCHEMES, numbering, split_run_in_heading
from indexer.structure import looks_like_body_text

_DIGITS = re.compile(r"\d+")
_TAGS = re.compile(r"<[^>]+>")
_BOLD = re.compile(r"(\*\*|__)(.+?)\1")
# Inline HTML that flash leaves in text: <strong> is bold like **, the rest is dropped.
_STRONG_TAG = re.compile(r"</?(?:strong|b)>", re.I)
_INLINE_TAG = re.compile(r"</?(?:u|em|i|sup|sub|span|s|del|ins|mark|small|font)\b[^>]*>", re.I)
_LINK_TAG = re.compile(r"<a\b[^>]*?href=\"([^\"]*)\"[^>]*>(.*?)</a>", re.I | re.S)
_CONTENTS = {"contents", "table of contents"}
_BULLET = ("•", "◦", "▪", "●", "○", "■", "□", "➢", "►", "\uf0b7", "\uf0a7", "\uf0d8", "- ", "* ", "– ")  # \uf0xx: Symbol-font bullets
_LIST_RUN = 3  # this many same-level headings in a row with nothing between them are a list
_LIST_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_FIELD = re.compile(r"^[^:]{1,40}:\s.*(\d\s*%|\d:\d\d)")  # "Exam 1: 75%", "Office hours: Monday 2:00-3:00"
_TRAILING_FUNCTION_WORD = re.compile(r"\b(the|and|of|to|in|for|a|an|or|with|by|on|at|as|that|our|its)$", re.I)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Labels of tables and charts that flash sets like headings: "Balance as of June 30, 2023",
# "Total", "Total lease liabilities", "% who say …".
_TABLE_LABEL = re.compile(rf"\b{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}$|^total\b|^%", re.I)
_LINK = re.compile(r"\]\(https?://")  # a line that is a link: an entry in a list of exhibits or sources
_MIN_REPEATS = 3  # a running header appears on at least this many pages…
_MIN_PAGE_SHARE = 0.2  # …and on this share of the document's pages
_SMALLER = 0.95  # a heading under 95% of the body text's size is smaller than the body
_LARGER = 1.15  # a bold line this much larger than the body text is a heading…
_LARGE = 1.3  # …and any short line this much larger
_PAGE_TOP = 150  # a page's title starts above this (0–1000 page units)
_CELL_MAX_WORDS = 12
_ROW_LABEL = re.compile(r"\w\s?(?:\.\s?){4,}")  # "Net income ........ $": leaders lead to a value
_TABLE_MIN_CELLS = 6


@dataclass
class OutlineEntry:
    title: str
    level: int  # 1 = top
    page: int | None = None  # 1-based


def blocks_from_content_list(
    items: list[dict],
    n_pages: int | None,
    paged: bool,
    heading_levels_reliable: bool,
    outline: list[OutlineEntry] | None = None,
) -> ParsedDocument:
    """Map MinerU items to blocks. `paged`: pages mean something (PDF, slides)."""
    if paged:
        items = _headers_in_place(items)
    repeated = _running_texts(items, n_pages)
    beside = _beside_others(items, repeated) if paged else set()
    header_pages: dict[str, set[int]] = {}  # a header that recurs, even on two pages, is a running one
    for item in items:
        if item.get("type") == "header":
            header_pages.setdefault(normalise(item.get("text", "")), set()).add(int(item.get("page_idx", 0)))
    recurring = repeated | {key for key, pages in header_pages.items() if len(pages) > 1}
    contents, contents_entries = _contents_item(items, n_pages) if paged else (None, set())
    body = _body_size(items)
    front_matter_ends = 0  # blocks before the printed table of contents
    blocks: list[Block] = []
    for group in _group_table_cells(items):
        if group is contents:
            front_matter_ends = len(blocks)
        if isinstance(group, list):
            box = _union([c["bbox"] for c in group]) if paged else None
            blocks.append(Block("table", _render_cells(group), page=_page(group[0], paged), bbox=box))
            continue
        scale = group["font_size"] / body if body and group.get("font_size") else None
        block = _block(group, paged, repeated, heading_levels_reliable, id(group) in beside, recurring, scale)
        if block is None:
            continue
        block.bbox = list(group["bbox"]) if paged and group.get("bbox") else None
        if block.kind == "heading" and scale:
            block.size = round(scale, 2)
        if block.kind == "heading" and block.inferred:
            for part in split_run_in_heading(block.text):
                blocks.append(replace(block, text=part))
        else:
            blocks.append(block)
    listed = contents_entries | {normalise(e.title) for e in outline or []}
    _demote_front_matter(blocks, front_matter_ends, listed)
    _demote_small_headings(blocks, listed)
    blocks = _join_broken_headings(_merge_tables_across_pages(blocks))
    if heading_levels_reliable and not paged:
        _demote_list_headings(blocks)
    if outline:
        _apply_outline(blocks, outline)
    return ParsedDocument(blocks=blocks, n_pages=n_pages if paged else None)


def normalise(text: str) -> str:
    """Comparable form of a line: lower case, digits and punctuation dropped."""
    text = _BOLD.sub(r"\2", text)
    return " ".join(re.sub(r"[^\w\s]", " ", _DIGITS.sub("", text.lower())).split())


# --- items ---------------------------------------------------------------------------


def _block(
    item: dict,
    paged: bool,
    repeated: set[str],
    levels_reliable: bool,
    in_row: bool = False,
    recurring: frozenset[str] | set[str] = frozenset(),
    scale: float | None = None,
) -> Block | None:
    """`in_row`: the item shares its line with other short items or sits inside a table or
    figure, so it is a cell or a label, never an unnumbered heading. `recurring`: header
    lines seen on more than one page, which are never promoted to headings. `scale`: the
    item's font size relative to the body text (PDFs), when known."""
    kind = item.get("type")
    page = _page(item, paged)
    label = paged and _is_label(_clean(item.get("text", "")), in_row)
    if label and kind == "text" and item.get("text_level"):
        item = {k: v for k, v in item.items() if k != "text_level"}
    if kind == "text" and not item.get("text_level") and _is_set_as_title(item.get("text", ""), scale):
        text = _clean(item["text"])
        if normalise(text) not in repeated and not label:
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind in ("text", "header") and not item.get("text_level") and paged and _is_page_title(item) and not label:
        text = _clean(item["text"])  # a statement's title: "Amcor plc Consolidated Statements of Cash Flows"
        if normalise(text) not in recurring:
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind == "header" and _is_numbered_title(_clean(item.get("text", ""))):
        text = _clean(item["text"])  # flash labels a page's first line a header, "PART II" or "Note 10 - …" too
        if normalise(text) not in recurring:
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind in ("header", "footer", "text", "page_footnote") and not item.get("text_level"):
        text = _clean(item.get("text", ""))
        if kind in ("header", "footer") and normalise(text) in repeated:
            return None
        if kind == "text" and normalise(text) in repeated and len(text) < 120:
            return None  # a running header that flash did not label as one
        return Block("text", text, page=page) if _has_words(text) else None
    if kind == "text":
        text = _clean(item.get("text", ""))
        if not _has_words(text) or normalise(text) in repeated:
            return None
        level = int(item["text_level"])
        return Block("heading", text, level=level, page=page, inferred=not levels_reliable)
    if kind in ("list", "index"):
        entries = [_clean(x) for x in item.get("list_items", []) if _has_words(x)]
        return Block("list", "\n".join(entries), page=page) if entries else None
    if kind == "table":
        return _table(item, page)
    if kind in ("image", "chart"):
        return _figure(item, page)
    if kind == "equation":
        latex = (item.get("text") or item.get("latex") or "").strip()
        return Block("equation", latex, page=page) if latex else None
    if kind == "code":
        code = item.get("code_body") or item.get("text") or ""
        caption = " ".join(item.get("code_caption", []))
        return Block("code", f"{caption}\n{code}".strip(), page=page) if code.strip() else None
    return None  # page_number and anything unknown


def _table(item: dict, page: int | None) -> Block | None:
    body = item.get("table_body") or item.get("text_layer") or item.get("content") or ""
    caption = " ".join(_clean(c) for c in item.get("table_caption", []))
    footnote = " ".join(_clean(c) for c in item.get("table_footnote", []))
    parts = [caption, body.strip(), footnote]
    text = "\n".join(p for p in parts if p)
    return Block("table", text, page=page) if _has_words(_TAGS.sub(" ", text)) else None


def _figure(item: dict, page: int | None) -> Block | None:
    kind = item["type"]
    captions = item.get(f"{kind}_caption", []) or item.get("image_caption", [])
    footnotes = item.get(f"{kind}_footnote", []) or item.get("image_footnote", [])
    parts = [_clean(x) for x in [*captions, *footnotes, item.get("text", "")] if x]
    recognised = (item.get("content") or item.get("text_layer") or "").strip()  # text inside a chart or scan
    text = "\n".join(p for p in [" ".join(parts), recognised] if p)
    return Block("figure", text, page=page) if _has_words(text) else None


def _is_set_as_title(raw: str, scale: float | None = None) -> bool:
    """A line that reads like a title and is set entirely in bold (numbered, in capitals, or
    in larger type than the body), or in much larger type: flash misses many of these
    ("**PART II**", "<strong><u>Item 8. Financial Statements</u></strong>", a 14 pt
    "**Unpacking**" over 11 pt text)."""
    raw = _inline_html(raw).strip()
    text = _clean(raw)
    if scale is not None and scale >= _LARGE and 0 < len(text.split()) <= 12 and not text.endswith("."):
        return True
    if not (raw.startswith("**") and raw.endswith("**")) or "**" in raw[2:-2]:
        return False
    if not 0 < len(text.split()) <= 16:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    return (
        numbering(text) is not None
        or (len(letters) >= 4 and all(ch.isupper() for ch in letters))
        or (scale is not None and scale >= _LARGER)
    )


def _is_page_title(item: dict) -> bool:
    """A centred line at the top of a page (not the first) whose words are capitalised: the
    title of a financial statement, a slide or an appendix, which flash often leaves
    unmarked or labels a page header. Parenthesised notes ("($ in millions)") are ignored."""
    bbox = item.get("bbox")
    if not bbox or int(item.get("page_idx", 0)) == 0 or bbox[1] > _PAGE_TOP or abs((bbox[0] + bbox[2]) / 2 - 500) > 60:
        return False
    text = _clean(item.get("text", ""))
    words = re.sub(r"\([^)]*\)", " ", text).split()
    if not 2 <= len(words) <= 16 or text.endswith((".", ":", ",", ";")):
        return False
    long = [w for w in words if sum(ch.isalpha() for ch in w) >= 4]
    return len(long) >= 2 and all(w[0].isupper() for w in long)


def _is_label(text: str, in_row: bool) -> bool:
    """A line that is a table cell, a figure label, a table's row label or a link."""
    return bool(_LINK.search(text)) or numbering(text) is None and (in_row or bool(_TABLE_LABEL.search(text)))


def _is_numbered_title(text: str) -> bool:
    """A short line opening with a keyword number ("PART II", "Item 7.", "Note 4 - Leases")."""
    found = numbering(text)
    return found is not None and found.scheme in KEYWORD_SCHEMES and len(text.split()) <= 16


def _union(boxes: list[list[int]]) -> list[int]:
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def _page(item: dict, paged: bool) -> int | None:
    return int(item["page_idx"]) + 1 if paged and item.get("page_idx") is not None else None


def _inline_html(text: str) -> str:
    """<strong>/<b> → **, links → [text](url), other inline tags dropped (before unescaping,
    so an escaped "&lt;NAME&gt;" in the text stays)."""
    text = _LINK_TAG.sub(lambda m: f"[{m.group(2)}]({m.group(1)})" if m.group(1) else m.group(2), text)
    return _INLINE_TAG.sub("", _STRONG_TAG.sub("**", text))


def _clean(text: str) -> str:
    text = html.unescape(_inline_html(text)).replace("\\$", "$")
    return " ".join(_BOLD.sub(r"\2", text).split())


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


# --- running headers and footers -----------------------------------------------------


def _headers_in_place(items: list[dict]) -> list[dict]:
    """flash reads a page's `header` items first, wherever they sit: move each before the
    first item read after it that lies below it, so a statement's column heads and first
    rows (which it may label header) follow the statement's title instead of preceding it."""
    out: list[dict] = []
    page: list[dict] = []
    for item in [*items, None]:
        if item is not None and (not page or item.get("page_idx") == page[0].get("page_idx")):
            page.append(item)
            continue
        headers = [h for h in page if h.get("type") == "header" and h.get("bbox")]
        rest = [i for i in page if not (i.get("type") == "header" and i.get("bbox"))]
        for h in sorted(headers, key=lambda h: h["bbox"][1]):
            below = next((n for n, i in enumerate(rest) if i.get("bbox") and i["bbox"][1] > h["bbox"][1]), len(rest))
            rest.insert(below, h)
        out.extend(rest)
        page = [item] if item is not None else []
    return out


def _running_texts(items: list[dict], n_pages: int | None) -> set[str]:
    """Lines (digits ignored) that repeat at the top or bottom of many pages."""
    pages_of: dict[str, set[int]] = {}
    for item in items:
        if item.get("type") not in ("header", "footer", "page_number", "text"):
            continue
        bbox = item.get("bbox")
        edge = item.get("type") in ("header", "footer", "page_number") or (bbox and (bbox[1] < 80 or bbox[3] > 920))
        if not edge:
            continue
        key = normalise(item.get("text", ""))
        if key and len(key) < 150:
            pages_of.setdefault(key, set()).add(int(item.get("page_idx", 0)))
    pages = n_pages or (1 + max((int(i.get("page_idx", 0)) for i in items), default=0))
    if pages < 2:
        return set()
    needed = max(min(_MIN_REPEATS, pages), int(_MIN_PAGE_SHARE * pages))
    return {key for key, seen in pages_of.items() if len(seen) >= needed}


# --- tables cut into cells -----------------------------------------------------------


def _is_cell(item: dict) -> bool:
    if item.get("type") != "text" or not item.get("bbox"):
        return False
    text = _clean(item.get("text", ""))
    if _ROW_LABEL.search(text):  # dot leaders lead to a value in the next column: a row label, however long
        return True
    return 0 < len(text.split()) <= _CELL_MAX_WORDS and not text.endswith((".", ":")) or _is_number(text)


def _is_number(text: str) -> bool:
    return bool(re.fullmatch(r"[-—–$€£%()\d.,\s]+", text)) and any(ch.isdigit() or ch in "—–" for ch in text)


def _group_table_cells(items: list[dict]) -> Iterable[dict | list[dict]]:
    """Yield items, with runs of cell-like items that form a grid replaced by lists."""
    run: list[dict] = []
    for item in [*items, {"type": "end"}]:
        if _is_cell(item) and run and run[0].get("page_idx") == item.get("page_idx"):
            run.append(item)
            continue
        if _is_grid(run):
            yield run
        else:
            yield from run
        # A heading may sit inside a table (a spanning column title) but never opens one.
        run = [item] if _is_cell(item) and not item.get("text_level") else []
        if not run and item.get("type") != "end":
            yield item


def _rows(cells: list[dict]) -> list[list[dict]]:
    """Cells grouped into lines by vertical overlap, top to bottom, left to right."""
    rows: list[list[dict]] = []
    for cell in sorted(cells, key=lambda c: (c["bbox"][1] + c["bbox"][3]) / 2):
        middle = (cell["bbox"][1] + cell["bbox"][3]) / 2
        if rows and rows[-1][0]["bbox"][1] - 2 <= middle <= rows[-1][0]["bbox"][3] + 2:
            rows[-1].append(cell)
        else:
            rows.append([cell])
    return [sorted(row, key=lambda c: c["bbox"][0]) for row in rows]


def _is_grid(run: list[dict]) -> bool:
    if len(run) < _TABLE_MIN_CELLS:
        return False
    rows = _rows(run)
    multi = sum(1 for row in rows if len(row) >= 2)
    return multi >= 2 and multi >= 0.5 * len(rows)


def _render_cells(cells: list[dict]) -> str:
    return "\n".join(" | ".join(_clean(c.get("text", "")) for c in row) for row in _rows(cells))


def _merge_tables_across_pages(blocks: list[Block]) -> list[Block]:
    """A table that ends one page and opens the next is one table."""
    out: list[Block] = []
    for block in blocks:
        previous = out[-1] if out else None
        if (
            previous is not None
            and block.kind == previous.kind == "table"
            and previous.page is not None
            and block.page == (previous.last_page or previous.page) + 1
        ):
            previous.text = f"{previous.text}\n{block.text}"
            previous.last_page = block.page
            continue
        out.append(block)
    return out


# --- what only looks like a heading --------------------------------------------------


def _beside_others(items: list[dict], repeated: set[str]) -> set[int]:
    """ids of text lines that sit inside a table or figure, title a table's columns, or
    share their row with two other short lines or with a number (a table row; a cover
    page's "Jersey   98-1455367"). One line of text beside is not enough: that is the
    other column of a two-column page."""
    by_page: dict[int, list[dict]] = {}
    for item in items:
        if item.get("bbox") and item.get("type") != "page_number" and normalise(item.get("text", "")) not in repeated:
            by_page.setdefault(int(item.get("page_idx", 0)), []).append(item)
    found: set[int] = set()
    for page_items in by_page.values():
        for k, item in enumerate(page_items):
            if item.get("type") not in ("text", "header"):
                continue
            if any(_inside(item, other) for other in page_items) or _column_title(item, page_items[k + 1 : k + 2]):
                found.add(id(item))
                continue
            row = [other for other in page_items if other is not item and _beside(item, other)]
            if len(row) >= 2 or any(_is_number(_clean(other.get("text", ""))) for other in row):
                found.add(id(item))
    return found


def _column_title(item: dict, following: list[dict]) -> bool:
    """A line set right of the page's middle above rows that start far to its left: the
    title of a table's columns ("Increase/(Decrease)" over the figures of a statement).
    A heading in the right column of a two-column page has its text below it, not left."""
    x0, y0, x1, _ = item["bbox"]
    if (x0 + x1) / 2 <= 600 or not following:
        return False
    nx0, ny0 = following[0]["bbox"][:2]
    return ny0 >= y0 and nx0 < x0 - 200


def _inside(item: dict, other: dict) -> bool:
    """The item's centre lies in a table or figure."""
    x0, y0, x1, y1 = item["bbox"]
    ox0, oy0, ox1, oy1 = other["bbox"]
    return other.get("type") in ("table", "image", "chart") and ox0 <= (x0 + x1) / 2 <= ox1 and oy0 <= (y0 + y1) / 2 <= oy1


def _beside(item: dict, other: dict) -> bool:
    """`other` is a short line of text on the same row, left or right of the item."""
    x0, y0, x1, y1 = item["bbox"]
    ox0, oy0, ox1, oy1 = other["bbox"]
    if other.get("type") not in ("text", "header", "footer") or ox0 < x1 and x0 < ox1:
        return False  # not text, or above or below rather than beside
    height, other_height = max(y1 - y0, 1), max(oy1 - oy0, 1)
    overlap = min(y1, oy1) - max(y0, oy0)
    one_line = other_height <= 1.5 * height and len(_clean(other.get("text", "")).split()) <= _CELL_MAX_WORDS
    return one_line and overlap > 0.5 * min(height, other_height)


def _contents_item(items: list[dict], n_pages: int | None) -> tuple[dict | None, set[str]]:
    """The title line of a printed table of contents on one of the first pages, and the
    entries (normalised, so without page numbers) of the lists on its page and the next."""
    pages = n_pages or (1 + max((int(i.get("page_idx", 0)) for i in items), default=0))
    early = max(4, pages // 10)
    for item in items:
        page = int(item.get("page_idx", 0))
        if item.get("type") == "text" and page <= early and normalise(item.get("text", "")) in _CONTENTS:
            entries = {
                normalise(entry)
                for other in items
                if other.get("type") in ("index", "list") and page <= int(other.get("page_idx", 0)) <= page + 1
                for entry in other.get("list_items", [])
            }
            return item, entries
    return None, set()


def _join_broken_headings(blocks: list[Block]) -> list[Block]:
    """A heading set on two lines that flash returns as two headings ("1. Latinos are … cost
    of" + "living"): the first stops mid-phrase or the second goes on in lower case."""
    out: list[Block] = []
    for block in blocks:
        previous = out[-1] if out else None
        if (
            previous is not None
            and block.kind == previous.kind == "heading"
            and block.inferred
            and previous.inferred
            and block.page == previous.page
            and not previous.text.endswith((":", ";", ".", "?", "!"))
            and "://" not in block.text
            and (_TRAILING_FUNCTION_WORD.search(previous.text) or previous.text.endswith(",") or block.text[:1].islower())
        ):
            previous.text = f"{previous.text} {block.text}"
            previous.level = min(previous.level or 2, block.level or 2)
            if previous.bbox and block.bbox:
                previous.bbox = _union([previous.bbox, block.bbox])
            continue
        out.append(block)
    return out


def _as_text(heading: Block) -> Block:
    """A heading that turned out not to be one, as the text line it is (page and box kept)."""
    return Block("text", heading.text, page=heading.page, bbox=heading.bbox)


def _body_size(items: list[dict]) -> float | None:
    """The font size most of the text is set in (weighted by characters)."""
    chars: Counter[float] = Counter()
    for item in items:
        if item.get("type") == "text" and item.get("font_size") and not item.get("text_level"):
            chars[float(item["font_size"])] += len(item.get("text", ""))
    return chars.most_common(1)[0][0] if chars else None


def _demote_small_headings(blocks: list[Block], keep: set[str]) -> None:
    """A guessed heading set smaller than the body text is a chart title, a caption or a
    table's cell, not a section ("% who say …" in 9 pt beside 11 pt prose); unless it is
    numbered, or the contents or outline list it."""
    for i, block in enumerate(blocks):
        if (
            block.kind == "heading"
            and block.inferred
            and block.size is not None
            and block.size < _SMALLER
            and numbering(block.text) is None
            and normalise(block.text) not in keep
        ):
            blocks[i] = _as_text(block)


def _demote_front_matter(blocks: list[Block], end: int, keep: set[str]) -> None:
    """Headings before a printed table of contents are a cover page's lines ("FORM 10-Q",
    "Commission File Number …", the company's name): text, except the first (the title)
    and those the contents or the outline list."""
    first = next((i for i, b in enumerate(blocks) if b.kind == "heading"), end)
    for i in range(first + 1, end):
        block = blocks[i]
        if block.kind == "heading" and block.inferred and normalise(block.text) not in keep:
            blocks[i] = _as_text(block)


def _demote_list_headings(blocks: list[Block]) -> None:
    """Word "List Paragraph" items that MinerU promotes to headings (a numbered list
    interleaved with text) are list items again: a bulleted line, a sentence, a line
    fragment, a "label: value" line (but never the first heading or a level-1 title);
    numbered lines in a run of same-level headings with nothing between them; and a
    numbered sequence ("1 …", "2 …", "3 …" at one level, no other heading between) most
    of whose members are list items."""
    headings = [i for i, b in enumerate(blocks) if b.kind == "heading"]
    items = {i for i in headings[1:] if blocks[i].level != 1 and _reads_like_list_item(blocks[i].text)}
    run: list[int] = []
    for i, block in enumerate([*blocks, Block("text", "")]):
        if block.kind == "heading" and run and run[-1] == i - 1 and blocks[run[-1]].level == block.level:
            run.append(i)
            continue
        if len(run) >= _LIST_RUN:
            items.update(j for j in run if _LIST_NUMBER.match(blocks[j].text))
        run = [i] if block.kind == "heading" else []
    for sequence in _numbered_sequences(blocks):
        if 2 * len(items.intersection(sequence)) >= len(sequence):
            items.update(sequence)
    for i in items:
        blocks[i] = _as_text(blocks[i])


def _reads_like_list_item(text: str) -> bool:
    words = text.split()
    return (
        text.startswith(_BULLET)
        or len(words) > 16
        or (text.endswith(".") and len(words) > 4)
        or bool(_TRAILING_FUNCTION_WORD.search(text))
        or bool(_LINK.search(text))
        or bool(_FIELD.match(text)) and not _is_numbered_title(text)
    )


def _numbered_sequences(blocks: list[Block]) -> list[list[int]]:
    """Headings numbered 1, 2, 3 … (the last number counts up) at one level with no other
    heading between them."""
    sequences: list[list[int]] = []
    key: tuple[int | None, int] | None = None
    last = 0
    for i, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        match = _LIST_NUMBER.match(block.text)
        if match is None:
            key = None
            continue
        numbers = match.group(1).split(".")
        here, n = (block.level, len(numbers)), int(numbers[-1])
        if here == key and n == last + 1:
            sequences[-1].append(i)
        else:
            sequences.append([i])
        key, last = here, n
    return sequences


# --- the PDF outline -----------------------------------------------------------------


def _apply_outline(blocks: list[Block], outline: list[OutlineEntry]) -> None:
    """Headings found in the outline take its depth (and become trusted); the
    others sit one level below the outline heading before them."""
    wanted: dict[str, list[OutlineEntry]] = {}
    for entry in outline:
        wanted.setdefault(normalise(entry.title), []).append(entry)
    matched = 0
    current = 0
    unlisted: list[int] = []
    for i, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        entry = _take_entry(wanted.get(normalise(block.text)), block.page)
        if entry:
            block.level, current = entry.level, entry.level
            matched += 1
        else:
            block.level = current + 1
            unlisted.append(i)
        block.inferred = False
    if matched:  # a guessed heading the outline does not list may still be a sentence or a caption
        for i in unlisted:
            if looks_like_body_text(blocks[i].text):
                blocks[i] = _as_text(blocks[i])
    if matched == 0:  # the outline describes something else: keep numbering-based levels
        for block in blocks:
            if block.kind == "heading":
                block.inferred = True


def _take_entry(entries: list[OutlineEntry] | None, page: int | None) -> OutlineEntry | None:
    """The first outline entry with this title that points at the heading's page (or the
    one before: bookmarks often target the end of the previous page). A table's "Revenue:"
    row label on page 60 is not the outline's "Revenue" section on page 35."""
    for i, entry in enumerate(entries or []):
        if entry.page is None or page is None or 0 <= page - entry.page <= 1:
            return entries.pop(i)
    return None


def outline_coverage(blocks: list[Block], outline: list[OutlineEntry]) -> float:
    """Share of outline entries that match a heading (for the benchmark)."""
    titles = Counter(normalise(b.text) for b in blocks if b.kind == "heading")
    hits = sum(1 for e in outline if titles[normalise(e.title)] > 0)
    return hits / len(outline) if outline else 0.0
