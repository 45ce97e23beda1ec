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
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from indexer.models import Block, ParsedDocument
from indexer.numbering import numbering

_DIGITS = re.compile(r"\d+")
_TAGS = re.compile(r"<[^>]+>")
_BOLD = re.compile(r"(\*\*|__)(.+?)\1")
_MIN_REPEATS = 3  # a running header appears on at least this many pages…
_MIN_PAGE_SHARE = 0.2  # …and on this share of the document's pages
_CELL_MAX_WORDS = 12
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
    repeated = _running_texts(items, n_pages)
    blocks: list[Block] = []
    for group in _group_table_cells(items):
        if isinstance(group, list):
            box = _union([c["bbox"] for c in group]) if paged else None
            blocks.append(Block("table", _render_cells(group), page=_page(group[0], paged), bbox=box))
            continue
        block = _block(group, paged, repeated, heading_levels_reliable)
        if block is not None:
            block.bbox = list(group["bbox"]) if paged and group.get("bbox") else None
            blocks.append(block)
    blocks = _merge_tables_across_pages(blocks)
    if outline:
        _apply_outline(blocks, outline)
    return ParsedDocument(blocks=blocks, n_pages=n_pages if paged else None)


def normalise(text: str) -> str:
    """Comparable form of a line: lower case, digits and punctuation dropped."""
    text = _BOLD.sub(r"\2", text)
    return " ".join(re.sub(r"[^\w\s]", " ", _DIGITS.sub("", text.lower())).split())


# --- items ---------------------------------------------------------------------------


def _block(item: dict, paged: bool, repeated: set[str], levels_reliable: bool) -> Block | None:
    kind = item.get("type")
    page = _page(item, paged)
    if kind == "text" and not item.get("text_level") and _is_bold_heading(item.get("text", "")):
        text = _clean(item["text"])
        if normalise(text) not in repeated:
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


def _is_bold_heading(raw: str) -> bool:
    """A line set entirely in bold that reads like a title: flash misses many of these
    ("**PART II**", "**ITEM 8. FINANCIAL STATEMENTS**")."""
    raw = raw.strip()
    if not (raw.startswith("**") and raw.endswith("**")) or "**" in raw[2:-2]:
        return False
    text = _clean(raw)
    if not 0 < len(text.split()) <= 16:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    return numbering(text) is not None or (len(letters) >= 4 and all(ch.isupper() for ch in letters))


def _union(boxes: list[list[int]]) -> list[int]:
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def _page(item: dict, paged: bool) -> int | None:
    return int(item["page_idx"]) + 1 if paged and item.get("page_idx") is not None else None


def _clean(text: str) -> str:
    text = html.unescape(text).replace("\\$", "$")
    return " ".join(_BOLD.sub(r"\2", text).split())


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


# --- running headers and footers -----------------------------------------------------


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
            and block.page == previous.page + 1
        ):
            previous.text = f"{previous.text}\n{block.text}"
            continue
        out.append(block)
    return out


# --- the PDF outline -----------------------------------------------------------------


def _apply_outline(blocks: list[Block], outline: list[OutlineEntry]) -> None:
    """Headings found in the outline take its depth (and become trusted); the
    others sit one level below the outline heading before them."""
    wanted: dict[str, list[OutlineEntry]] = {}
    for entry in outline:
        wanted.setdefault(normalise(entry.title), []).append(entry)
    matched = 0
    current = 0
    for block in blocks:
        if block.kind != "heading":
            continue
        entries = wanted.get(normalise(block.text))
        if entries:
            entry = entries.pop(0)
            block.level, current = entry.level, entry.level
            matched += 1
        else:
            block.level = current + 1
        block.inferred = False
    if matched == 0:  # the outline describes something else: keep numbering-based levels
        for block in blocks:
            if block.kind == "heading":
                block.inferred = True


def outline_coverage(blocks: list[Block], outline: list[OutlineEntry]) -> float:
    """Share of outline entries that match a heading (for the benchmark)."""
    titles = Counter(normalise(b.text) for b in blocks if b.kind == "heading")
    hits = sum(1 for e in outline if titles[normalise(e.title)] > 0)
    return hits / len(outline) if outline else 0.0
