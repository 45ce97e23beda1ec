"""Which lines are headings: the ones flash misses, and the ones that only look like one.

Recovered: lines in bold (`**…**` or `<strong>`) that read like titles, lines in much
larger type, a statement's centred title at the top of a page, and keyword-numbered lines
flash labels a page's header ("PART II"); a title set on two lines is joined.

Kept out of the map: a line that shares its row with other short items is a table cell, a
line inside a table or figure is a label, dates, totals and chart titles are labels, a
guessed heading in type smaller than the body is a caption, the headings of a cover page
(everything before a printed "Table of Contents" that the contents do not list) are front
matter, and in Word files the numbered or bulleted list items MinerU promotes to headings
are list items again.
"""

from __future__ import annotations

import re

from indexer.models import Block, Item
from indexer.parse.blocks import (
    TRAILING_FUNCTION_WORD,
    as_text,
    is_keyword_numbered,
    is_number,
    is_numbered_label,
    looks_like_body_text,
    union,
)
from indexer.parse.cells import CELL_MAX_WORDS
from indexer.parse.dates import MONTH
from indexer.parse.items import clean, has_words, inline_html, normalise, page_count
from indexer.parse.numbering import keyword_number, numbering

_CONTENTS = {"contents", "table of contents"}
_BULLET = (
    "•",
    "◦",
    "▪",
    "●",
    "○",
    "■",
    "□",
    "➢",
    "►",
    "\uf0b7",
    "\uf0a7",
    "\uf0d8",
    "- ",
    "* ",
    "– ",
)  # \uf0xx: Symbol-font bullets
_LIST_RUN = 3  # this many same-level headings in a row with nothing between them are a list
_LIST_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_FIELD = re.compile(r"^[^:]{1,40}:\s.*(\d\s*%|\d:\d\d)")  # "Exam 1: 75%", "Office hours: Monday 2:00-3:00"
# Labels of tables and charts that flash sets like headings: "Balance as of June 30, 2023",
# "Total", "Total lease liabilities", "% who say …".
_TABLE_LABEL = re.compile(rf"\b{MONTH}\s+\d{{1,2}},?\s+\d{{4}}$|^total\b|^%", re.I)
_LINK = re.compile(r"\]\(https?://")  # a line that is a link: an entry in a list of exhibits or sources
# A quantity flash sets like a heading, a table's cell: "12 weeks", "1 year", "12 % (a)" (a
# numbered heading's title is capitalised: "12 Legal Proceedings").
_QUANTITY = re.compile(r"^\d[\d,]*\s*(?:%|[a-z]+)(?:\s*\([^()]*\))?$")
_SMALLER = 0.95  # a heading under 95% of the body text's size is smaller than the body
_LARGER = 1.15  # a bold line this much larger than the body text is a heading…
_LARGE = 1.3  # …and any short line this much larger
_PAGE_TOP = 150  # a page's title starts above this (0–1000 page units)
_RUN_IN_BOLD = re.compile(r"^\s*\*\*(.+?)\*\*[\s:.–—-]*(\S.*)$", re.S)


# --- lines that are headings ---------------------------------------------------------


def is_set_as_title(raw: str, scale: float | None = None) -> bool:
    """A line that reads like a title and is set entirely in bold (numbered, in capitals, or
    in larger type than the body), or in much larger type: flash misses many of these
    ("**PART II**", "<strong><u>Item 8. Financial Statements</u></strong>", a 14 pt
    "**Unpacking**" over 11 pt text)."""
    raw = inline_html(raw).strip()
    text = clean(raw)
    if scale is not None and scale >= _LARGE and 0 < len(text.split()) <= 12 and not text.endswith("."):
        return True
    if not _in_bold(raw):
        return False
    if not 0 < len(text.split()) <= 16:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    return (
        numbering(text) is not None
        or (len(letters) >= 4 and all(ch.isupper() for ch in letters))
        or (scale is not None and scale >= _LARGER)
    )


