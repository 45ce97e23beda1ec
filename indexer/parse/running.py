"""Running headers and footers: page-top and page-bottom lines that repeat.

flash labels every page-top and page-bottom line a header or footer. Such a line is kept
as content unless the same text (digits ignored) repeats on several pages, which is what
running headers, footers and page numbers do; a header flash reads out of place is put
back where it sits on the page. A page's number is also found where its content ends: a
filing printed from HTML ends each page at a different height, with its number right under
the last line (`page_ends`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from indexer.models import Item
from indexer.parse.blocks import is_continued, is_keyword_numbered
from indexer.parse.items import clean, normalise, page_count

_MIN_REPEATS = 3  # a running header appears on at least this many pages…
_MIN_PAGE_SHARE = 0.2  # …and on this share of the document's pages
CARRIED_PAGES = 3  # a header line on at most this many pages in a row is a title carried onto its continuation pages


def headers_in_place(items: list[Item]) -> list[Item]:
    """flash reads a page's `header` items first, wherever they sit: move each before the
    first item read after it that lies below it, so a statement's column heads and first
    rows (which it may label header) follow the statement's title instead of preceding it."""
    out: list[Item] = []
    for page in _pages(items):
        headers = [h for h in page if h.get("type") == "header" and h.get("bbox")]
        rest = [i for i in page if not (i.get("type") == "header" and i.get("bbox"))]
        for h in sorted(headers, key=lambda h: h["bbox"][1]):
            below = next((n for n, i in enumerate(rest) if i.get("bbox") and i["bbox"][1] > h["bbox"][1]), len(rest))
            rest.insert(below, h)
        out.extend(rest)
    return out


def footnotes_in_place(items: list[Item]) -> list[Item]:
    """flash reads a page's `page_footnote` items last; one with its column's text below it is no
    footnote (a notice's agency lines set in small type between two notices of a Federal Register
    page): it becomes text, read before the first item of its column below it."""
    out: list[Item] = []
    for page in _pages(items):
        for note in [i for i in page if i.get("type") == "page_footnote" and i.get("bbox")]:
            box = note["bbox"]
            below = next(
                (
                    i
                    for i in page
                    if i.get("type") == "text"
                    and i.get("bbox")
                    and i["bbox"][1] >= box[3]
                    and _same_column(i["bbox"], box)
                ),
                None,
            )
            if below is not None:
                page.remove(note)
                page.insert(page.index(below), {**note, "type": "text"})
        out.extend(page)
    return out


def _pages(items: list[Item]) -> Iterator[list[Item]]:
    """The items in runs of one page each, in reading order."""
    page: list[Item] = []
    for item in items:
        if page and item.get("page_idx") != page[0].get("page_idx"):
            yield page
            page = []
        page.append(item)
    if page:
        yield page


def _same_column(a: Sequence[float], b: Sequence[float]) -> bool:
    """Boxes one above the other that share most of the narrower one's width."""
    shared = min(a[2], b[2]) - max(a[0], b[0])
    return shared >= 0.5 * min(a[2] - a[0], b[2] - b[0])


EDGE = 80  # page units (of 1000) from the top or bottom where running lines sit


def at_page_edge(item: Item) -> bool:
    """A line in the band at the top or bottom of its page where running headers and footers sit."""
    bbox = item.get("bbox")
    return bbox is not None and len(bbox) == 4 and (bbox[1] < EDGE or bbox[3] > 1000 - EDGE)


def running_texts(items: list[Item], n_pages: int | None) -> set[str]:
    """Lines (digits ignored) that repeat at the top or bottom of many pages."""
    pages_of: dict[str, set[int]] = {}
    for item in items:
        if item.get("type") not in ("header", "footer", "page_number", "text"):
            continue
        if not (item.get("type") in ("header", "footer", "page_number") or at_page_edge(item)):
            continue
        key = normalise(item.get("text", ""))
        if key and len(key) < 150:
            pages_of.setdefault(key, set()).add(int(item.get("page_idx", 0)))
    pages = page_count(items, n_pages)
    if pages < 2:
        return set()
    needed = max(min(_MIN_REPEATS, pages), int(_MIN_PAGE_SHARE * pages))
    return {key for key, seen in pages_of.items() if len(seen) >= needed}


def recurring_headers(items: list[Item], repeated: set[str]) -> dict[str, int | None]:
    """The running lines, and any line flash labels a header on more than one page (by
    `header_key`), each with the one page where it may still be promoted to a heading: a line
    that recurs on a run of at most CARRIED_PAGES consecutive pages is a title carried onto its
    continuation pages ("Acme Corp Consolidated Balance Sheets" over both pages of the balance
    sheet), a heading on its first page only; any other, on none (None)."""
    pages_of: dict[str, set[int]] = {}
    for item in items:
        if item.get("type") == "header":
            pages_of.setdefault(header_key(item.get("text", "")), set()).add(int(item.get("page_idx", 0)))
    recurring: dict[str, int | None] = dict.fromkeys(repeated)
    for key, pages in pages_of.items():
        if len(pages) > 1 and key not in repeated:
            carried = len(pages) <= CARRIED_PAGES and max(pages) - min(pages) == len(pages) - 1
            recurring[key] = min(pages) if carried else None
    return recurring


def titled_here(recurring: dict[str, int | None] | None, text: str, item: Item) -> bool:
    """Whether a header line may be promoted to a heading on its page (`recurring_headers`)."""
    page = int(item.get("page_idx", 0))
    return (recurring or {}).get(header_key(text), page) == page


def repeats_a_title(recurring: dict[str, int | None] | None, text: str, item: Item) -> bool:
    """A page header that only repeats a title on a continuation page: one carried from its
    first page (`recurring_headers`), or one marked "(Continued)". It says nothing the
    section's heading does not, and a query for the statement would find it before the table."""
    first = (recurring or {}).get(header_key(text))
    return (first is not None and first != int(item.get("page_idx", 0))) or is_continued(clean(text))


def header_key(text: str) -> str:
    """What makes two header lines the same: their words without digits ("Page 3 of 40"), except
    for a keyword-numbered title, whose number is what tells "ITEM 6." from "ITEM 7."."""
    line = clean(text)
    return " ".join(line.lower().split()) if is_keyword_numbered(line) else normalise(text)


def page_ends(items: list[Item]) -> set[int]:
    """The items (by `id`) with nothing above them or nothing below them on their page: where a
    page's number sits, at the page's edge or, on a page that ends early, under its last line."""
    by_page: dict[int, list[Item]] = {}
    for item in items:
        if isinstance(item, dict) and item.get("bbox"):
            by_page.setdefault(int(item.get("page_idx") or 0), []).append(item)
    ends: set[int] = set()
    for page in by_page.values():
        if len(page) == 1:
            ends.add(id(page[0]))
            continue
        by_bottom = sorted(page, key=lambda i: i["bbox"][3], reverse=True)
        by_top = sorted(page, key=lambda i: i["bbox"][1])
        for item in page:
            lowest_other = (by_bottom[1] if by_bottom[0] is item else by_bottom[0])["bbox"][3]
            highest_other = (by_top[1] if by_top[0] is item else by_top[0])["bbox"][1]
            if item["bbox"][1] >= lowest_other or item["bbox"][3] <= highest_other:
                ends.add(id(item))
    return ends
