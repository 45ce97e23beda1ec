"""MinerU's content list → blocks, repairing what its model-free tier gets wrong.

MinerU gives a flat list of items in reading order (`text` with `text_level`
on headings, `list`, `table`, `image`, `chart`, `equation`, `code`, `header`,
`footer`, `page_number`, `page_footnote`), each with a 0-based `page_idx`
and, for PDFs, a `bbox` in 0–1000 page units. On born-digital PDFs its flash
tier (text layer only) has weaknesses that the modules beside this one repair,
each in its own step:

* running headers and footers are dropped, other page-edge lines kept (`running`);
* tables cut into one item per cell are put back together (`cells`);
* headings flash misses are found, and what only looks like one is text again
  (`headings`); every heading it finds is level 2, so levels come from the PDF
  outline when there is one (`outline`), else from numbering and type size in
  the structure builder, and such headings are marked `inferred`;
* a part heading with its first item run in ("Part I … Item 1. …") is split, and so
  is a bold keyword title with its text run on ("**Item 4. …** Not applicable.").
"""

from __future__ import annotations

import re
from dataclasses import replace

from indexer.models import Block, Item, ParsedDocument
from indexer.parse.blocks import UNCAPTIONED, is_sizeable, says_continues, union
from indexer.parse.cells import group_table_cells, merge_tables_across_pages, render_cells
from indexer.parse.headings import (
    beside_others,
    bold_run_in,
    centred_titles_first,
    contents_item,
    demote_front_matter,
    demote_list_headings,
    demote_small_headings,
    is_label,
    is_numbered_title,
    is_page_title,
    is_set_as_title,
    join_broken_headings,
)
from indexer.parse.hygiene import without_inline_pictures
from indexer.parse.items import body_size, clean, has_words, normalise, page_count, page_of
from indexer.parse.numbering import split_run_in_heading
from indexer.parse.outline import OutlineEntry, apply_outline, usable_outline
from indexer.parse.running import (
    at_page_edge,
    footnotes_in_place,
    headers_in_place,
    page_ends,
    recurring_headers,
    repeats_a_title,
    running_texts,
    titled_here,
)

_TAGS = re.compile(r"<[^>]+>")
FOLIO_HEIGHT = 25  # page units (of 1000): a body line is 10–14 high, a display numeral far more
# A page's number: "59", "- 12 -", "(iv)"; roman numerals as they are written ("ill" and "civil" are words).
_PAGE_NUMBER = re.compile(r"[-–—(\s]*(?:\d{1,3}|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))[-–—)\s]*", re.I)


def blocks_from_content_list(
    items: list[Item],
    n_pages: int | None,
    paged: bool,
    heading_levels_reliable: bool,
    outline: list[OutlineEntry] | None = None,
) -> ParsedDocument:
    """Map MinerU items to blocks. `paged`: pages mean something (PDF, slides)."""
    if paged:
        items = centred_titles_first(headers_in_place(footnotes_in_place(items)))
    repeated = running_texts(items, n_pages)
    body = body_size(items)
    beside = beside_others(items, repeated, body) if paged else set()
    ends = page_ends(items) if paged else set()
    recurring = recurring_headers(items, repeated)
    contents, contents_entries = contents_item(items, n_pages) if paged else (None, set())
    front_matter_ends = 0  # blocks before the printed table of contents
    blocks: list[Block] = []
    for group in group_table_cells(items):
        if group is contents:
            front_matter_ends = len(blocks)
        if isinstance(group, list):
            box = union([c["bbox"] for c in group]) if paged else None
            blocks.append(Block("table", render_cells(group), page=page_of(group[0], paged), bbox=box))
            continue
        if paged and group.get("type") == "text" and not group.get("text_level"):
            run_in = bold_run_in(group.get("text", ""))
            if run_in is not None and normalise(run_in[0]) not in repeated:  # "**Item 4. …** Not applicable."
                page, box = page_of(group, paged), list(group["bbox"]) if group.get("bbox") else None
                blocks.append(Block("heading", run_in[0], level=2, page=page, inferred=True, bbox=box))
                blocks.append(Block("text", run_in[1], page=page, bbox=box))
                continue
        scale = group["font_size"] / body if body and group.get("font_size") else None
        block = _block(
            group, paged, repeated, heading_levels_reliable, id(group) in beside, recurring, scale, id(group) in ends
        )
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
    demote_front_matter(blocks, front_matter_ends, listed)
    demote_small_headings(blocks, listed)
    blocks = join_broken_headings(merge_tables_across_pages(blocks))
    if heading_levels_reliable and not paged:
        demote_list_headings(blocks)
    warnings: list[str] = []
    entries, unusable = usable_outline(outline or [], page_count(items, n_pages))
    if unusable:
        warnings.append(unusable)
    if entries:
        blocks = apply_outline(blocks, entries, warnings)
    return ParsedDocument(blocks=blocks, n_pages=n_pages if paged else None, warnings=warnings)


# --- items ---------------------------------------------------------------------------