def is_page_title(item: Item) -> bool:
    """A centred line at the top of a page (not the first) whose words are capitalised: the
    title of a financial statement, a slide or an appendix, which flash often leaves
    unmarked or labels a page header; a line flash labels a header, or sets in bold, may
    also be set flush left ("**Consolidated Statement of Cash Flows**" over its table, the
    company's name on the right). Parenthesised notes ("($ in millions)") are ignored; the
    caller keeps out header lines that recur on other pages."""
    bbox = item.get("bbox")
    if not bbox or int(item.get("page_idx", 0)) == 0 or bbox[1] > _PAGE_TOP:
        return False
    if not (_centred(bbox) or item.get("type") == "header" or _in_bold(item.get("text", ""))):
        return False
    text = clean(item.get("text", ""))
    words = re.sub(r"\([^)]*\)", " ", text).split()
    if not 2 <= len(words) <= 16 or text.endswith((".", ":", ",", ";")):
        return False
    long = [w for w in words if sum(ch.isalpha() for ch in w) >= 4]
    return len(long) >= 2 and all(w[0].isupper() for w in long)


def _in_bold(raw: str) -> bool:
    raw = inline_html(raw).strip()
    return raw.startswith("**") and raw.endswith("**") and "**" not in raw[2:-2]


def is_label(text: str, in_row: bool) -> bool:
    """A line that is a table cell, a figure label, a table's row label or a link."""
    if _LINK.search(text) or _QUANTITY.match(text):
        return True
    return numbering(text) is None and (in_row or bool(_TABLE_LABEL.search(text)))


def is_numbered_title(text: str) -> bool:
    """A short line opening with a keyword number ("PART II", "Item 7.", "Note 4 - Leases")."""
    return is_keyword_numbered(text) and len(text.split()) <= 16


def bold_run_in(raw: str) -> tuple[str, str] | None:
    """A keyword-numbered title in bold with its text running on after it ("**Item 4. Mine Safety
    Disclosures.** Not applicable.", "**2. Required Textbook:** Environmental Microbiology …"):
    the title and the text; None for anything else."""
    found = _RUN_IN_BOLD.match(inline_html(raw))
    if found is None:
        return None
    title, rest = clean(found.group(1)), clean(found.group(2))
    return (title, rest) if (is_numbered_title(title) or is_numbered_label(title)) and has_words(rest) else None


def centred_titles_first(items: list[Item]) -> list[Item]:
    """flash may read a page's title after headings set below it on its page, which would nest a
    part or a chapter under its own first section: a centred keyword title ("PART I" over "Item 1.
    Business."), or any title on a page set in one column (a chapter's title set flush right,
    "INSTALLATION" over "2.1 Prepare environment"), is put back before the items below it (a few
    at most, one of them a heading). On a page of two columns the right one is read after the
    left, whatever its height: its titles stay where they are."""
    out = list(items)
    spanning: dict[object, list[int]] = {}  # page → tops of the lines of text that cross its middle
    for item in items:
        box = item.get("bbox")
        if item.get("type") == "text" and box and box[0] < 450 and box[2] > 550 and not item.get("text_level"):
            spanning.setdefault(item.get("page_idx"), []).append(box[1])
    for at, item in enumerate(out):  # a move goes backwards: the items after `at` keep their places
        box = item.get("bbox")
        keyword = box and _centred(box) and is_numbered_title(clean(item.get("text", "")))
        one_column = box and any(top > box[3] for top in spanning.get(item.get("page_idx"), []))
        if not box or not (keyword or (item.get("text_level") and one_column)):
            continue
        j = at
        while (
            j > 0
            and at - j < 5
            and out[j - 1].get("page_idx") == item.get("page_idx")
            and out[j - 1].get("bbox")
            and out[j - 1]["bbox"][1] >= box[3] - 2
        ):
            j -= 1
        if j < at and any(o.get("text_level") or is_numbered_title(clean(o.get("text", ""))) for o in out[j:at]):
            out.insert(j, out.pop(at))
    return out


