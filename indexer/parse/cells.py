"""Tables flash cuts into cells: runs of short lines laid out in rows and columns are put
back together as one table, also across a page break.

Tables without ruling come out of flash's text layer as one text item per cell; alone,
"Age" or "52" can neither be found nor read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from indexer.models import Block, Item
from indexer.parse.blocks import is_number
from indexer.parse.items import clean

CELL_MAX_WORDS = 12
_ROW_LABEL = re.compile(r"\w\s?(?:\.\s?){4,}")  # "Net income ........ $": leaders lead to a value
_TABLE_MIN_CELLS = 6


def _is_cell(item: Item) -> bool:
    if item.get("type") != "text" or not item.get("bbox"):
        return False
    text = clean(item.get("text", ""))
    if _ROW_LABEL.search(text):  # dot leaders lead to a value in the next column: a row label, however long
        return True
    return (0 < len(text.split()) <= CELL_MAX_WORDS and not text.endswith((".", ":"))) or is_number(text)


def group_table_cells(items: list[Item]) -> Iterable[Item | list[Item]]:
    """Yield items, with runs of cell-like items that form a grid replaced by lists."""
    run: list[Item] = []
    end: Item = {"type": "end"}
    for item in [*items, end]:
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


def _rows(cells: list[Item]) -> list[list[Item]]:
    """Cells grouped into lines by vertical overlap, top to bottom, left to right."""
    rows: list[list[Item]] = []
    for cell in sorted(cells, key=lambda c: (c["bbox"][1] + c["bbox"][3]) / 2):
        middle = (cell["bbox"][1] + cell["bbox"][3]) / 2
        if rows and rows[-1][0]["bbox"][1] - 2 <= middle <= rows[-1][0]["bbox"][3] + 2:
            rows[-1].append(cell)
        else:
            rows.append([cell])
    return [sorted(row, key=lambda c: c["bbox"][0]) for row in rows]


def _is_grid(run: list[Item]) -> bool:
    if len(run) < _TABLE_MIN_CELLS:
        return False
    rows = _rows(run)
    multi = sum(1 for row in rows if len(row) >= 2)
    return multi >= 2 and multi >= 0.5 * len(rows)


def render_cells(cells: list[Item]) -> str:
    return "\n".join(" | ".join(clean(c.get("text", "")) for c in row) for row in _rows(cells))


def merge_tables_across_pages(blocks: list[Block]) -> list[Block]:
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
