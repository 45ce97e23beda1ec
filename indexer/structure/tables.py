"""Tables as text: their rows, and blocks of rows for a table too large to read at once.

A table paragraph holds HTML (`<tr>`/`<td>`, as MinerU gives it), Markdown pipes, or the
` | `-joined rows the PDF repair writes, with any caption before its grid. A table too large
for a tool answer is stored as blocks of rows (docs/design.md, "Data model"): each block repeats
the caption and the header rows and says which rows it holds, so each one reads, and is found,
on its own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from indexer.tokens import clip_to_tokens, count_tokens

# A table longer than this is stored as blocks of rows of about this size: several fit in one
# answer of the default budget, and the smallest budget (500) reads a block in parts.
TABLE_BLOCK_TOKENS = 1500

_ROW_RE = re.compile(r"<tr\b[^>]*>.*?</tr>", re.I | re.S)
_BLOCK_LABEL_RE = re.compile(r"\(rows ([\d,]+)–([\d,]+) of ([\d,]+)\)$")
_CELL_RE = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.I | re.S)
_TAG_RE = re.compile(r"<[^>]+>")
_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def without_tags(text: str) -> str:
    """A table's text with its HTML tags replaced by spaces."""
    return _TAG_RE.sub(" ", text)


def table_rows(text: str) -> tuple[str, list[list[str]]]:
    """A table paragraph as (the words before its grid, its rows of cell texts)."""
    if "<tr" in text.lower():
        start = text.lower().find("<table")
        caption = _TAG_RE.sub(" ", text[: max(start, 0)]).strip()
        rows = [
            [" ".join(html.unescape(_TAG_RE.sub(" ", cell)).split()) for cell in _CELL_RE.findall(row)]
            for row in _ROW_RE.findall(text)
        ]
        return caption, [r for r in rows if any(r)]
    caption_lines: list[str] = []
    rows = []
    for line in text.splitlines():
        if "|" not in line:
            if not rows:
                caption_lines.append(line.strip())
            continue
        if _SEPARATOR_RE.match(line):
            continue
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return " ".join(c for c in caption_lines if c), rows


def block_index(text: str, block_tokens: int = TABLE_BLOCK_TOKENS) -> int | None:
    """About which block of its table a paragraph is (0 for the first), from the "(rows a–b of N)"
    its first line ends with; None for a table stored whole."""
    match = _BLOCK_LABEL_RE.search(text.split("\n", 1)[0])
    if match is None:
        return None
    first, last = (int(g.replace(",", "")) for g in match.groups()[:2])
    return 0 if first == 1 else max(1, round((first - 1) / max(last - first + 1, 1)))


def split_table(text: str, block_tokens: int = TABLE_BLOCK_TOKENS) -> list[str]:
    """The table whole when it fits `block_tokens`, else blocks of consecutive rows, each with the
    caption, the header and "(rows a–b of N)"; rows are never cut."""
    if count_tokens(text) <= block_tokens:
        return [text]
    if "<tr" in text.lower():
        lowered = text.lower()
        start = lowered.find("<table")
        end = lowered.rfind("</table>")
        caption = text[: max(start, 0)].strip()
        after = text[end + len("</table>") :].strip() if end >= 0 else ""
        rows = _ROW_RE.findall(text)
        head_n = 1 if len(rows) > 1 else 0  # the first row heads the columns
        opening = re.match(r"<table\b[^>]*>", text[start:], re.I) if start >= 0 else None
        frame = (opening.group(0) if opening else "<table>", "</table>")
        head, body = rows[:head_n], rows[head_n:]
        blocks = _blocks(body, head, block_tokens, lambda h, b: frame[0] + "".join(h + b) + frame[1])
    else:
        lines = text.splitlines()
        first = next((i for i, line in enumerate(lines) if "|" in line), None)
        if first is None:  # not a grid: cut between lines
            return split_lines(text, block_tokens)
        caption = "\n".join(lines[:first]).strip()
        grid = [line for line in lines[first:] if line.strip()]
        head_n = 2 if len(grid) > 2 and _SEPARATOR_RE.match(grid[1]) else 1
        after = ""
        head, body = grid[:head_n], grid[head_n:]
        blocks = _blocks(body, head, block_tokens, lambda h, b: "\n".join(h + b))
    if len(blocks) <= 1:
        return [text]
    total = sum(n for _, n in blocks)
    out = []
    first_row = 1
    for i, (block, n) in enumerate(blocks):
        label = f"(rows {first_row:,}–{first_row + n - 1:,} of {total:,})"
        parts = [f"{caption} {label}".strip(), block]
        if i == len(blocks) - 1 and after:
            parts.append(after)
        out.append("\n".join(parts))
        first_row += n
    return out


def _blocks(
    rows: list[str], head: list[str], block_tokens: int, join: Callable[[list[str], list[str]], str]
) -> list[tuple[str, int]]:
    """Rows packed into blocks of at most `block_tokens` (a longer row is a block alone): (text, rows)."""
    budget = max(block_tokens - count_tokens("\n".join(head)) - 20, 1)
    out: list[tuple[str, int]] = []
    current: list[str] = []
    used = 0
    for row in rows:
        cost = count_tokens(row) + 1
        if current and used + cost > budget:
            out.append((join(head, current), len(current)))
            current, used = [], 0
        current.append(row)
        used += cost
    if current:
        out.append((join(head, current), len(current)))
    return out


def split_lines(text: str, block_tokens: int = TABLE_BLOCK_TOKENS) -> list[str]:
    """A giant list, code block or line-less dump in pieces of about `block_tokens`, cut between
    lines (and inside a line longer than that), so all of it can be read and found."""
    if count_tokens(text) <= block_tokens:
        return [text]
    lines: list[str] = []
    window = block_tokens * 12  # characters that surely hold more than block_tokens tokens, if the line is that long
    for line in text.splitlines():
        pos = 0
        while len(line) - pos > block_tokens:  # perhaps more tokens than a block: a 27 MB line of figures
            chunk = line[pos : pos + window]
            head = clip_to_tokens(chunk, block_tokens) or chunk[:block_tokens]
            if len(head) == len(chunk.rstrip()) and pos + window >= len(line):
                break  # the rest fits
            lines.append(head)
            pos += len(head)
        lines.append(line[pos:])
    return [b for b, _ in _blocks(lines, [], block_tokens, lambda h, b: "\n".join(b))]
