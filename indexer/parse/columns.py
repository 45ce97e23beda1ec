"""Columns: an item flash reads across a page's columns is cut back into them, and the page read column by column.

On a page set in columns, flash sometimes takes lines that stand side by side in two or three
columns for one paragraph: the Federal Register's "14 CFR Part 39" beside "For Boeing service
information" beside "and other" became one item whose lines alternate between the columns, and
the items after it were ordered around it (the top of each column, then the rest of each). The
evidence is the page's: a gap running down the whole item between its words, where the page has
a gutter (no other item crosses it, and items stand on both sides of it), and lines on both sides
of it (a line with a wide space in it, "Hold [SHIFT] Key", is one line). Such an item is cut at
each gutter into one item per column (its words read from the text layer), and that page's
items are ordered again: across a gutter that nothing crosses, a column is read to its foot
before the next; above and below anything that spans the columns (a title, a figure), the bands
are read in turn (`reading_order`).
"""

from __future__ import annotations

import itertools

from indexer.models import Item
from indexer.parse.pdf_layers import PageWord, join_lines, lines_of, union_box, words_of

GUTTER = 6.0  # page units (of 1000): the least gap between columns
SIDE_ITEMS = 2  # a gutter has at least this many of the page's other items on each side
MIN_LINES = 2  # each column's part of an item read across them holds at least this many lines
EDGE_TYPES = ("header", "footer", "page_number")  # at the page's edges: kept where they are


def split_across_columns(items: list[Item], words: list[PageWord]) -> list[Item] | None:
    """A page's items with each one read across columns cut into its columns, in reading order;
    None when no item crosses a gutter (the page is left as flash ordered it)."""
    body = [it for it in items if it.get("bbox") and it.get("type") not in EDGE_TYPES]
    out: list[Item] = []
    cut = False
    for item in items:
        box = item.get("bbox")
        if item.get("type") != "text" or not box:
            out.append(item)
            continue
        mine = words_of(item, items, words)
        gutters = [g for g in _gaps(mine) if _is_gutter(g, item, body)]
        if not gutters:
            out.append(item)
            continue
        edges = [float("-inf"), *(g[0] for g in gutters), float("inf")]
        parts = [[w for w in mine if left < w.middle[0] <= right] for left, right in itertools.pairwise(edges)]
        if any(len(lines_of(part)) < MIN_LINES for part in parts):  # a line with a gap in it, not columns
            out.append(item)
            continue
        cut = True
        for part in parts:
            out.append(
                {
                    "type": "text",
                    "text": join_lines(lines_of(part)),
                    "bbox": union_box(part),
                    "page_idx": item.get("page_idx", 0),
                }
            )
    return reading_order(out) if cut else None


def _gaps(words: list[PageWord]) -> list[tuple[float, float]]:
    """Horizontal gaps at least GUTTER wide that no word of the item crosses, top to bottom."""
    if len(words) < 2:
        return []
    spans = sorted((w.x0, w.x1) for w in words)
    gaps = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= GUTTER:
            gaps.append((reach, x0))
        reach = max(reach, x1)
    return gaps


def _is_gutter(gap: tuple[float, float], item: Item, body: list[Item]) -> bool:
    """No other item on the page crosses the gap, and the page has items on both sides of it."""
    left, right = gap
    others = [it["bbox"] for it in body if it is not item]
    if any(b[0] < left - 1 and b[2] > right + 1 for b in others):
        return False
    return sum(b[2] <= right for b in others) >= SIDE_ITEMS and sum(b[0] >= left for b in others) >= SIDE_ITEMS


def reading_order(items: list[Item]) -> list[Item]:
    """A page's items in reading order by position: the page's headers first and its footers, page
    numbers and footnotes last, as they were; the rest by recursive cuts, down a gutter first
    (a column is read to its foot), else across (bands top to bottom)."""
    top = [it for it in items if it.get("type") == "header" or not it.get("bbox")]
    bottom = [it for it in items if it.get("type") in ("footer", "page_number", "page_footnote") and it.get("bbox")]
    placed = {id(it) for it in top + bottom}
    body = [it for it in items if id(it) not in placed]
    return top + _cut(body) + bottom


def _cut(items: list[Item]) -> list[Item]:
    if len(items) <= 1:
        return items
    for axis in (0, 1):  # 0: side by side (columns), 1: one above the other (bands)
        groups = _groups(items, axis)
        if len(groups) > 1:
            return [it for group in groups for it in _cut(group)]
    return sorted(items, key=lambda it: (it["bbox"][1], it["bbox"][0]))


def _groups(items: list[Item], axis: int) -> list[list[Item]]:
    """Items split where nothing spans a gap along the axis (x for 0, y for 1)."""
    ordered = sorted(items, key=lambda it: it["bbox"][axis])
    groups: list[list[Item]] = [[ordered[0]]]
    reach = ordered[0]["bbox"][axis + 2]
    for item in ordered[1:]:
        if item["bbox"][axis] >= reach - 1:
            groups.append([item])
        else:
            groups[-1].append(item)
        reach = max(reach, item["bbox"][axis + 2])
    return groups
