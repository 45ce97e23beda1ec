"""The PDF outline (bookmarks): where a PDF has one, it says how deep each heading sits.

Headings found in the outline take its depth; the others sit one level below the outline
heading before them, and a guessed one that reads like a sentence is text again.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer.blocks import as_text, looks_like_body_text
from indexer.models import Block
from indexer.parse.items import normalise


@dataclass
class OutlineEntry:
    title: str
    level: int  # 1 = top
    page: int | None = None  # 1-based


def apply_outline(blocks: list[Block], outline: list[OutlineEntry]) -> None:
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
                blocks[i] = as_text(blocks[i])
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