def join_broken_headings(blocks: list[Block]) -> list[Block]:
    """A heading set on two lines that flash returns as two headings ("1. Latinos are … cost
    of" + "living"): the first stops mid-phrase or the second goes on in lower case; and a
    keyword number alone ("ITEM 1.") with its title on the line below, which flash leaves as text."""
    out: list[Block] = []
    for block in blocks:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.kind == "heading"
            and previous.inferred
            and block.kind in ("heading", "text")
            and block.page == previous.page
            and (alone := keyword_number(previous.text, alone=True)) is not None
            and alone[0] != "part"  # "PART II" is whole; its part's name, when printed, is a heading of its own
            and 0 < len(block.text.split()) <= 12
            and not looks_like_body_text(block.text)
            and numbering(block.text) is None
        ):
            previous.text = f"{previous.text.strip()} {block.text.strip()}"
            if previous.bbox and block.bbox:
                previous.bbox = union([previous.bbox, block.bbox])
            continue
        if (
            previous is not None
            and block.kind == previous.kind == "heading"
            and block.inferred
            and previous.inferred
            and block.page == previous.page
            and not previous.text.endswith((":", ";", ".", "?", "!"))
            and "://" not in block.text
            and (
                TRAILING_FUNCTION_WORD.search(previous.text) or previous.text.endswith(",") or block.text[:1].islower()
            )
        ):
            previous.text = f"{previous.text} {block.text}"
            previous.level = min(previous.level or 2, block.level or 2)
            if previous.bbox and block.bbox:
                previous.bbox = union([previous.bbox, block.bbox])
            continue
        if previous is not None and _runs_on_into(previous, block):  # the paragraph's first line, not its heading
            boxes = [b for b in (previous.bbox, block.bbox) if b]
            out[-1] = Block("text", f"{previous.text} {block.text}", page=block.page, bbox=union(boxes))
            continue
        out.append(block)
    return out


# --- lines that only look like headings ----------------------------------------------


def beside_others(items: list[Item], repeated: set[str], body: float | None = None) -> set[int]:
    """ids of text lines that sit inside a table or figure, title a table's columns, or
    share their row with two other short lines or with a number (a table row; a cover
    page's "Jersey   98-1455367"). One line of text beside is not enough: that is the
    other column of a two-column page. A line set much larger than the body text (`body`, its
    size) set right above the text is a chapter's title set flush right, not a column's."""
    by_page: dict[int, list[Item]] = {}
    for item in items:
        if item.get("bbox") and item.get("type") != "page_number" and normalise(item.get("text", "")) not in repeated:
            by_page.setdefault(int(item.get("page_idx", 0)), []).append(item)
    found: set[int] = set()
    for page_items in by_page.values():
        for k, item in enumerate(page_items):
            if item.get("type") not in ("text", "header"):
                continue
            larger = bool(body and (item.get("font_size") or 0) >= _LARGER * body)
            column = not larger and _column_title(item, page_items[k + 1 : k + 2])
            if any(_inside(item, other) for other in page_items) or column:
                found.add(id(item))
                continue
            row = [other for other in page_items if other is not item and _beside(item, other)]
            if len(row) >= 2 or any(is_number(clean(other.get("text", ""))) for other in row):
                found.add(id(item))
    return found


def _column_title(item: Item, following: list[Item]) -> bool:
    """A line set right of the page's middle above rows that start far to its left: the
    title of a table's columns ("Increase/(Decrease)" over the figures of a statement).
    A heading in the right column of a two-column page has its text below it, not left."""
    x0, y0, x1, _ = item["bbox"]
    if (x0 + x1) / 2 <= 600 or not following:
        return False
    nx0, ny0 = following[0]["bbox"][:2]
    return ny0 >= y0 and nx0 < x0 - 200


def _inside(item: Item, other: Item) -> bool:
    """The item's centre lies in a table or figure."""
    x0, y0, x1, y1 = item["bbox"]
    ox0, oy0, ox1, oy1 = other["bbox"]
    return (
        other.get("type") in ("table", "image", "chart") and ox0 <= (x0 + x1) / 2 <= ox1 and oy0 <= (y0 + y1) / 2 <= oy1
    )


