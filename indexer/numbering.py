"""Heading numbering: which scheme a heading uses, and the depth that implies.

Used when a source gives no trustworthy heading levels (plain text, PDFs from
MinerU's flash tier, where every heading is level 2). Schemes nest in the
order a document introduces them: in a 10-K, "PART I" comes first and
"Item 1A." inside it; in a paper, "1 Introduction" is top and "2.1" one level
down; in a Chinese report, "第一节" then "一、" then "（一）".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CJK_NUM = "一二三四五六七八九十百零〇两"
_ROMAN = r"[IVXLC]+"

# (scheme, pattern); the first match wins. Decimal numbers carry their own depth.
_SCHEMES: list[tuple[str, re.Pattern[str]]] = [
    ("part", re.compile(rf"^part\s+({_ROMAN}|\d+|[A-Z])\b", re.I)),
    ("chapter", re.compile(rf"^chapter\s+({_ROMAN}|\d+)\b", re.I)),
    ("article", re.compile(rf"^article\s+({_ROMAN}|\d+)\b", re.I)),
    ("item", re.compile(r"^item\s+\d+[A-Z]?\b", re.I)),
    ("note", re.compile(r"^note\s+\d+\b", re.I)),
    ("appendix", re.compile(r"^appendix\s+([A-Z]|\d+)\b", re.I)),
    ("cjk-chapter", re.compile(rf"^第[{_CJK_NUM}\d]+[章编部]")),
    ("cjk-section", re.compile(rf"^第[{_CJK_NUM}\d]+节")),
    ("cjk-article", re.compile(rf"^第[{_CJK_NUM}\d]+条")),
    ("cjk-enum", re.compile(rf"^[{_CJK_NUM}]+[、.．]")),
    ("cjk-paren", re.compile(rf"^[（(][{_CJK_NUM}]+[）)]")),
    ("paren-number", re.compile(r"^[（(]\d{1,2}[）)]\s*\S")),
    ("roman", re.compile(rf"^{_ROMAN}\.\s+\S")),
    ("letter", re.compile(r"^[A-Z]\.\s+[A-Z]")),
]
_DECIMAL = re.compile(r"^(?:section\s+)?(\d{1,2}(?:\.\d{1,3})*)\.?\s+\S", re.I)
_LETTER_DECIMAL = re.compile(r"^([A-Z](?:\.\d{1,3})+)\.?\s+\S")

# Unnumbered headings that stand at the top even inside a numbered document.
_TOP_LEVEL_WORDS = re.compile(
    r"^(abstract|contents|table of contents|preface|foreword|introduction|acknowledge?ments?|references|"
    r"bibliography|appendix|appendices|glossary|signatures?|exhibits?|conclusions?)\b",
    re.I,
)


@dataclass(frozen=True)
class Numbering:
    scheme: str
    depth: int  # 1 except for decimal numbers: "2.1.3" has depth 3


def numbering(title: str) -> Numbering | None:
    title = title.strip().lstrip("#*_ ").strip()
    for scheme, pattern in _SCHEMES:
        if pattern.match(title):
            return Numbering(scheme, 1)
    match = _DECIMAL.match(title) or _LETTER_DECIMAL.match(title)
    if match:
        return Numbering("decimal", match.group(1).count(".") + 1)
    return None


def _first_number(title: str) -> int:
    match = re.search(r"\d+", title)
    return int(match.group()) if match else 0


def numbering_depth(title: str) -> int | None:
    """Depth implied by a heading's number: `3` → 1, `3.2.1` → 3, `A.1` → 2; None if unnumbered."""
    found = numbering(title)
    return found.depth if found else None


def levels_from_numbering(titles: list[str]) -> list[int]:
    """Levels (1 = top) for headings whose source levels carry no information.

    A scheme's level is fixed where it first appears: at the top when no
    numbered heading is open, else one below the numbered heading before it.
    An unnumbered heading sits one below the last numbered one ("Consolidated
    Balance Sheets" under "Item 8."), except front and back matter ("Abstract",
    "References") and anything before the first number, which stay at the top.
    """
    scheme_level: dict[str, int] = {}
    last_numbered: int | None = None
    levels: list[int] = []
    for title in titles:
        found = numbering(title)
        if found is not None and found.scheme == "decimal" and "decimal" not in scheme_level and _first_number(title) > 3:
            found = None  # numbering starts low: "83 Tower Road" on a cover page is an address
        if found is None:
            top = last_numbered is None or _TOP_LEVEL_WORDS.match(title.strip())
            levels.append(1 if top else last_numbered + 1)  # type: ignore[operator]
            continue
        if found.scheme not in scheme_level:
            scheme_level[found.scheme] = 1 if last_numbered is None else last_numbered + 1
        level = scheme_level[found.scheme] + found.depth - 1
        levels.append(level)
        last_numbered = level
    return levels