def _block(
    item: Item,
    paged: bool,
    repeated: set[str],
    levels_reliable: bool,
    in_row: bool = False,
    recurring: dict[str, int | None] | None = None,
    scale: float | None = None,
    page_end: bool = False,
) -> Block | None:
    """`in_row`: the item shares its line with other short items or sits inside a table or
    figure, so it is a cell or a label, never an unnumbered heading. `recurring`: header
    lines seen on more than one page, a heading only on the page `recurring_headers` gives (a
    title carried onto its next pages: its first), else never. `scale`: the item's font size
    relative to the body text (PDFs), when known. `page_end`: nothing on its page lies above
    it, or nothing below."""
    kind = item.get("type")
    page = page_of(item, paged)
    folio = kind in ("header", "footer", "text", "page_footnote") and _PAGE_NUMBER.fullmatch(
        clean(item.get("text", ""))
    )
    if paged and folio and (_at_page_edge(item) or (page_end and _set_small(item))):
        return None  # a page number ("59", "- ii -", set as a heading too), which "Item 59" would find
    if kind == "header" and repeats_a_title(recurring, item.get("text", ""), item):
        return None
    label = paged and is_label(clean(item.get("text", "")), in_row)
    if label and kind == "text" and item.get("text_level"):
        item = item.copy()
        del item["text_level"]
    if kind == "text" and not item.get("text_level") and is_set_as_title(item.get("text", ""), scale):
        text = clean(item["text"])
        if normalise(text) not in repeated and not label:
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind in ("text", "header") and not item.get("text_level") and paged and is_page_title(item) and not label:
        text = clean(item["text"])  # a statement's title: "Amcor plc Consolidated Statements of Cash Flows"
        if titled_here(recurring, text, item):
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind == "header" and is_numbered_title(clean(item.get("text", ""))):
        text = clean(item["text"])  # flash labels a page's first line a header, "PART II" or "Note 10 - …" too
        if titled_here(recurring, text, item):
            return Block("heading", text, level=2, page=page, inferred=True)
    if kind in ("header", "footer", "text", "page_footnote") and not item.get("text_level"):
        text = clean(item.get("text", ""))
        if kind in ("header", "footer") and normalise(text) in repeated:
            return None
        if kind == "text" and normalise(text) in repeated and len(text) < 120:
            return None  # a running header that flash did not label as one
        if says_continues(text):
            return None  # "(Continued on following page)": the section goes on, and says so itself
        return Block("text", text, page=page) if has_words(text) else None
    if kind == "text":
        text = clean(item.get("text", ""))
        if not has_words(text) or (normalise(text) in repeated and (not paged or at_page_edge(item))):
            return None  # a running header; set as a heading within the page, it is the chapter's title there
        level = int(item["text_level"])
        return Block("heading", text, level=level, page=page, inferred=not levels_reliable)
    if kind in ("list", "index"):
        entries = [clean(x) for x in item.get("list_items", []) if has_words(x)]
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


def _table(item: Item, page: int | None) -> Block | None:
    body = item.get("table_body") or item.get("text_layer") or item.get("content") or ""
    body = without_inline_pictures(body)
    caption = " ".join(clean(c) for c in item.get("table_caption", []))
    footnote = " ".join(clean(c) for c in item.get("table_footnote", []))
    parts = [caption, body.strip(), footnote]
    text = "\n".join(p for p in parts if p)
    return Block("table", text, page=page) if has_words(_TAGS.sub(" ", text)) else None


_FILE_NAME = re.compile(r"[\w\s.()-]{1,80}\.(?:png|jpe?g|gif|bmp|tiff?|emf|wmf|svg|webp)", re.I)


def _figure(item: Item, page: int | None) -> Block | None:
    kind = item["type"]
    captions = (item.get("chart_caption") if kind == "chart" else None) or item.get("image_caption", [])
    footnotes = (item.get("chart_footnote") if kind == "chart" else None) or item.get("image_footnote", [])
    parts = [clean(x) for x in [*captions, *footnotes, item.get("text", "")] if x]
    recognised = (item.get("content") or item.get("text_layer") or "").strip()  # text inside a chart or scan
    if _FILE_NAME.fullmatch(recognised):  # an office picture's alt text is often just its file name
        recognised = ""
    text = "\n".join(p for p in [" ".join(parts), recognised] if p)
    if has_words(text):
        return Block("figure", text, page=page, picture=item.get("picture"))
    if item.get("picture") or is_sizeable(item.get("bbox")):  # a photo, a diagram: shown by read_section(images=true)
        return Block("figure", UNCAPTIONED, page=page, picture=item.get("picture"))
    return None


def _set_small(item: Item) -> bool:
    """A line no taller than body text (a page's number), not a display numeral ("1" over a slide's title)."""
    box = item.get("bbox")
    return bool(box) and box is not None and box[3] - box[1] <= FOLIO_HEIGHT


def _at_page_edge(item: Item) -> bool:
    box = item.get("bbox")
    return bool(box) and box is not None and (box[1] >= 900 or box[3] <= 100)