def _beside(item: Item, other: Item) -> bool:
    """`other` is a short line of text on the same row, left or right of the item."""
    x0, y0, x1, y1 = item["bbox"]
    ox0, oy0, ox1, oy1 = other["bbox"]
    if other.get("type") not in ("text", "header", "footer") or (ox0 < x1 and x0 < ox1):
        return False  # not text, or above or below rather than beside
    height, other_height = max(y1 - y0, 1), max(oy1 - oy0, 1)
    overlap = min(y1, oy1) - max(y0, oy0)
    one_line = other_height <= 1.5 * height and len(clean(other.get("text", "")).split()) <= CELL_MAX_WORDS
    return one_line and overlap > 0.5 * min(height, other_height)


def contents_item(items: list[Item], n_pages: int | None) -> tuple[Item | None, set[str]]:
    """The title line of a printed table of contents on one of the first pages, and the
    entries (normalised, so without page numbers) of the lists on its page and the next."""
    pages = page_count(items, n_pages)
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


def demote_small_headings(blocks: list[Block], keep: set[str]) -> None:
    """A guessed heading set smaller than the body text is a chart title, a caption or a
    table's cell, not a section ("% who say …" in 9 pt beside 11 pt prose); unless it is
    numbered, the contents or outline list it, or it is the title of its page (centred at the
    top: a financial statement's title is often set smaller than the report's prose)."""
    for i, block in enumerate(blocks):
        if (
            block.kind == "heading"
            and block.inferred
            and block.size is not None
            and block.size < _SMALLER
            and numbering(block.text) is None
            and normalise(block.text) not in keep
            and not _tops_its_page(block)
        ):
            blocks[i] = as_text(block)


def _tops_its_page(block: Block) -> bool:
    box = block.bbox
    return box is not None and box[1] <= _PAGE_TOP and _centred(box)


def _centred(box: list[int]) -> bool:
    """Centred on the page (0–1000 units), as titles are set."""
    return abs((box[0] + box[2]) / 2 - 500) <= 60


def demote_front_matter(blocks: list[Block], end: int, keep: set[str]) -> None:
    """Headings before a printed table of contents are a cover page's lines ("FORM 10-Q",
    "Commission File Number …", the company's name): text, except the first (the title)
    and those the contents or the outline list."""
    first = next((i for i, b in enumerate(blocks) if b.kind == "heading"), end)
    for i in range(first + 1, end):
        block = blocks[i]
        if block.kind == "heading" and block.inferred and normalise(block.text) not in keep:
            blocks[i] = as_text(block)


def demote_list_headings(blocks: list[Block]) -> None:
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
        blocks[i] = as_text(blocks[i])


def _reads_like_list_item(text: str) -> bool:
    words = text.split()
    return (
        text.startswith(_BULLET)
        or len(words) > 16
        or (text.endswith(".") and len(words) > 4)
        or bool(TRAILING_FUNCTION_WORD.search(text))
        or bool(_LINK.search(text))
        or (bool(_FIELD.match(text)) and not is_numbered_title(text))
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


def _runs_on_into(heading: Block, block: Block) -> bool:
    """A guessed heading that is the first line of the paragraph below it ("Note 2 to paragraph (i):
    The MEL" over "provisions specified in figure 10 …"): a line's worth of words that no punctuation
    ends, the paragraph going on in lower case on the very next line of the same column."""
    if not (heading.kind == "heading" and heading.inferred and block.kind == "text" and heading.page == block.page):
        return False
    if not (heading.bbox and block.bbox) or heading.text.rstrip().endswith((".", ":", ";", "?", "!")):
        return False
    if not block.text[:1].islower() or len(heading.text.split()) < 3:  # an index's letter over its entries
        return False
    width = heading.bbox[2] - heading.bbox[0]
    if width < 0.5 * (block.bbox[2] - block.bbox[0]):  # a line of the paragraph runs most of its width
        return False
    line = heading.bbox[3] - heading.bbox[1]
    shared = min(heading.bbox[2], block.bbox[2]) - max(heading.bbox[0], block.bbox[0])
    return -2 <= block.bbox[1] - heading.bbox[3] <= line and shared > 0.5 * (heading.bbox[2] - heading.bbox[0])
