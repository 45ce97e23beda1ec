"""CSV files and spreadsheet sheets as Markdown tables, and so an office chart's data.

MinerU reads a `.csv` or an `.xlsx` sheet as an HTML table (`<tr>`, `<td><p>…</p></td>`, one
tag per line): a CSV of 6 rows came to 789 characters, most of them markup a model pays for
and learns nothing from. A Markdown pipe table says the same in a fraction of the tokens, and
models read it well. The table stays one table paragraph; one too large to read at once is
stored as blocks of rows with its header, as any table is (`indexer.structure.tables`).

A sheet is a grid, so nothing is lost: a merged cell keeps its text in its first cell and
leaves the cells it spans empty; rows and columns with nothing in them are dropped.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from indexer.models import Block

SHEET_FORMATS = frozenset({".csv", ".tsv", ".xlsx", ".xlsm", ".xls", ".ods"})
_TABLE_RE = re.compile(r"<table\b.*?</table>", re.I | re.S)


def sheets_as_markdown(blocks: list[Block]) -> list[Block]:
    """The table paragraphs of a CSV file or a workbook with their HTML grids as Markdown tables."""
    return [replace(b, text=_TABLE_RE.sub(_markdown, b.text)) if b.kind == "table" else b for b in blocks]


def charts_as_markdown(blocks: list[Block]) -> list[Block]:
    """An office chart's data, which MinerU gives as an HTML grid under its title, as a Markdown table."""
    return [
        replace(b, text=_TABLE_RE.sub(_markdown, b.text)) if b.kind == "figure" and "<table" in b.text else b
        for b in blocks
    ]


def _markdown(match: re.Match[str]) -> str:
    return markdown_table(match.group()) or match.group()


def markdown_table(html: str) -> str | None:
    """An HTML table as a Markdown pipe table, its first row the header; None when it holds no
    grid (a table nested in a cell, or no cells at all)."""
    reader = _Grid()
    reader.feed(html)
    reader.close()
    if reader.nested:
        return None
    rows = [row for row in _place(reader.rows) if any(row)]
    if not rows:
        return None
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    used = [c for c in range(width) if any(row[c] for row in rows)]
    rows = [[row[c] for c in used] for row in rows]
    lines = [_line(rows[0]), "|" + "---|" * len(used)]
    lines.extend(_line(row) for row in rows[1:])
    return "\n".join(lines)


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _place(rows: list[list[tuple[str, int, int]]]) -> list[list[str]]:
    """Cells (text, colspan, rowspan) onto a grid: a spanned cell's text in its first slot only."""
    grid: list[list[str]] = []
    above: dict[int, int] = {}  # column → rows below still covered by a span that began above
    for row in rows:
        out: list[str] = []
        spans: dict[int, int] = {}
        for text, colspan, rowspan in row:
            while above.get(len(out)):
                out.append("")
            for dc in range(colspan):
                if rowspan > 1:
                    spans[len(out)] = rowspan - 1
                out.append("" if dc else text)
        while above and len(out) <= max(c for c, n in above.items() if n):
            out.append("")
        grid.append(out)
        above = {c: n - 1 for c, n in above.items() if n > 1} | spans
    return grid


class _Grid(HTMLParser):
    """Rows of (text, colspan, rowspan) from an HTML table; `nested` when a table sits in a cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int]]] = []
        self.nested = False
        self._tables = 0
        self._cell: list[str] | None = None
        self._span = (1, 1)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._tables += 1
            self.nested = self.nested or self._tables > 1
        elif tag == "tr":
            self._end_cell()
            self.rows.append([])
        elif tag in ("td", "th"):
            self._end_cell()
            if not self.rows:
                self.rows.append([])
            named = dict(attrs)
            self._span = (_span(named.get("colspan")), _span(named.get("rowspan")))
            self._cell = []
        elif tag in ("br", "p", "div", "li") and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "tr"):
            self._end_cell()
        elif tag == "table":
            self._end_cell()
            self._tables -= 1

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def _end_cell(self) -> None:
        if self._cell is not None:
            text = " ".join("".join(self._cell).split()).replace("|", "\\|")
            self.rows[-1].append((text, *self._span))
            self._cell = None


def _span(value: str | None) -> int:
    """A colspan or rowspan as written, within reason (a sheet's merged block, not a million columns)."""
    try:
        return min(max(int(value or 1), 1), 1000)
    except ValueError:
        return 1
