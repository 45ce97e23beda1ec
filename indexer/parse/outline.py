"""The PDF outline (bookmarks): where a PDF has one, it says how deep each heading sits.

Headings found in the outline take its depth; the others sit one level below the outline
heading before them, and a guessed one that reads like a sentence is text again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from indexer.models import Block
from indexer.parse.blocks import as_text, looks_like_body_text
from indexer.parse.items import normalise
from indexer.parse.numbering import KEYWORD_SCHEMES, numbering


@dataclass
class OutlineEntry:
    title: str
    level: int  # 1 = top
    page: int | None = None  # 1-based


def apply_outline(blocks: list[Block], outline: list[OutlineEntry]) -> None:
    """Headings found in the outline take its depth (and become trusted); the
    others sit one level below the outline heading before them, except one numbered in a
    keyword scheme the outline uses ("ITEM 6." whose title is on the next line, where the
    outline says "ITEM 6. [Reserved]"), which sits beside the last listed one of its scheme.
    An outline that puts one Item deeper than all the others (a bookmark filed under the last
    note) is overruled: a scheme's headings take the level most of its entries have."""
    wanted: dict[str, list[OutlineEntry]] = {}
    levels_of: dict[str, Counter[int]] = {}
    for entry in outline:
        wanted.setdefault(normalise(entry.title), []).append(entry)
        if (scheme := _keyword_scheme(entry.title)) is not None:
            levels_of.setdefault(scheme, Counter())[entry.level] += 1
    usual = {scheme: counts.most_common(1)[0][0] for scheme, counts in levels_of.items()}
    matched = 0
    current = 0
    scheme_level: dict[str, int] = {}  # keyword scheme → level of its last listed heading
    unlisted: list[int] = []
    for i, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        listed = _take_entry(wanted.get(normalise(block.text), []), block.page)
        scheme = _keyword_scheme(block.text)
        if listed:
            block.level = current = usual.get(scheme, listed.level) if scheme else listed.level
            matched += 1
            if scheme:
                scheme_level[scheme] = block.level
        else:
            block.level = scheme_level[scheme] if scheme in scheme_level else current + 1
            if scheme in scheme_level:
                current = block.level
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


def _take_entry(entries: list[OutlineEntry], page: int | None) -> OutlineEntry | None:
    """The first outline entry with this title that points at the heading's page (or the
    one before: bookmarks often target the end of the previous page). A table's "Revenue:"
    row label on page 60 is not the outline's "Revenue" section on page 35."""
    for i, entry in enumerate(entries):
        if entry.page is None or page is None or 0 <= page - entry.page <= 1:
            return entries.pop(i)
    return None


def _keyword_scheme(title: str) -> str | None:
    found = numbering(title)
    return found.scheme if found is not None and found.scheme in KEYWORD_SCHEMES and found.depth == 1 else None
