"""Plain text → blocks.

Plain text declares no structure, so headings are inferred (and marked so):
setext-style underlines, short numbered lines (`2.1 Methods`, `第一章 总则`), and
short ALL-CAPS lines standing alone. Blocks are separated by blank lines; a block
whose lines all start with a bullet or number is a list.
"""

from __future__ import annotations

import re

from indexer.models import Block, ParsedDocument
from indexer.parse.numbering import is_cjk_heading

_UNDERLINE_RE = re.compile(r"^(=+|-+|~+|\^+|\*+)\s*$")
# "2.1 Methods", "Chapter 3 Results", "IV. Discussion", "B) Appendix": a letter or roman numeral
# needs its "." or ")" — otherwise "I will be away on Monday" would be a heading.
_NUMBERED_HEADING_RE = re.compile(
    r"^(?:(?:[Cc]hapter|[Ss]ection|[Pp]art)\s+)?(\d+(?:\.\d+)*[.)]?|[IVXLC]+[.)]|[A-Z][.)])\s+([A-Z][^\n]{1,78})$"
)
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*•·‣◦]|\d+[.)]|[a-z][.)])\s+")
_SENTENCE_END_RE = re.compile(r"[.;,:!?]\s*$")


def parse_text(source: str) -> ParsedDocument:
    blocks: list[Block] = []
    for chunk in re.split(r"\n\s*\n", source):
        lines = [line.rstrip() for line in chunk.strip("\n").split("\n") if line.strip()]
        if lines:
            blocks.extend(_classify(lines))
    return ParsedDocument(blocks=blocks)


def _classify(lines: list[str]) -> list[Block]:
    if len(lines) == 2 and _UNDERLINE_RE.match(lines[1]) and len(lines[0].strip()) <= 100:
        level = 1 if lines[1].lstrip()[0] in "=*" else 2
        return [Block("heading", lines[0].strip(), level=level, inferred=True)]
    if len(lines) == 1:
        heading = _heading(lines[0])
        return [heading] if heading else [Block("text", lines[0].strip())]
    if all(_LIST_ITEM_RE.match(line) or line.startswith((" ", "\t")) for line in lines):
        return [Block("list", "\n".join(lines))]
    heading = _heading(lines[0])
    if heading and not _LIST_ITEM_RE.match(lines[1]):
        return [heading, Block("text", " ".join(line.strip() for line in lines[1:]))]
    if _looks_preformatted(lines):
        return [Block("code" if _is_code(lines) else "table", "\n".join(lines))]
    return [Block("text", " ".join(line.strip() for line in lines))]


def _heading(line: str) -> Block | None:
    text = line.strip()
    if is_cjk_heading(text):  # its level comes from its numbering (`indexer.structure.sections`)
        return Block("heading", text, level=1, inferred=True)
    if len(text) > 80 or _SENTENCE_END_RE.search(text) or line.startswith((" ", "\t")):
        return None
    match = _NUMBERED_HEADING_RE.match(text)
    if match:
        number = match.group(1).rstrip(".)")
        depth = number.count(".") + 1 if number[0].isdigit() else 1
        return Block("heading", text, level=depth, inferred=True)
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) >= 4 and all(ch.isupper() for ch in letters) and len(text.split()) <= 8:
        return Block("heading", text, level=1, inferred=True)
    return None


def _looks_preformatted(lines: list[str]) -> bool:
    """Aligned columns or indented code: keep the line breaks."""
    columns = sum(1 for line in lines if "\t" in line.strip() or "  " in line.strip() or "|" in line)
    return columns >= max(2, len(lines) * 0.6)


def _is_code(lines: list[str]) -> bool:
    return sum(1 for line in lines if line.rstrip().endswith(("{", "}", ";", ")", ":"))) >= len(lines) * 0.5
