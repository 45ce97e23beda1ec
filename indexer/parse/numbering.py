"""Heading numbering: which scheme a heading uses, and the depth that implies.

Used when a source gives no trustworthy heading levels (plain text, PDFs from
MinerU's flash tier, where every heading is level 2). Schemes nest in the
order a document introduces them: in a 10-K, "PART I" comes first and
"Item 1A." inside it; in a paper, "1 Introduction" is top and "2.1" one level
down; in a Chinese report, "第一节" then "一、" then "（一）"; in a Japanese one "第1章",
"第1節", "1．"; in a Korean one "제1장", "제1절".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CJK_NUM = "一二三四五六七八九十百千零〇两壹贰叁肆伍陆柒捌玖拾"  # \d also matches fullwidth digits (１２３)
_ROMAN = r"[IVXLC]+"

# (scheme, pattern); the first match wins. Decimal numbers carry their own depth.
_SCHEMES: list[tuple[str, re.Pattern[str]]] = [
    ("part", re.compile(rf"^part\s+({_ROMAN}|\d+|[A-Z])\b", re.I)),
    ("chapter", re.compile(rf"^chapter\s+({_ROMAN}|\d+)\b", re.I)),
    ("article", re.compile(rf"^article\s+({_ROMAN}|\d+)\b", re.I)),
    ("item", re.compile(r"^items?\s+\d+[A-Z]?\b", re.I)),
    ("note", re.compile(r"^note\s+\d+\b", re.I)),
    ("appendix", re.compile(r"^appendix\s+([A-Z]|\d+)\b", re.I)),
    ("cjk-chapter", re.compile(rf"^第\s?[{_CJK_NUM}\d]+\s?[章编編部篇卷回]")),
    ("cjk-section", re.compile(rf"^第\s?[{_CJK_NUM}\d]+\s?[节節]")),
    ("cjk-article", re.compile(rf"^第\s?[{_CJK_NUM}\d]+\s?[条條]")),
    ("ko-chapter", re.compile(r"^제\s?\d+\s?[장편부]")),
    ("ko-section", re.compile(r"^제\s?\d+\s?절")),
    ("ko-article", re.compile(r"^제\s?\d+\s?조")),
    ("cjk-enum", re.compile(rf"^[{_CJK_NUM}]+[、.．]")),
    ("cjk-paren", re.compile(rf"^[（(][{_CJK_NUM}]+[）)]")),
    ("cjk-number", re.compile(r"^\d{1,2}[、．]\s*[^\s\d]")),  # "1、总则", "１．概要": no space after, as CJK writes
    ("paren-number", re.compile(r"^[（(]\d{1,2}[）)]\s*\S")),
    ("roman", re.compile(rf"^{_ROMAN}\.\s+\S")),
    ("letter", re.compile(r"^[A-Z]\.\s+[A-Z]")),
]
# Schemes named by a word ("Item 7."), as opposed to bare numbers, letters or numerals.
KEYWORD_SCHEMES = frozenset(
    {
        *("part", "chapter", "article", "item", "note", "appendix"),
        *("cjk-chapter", "cjk-section", "cjk-article", "ko-chapter", "ko-section", "ko-article"),
    }
)
_CJK_SCHEMES = KEYWORD_SCHEMES - {"part", "chapter", "article", "item", "note", "appendix"} | {
    "cjk-enum",
    "cjk-paren",
    "cjk-number",
}
_CJK_SENTENCE_END = re.compile(r"[。！？；，：.!?;,:]\s*$")
MAX_CJK_HEADING = 40  # characters: a numbered line longer than this is a numbered paragraph
_DECIMAL = re.compile(r"^(?:section\s+)?(\d{1,2}(?:\.\d{1,3})*)\.?\s+\S", re.I)
_LETTER_DECIMAL = re.compile(r"^([A-Z](?:\.\d{1,3})+)\.?\s+\S")

# Unnumbered headings that stand at the top even inside a numbered document.
_TOP_LEVEL_WORDS = re.compile(
    r"^(abstract|contents|table of contents|preface|foreword|introduction|acknowledge?ments?|references|"
    r"bibliography|appendix|appendices|glossary|signatures?|exhibits?|conclusions?|methodology)\b",
    re.I,
)
_CONTENTS = re.compile(r"^(table of )?contents\b", re.I)  # met after the body began: the index of a part
# What follows a document's body and belongs to none of its chapters.
_BACK_MATTER = re.compile(
    r"^(?:[A-Z](?:\.\d+)*\.?\s+)?(references|bibliography|works cited|literature cited|acknowledge?ments?|"
    r"appendix(\b.*)?|appendices|supplementary (material|information))\W*$",
    re.I,
)


# A keyword and its number, as a heading opens with them ("Item 7A.", "NOTE 4", "Chapter III").
_KEYWORD_NUMBER = re.compile(r"(part|item|note|chapter|article|appendix|section)\s+(\d+[a-z]?|[ivxlc]+)\b\.?", re.I)


def keyword_number(title: str, alone: bool = False) -> tuple[str, str] | None:
    """The keyword and number a title opens with, in lower case ("item", "7a"); `alone`: only when
    they are the whole title ("ITEM 6.", its words on the next line or in the outline)."""
    text = " ".join(title.split())
    found = _KEYWORD_NUMBER.fullmatch(text) if alone else _KEYWORD_NUMBER.match(text)
    return (found.group(1).lower(), found.group(2).lower()) if found else None


def without_keyword_number(title: str) -> str:
    """The title's words after the keyword and number it opens with ("Selected Financial Data")."""
    return _KEYWORD_NUMBER.sub("", " ".join(title.split()), count=1).strip()


def is_back_matter(title: str) -> bool:
    """References, a bibliography, acknowledgements, an appendix: after the body, in none of its chapters."""
    return bool(_BACK_MATTER.match(title.strip()))


@dataclass(frozen=True)
class Numbering:
    scheme: str
    depth: int  # 1 except for decimal numbers: "2.1.3" has depth 3


def is_cjk_heading(line: str) -> bool:
    """A line standing alone that a CJK document numbers as a heading ("第一章 总则", "第1節 概要",
    "一、基本情况", "（一）", "제1장 총칙"): short, and no sentence (it does not end like one)."""
    text = line.strip()
    found = numbering(text)
    return (
        found is not None
        and found.scheme in _CJK_SCHEMES
        and len(text) <= MAX_CJK_HEADING
        and not _CJK_SENTENCE_END.search(text)
    )


def numbering(title: str) -> Numbering | None:
    title = title.strip().lstrip("#*_ ").strip()
    for scheme, pattern in _SCHEMES:
        if pattern.match(title):
            return Numbering(scheme, 1)
    match = _DECIMAL.match(title) or _LETTER_DECIMAL.match(title)
    if match:
        return Numbering("decimal", match.group(1).count(".") + 1)
    return None


# A second heading run into the first: "Part I - Financial Information Item 1. Financial Statements".
_RUN_IN = re.compile(r"\s(?=(?:Item|ITEM|Chapter|CHAPTER|Article|ARTICLE)\s+(?:\d+[A-Z]?|[IVXLC]+)\s*[.:\-–—])")


_DECIMAL_RUN_IN = re.compile(r"\s(?=(\d{1,2}(?:\.\d{1,3})+)\.?\s+\S)")


def split_run_in_heading(title: str) -> list[str]:
    """A part or chapter heading with the first item or chapter below it on the same line, or a
    numbered heading with its first sub-heading ("3.3 Milk or milk foam 3.3.1 Connect up the
    milk"), as two headings; anything else unchanged."""
    found = numbering(title)
    decimal = _DECIMAL.match(title)
    if found is not None and found.scheme == "decimal" and decimal is not None:
        for match in _DECIMAL_RUN_IN.finditer(title):
            if match.group(1).startswith(decimal.group(1) + "."):  # the one below it, not a sibling
                return [title[: match.start()].rstrip(), *split_run_in_heading(title[match.end() :])]
        return [title]
    if found is None or found.scheme not in ("part", "chapter"):
        return [title]
    for match in _RUN_IN.finditer(title):
        second = title[match.end() :]
        inner = numbering(second)
        if inner is not None and inner.scheme != found.scheme:
            return [title[: match.start()].rstrip(" -–—:"), second]
    return [title]


def _first_number(title: str) -> int:
    match = re.search(r"\d+", title)
    return int(match.group()) if match else 0


def numbering_depth(title: str) -> int | None:
    """Depth implied by a heading's number: `3` → 1, `3.2.1` → 3, `A.1` → 2; None if unnumbered."""
    found = numbering(title)
    return found.depth if found else None


_INSIDE_A_PART = ("item", "chapter", "article")


def _opens_chapter(titles: list[str], found_all: list[Numbering | None], i: int, at: int) -> bool:
    """The unnumbered heading `i` is followed (at `at`) by a decimal heading below a chapter other
    than the last numbered one's ("2.6 …", then "VERIFICATION", then "4.1 …"): a chapter's own
    title, its number set apart or not at all."""
    following = found_all[at]
    if following is None or following.scheme != "decimal" or following.depth < 2:
        return False
    before = next((k for k in range(i - 1, -1, -1) if (f := found_all[k]) is not None and f.scheme == "decimal"), None)
    return before is None or _first_number(titles[before]) != _first_number(titles[at])


def levels_from_numbering(titles: list[str]) -> list[int]:
    """Levels (1 = top) for headings whose source levels carry no information.

    A scheme's level is fixed where it first appears: at the top when no
    numbered heading is open, else one below the numbered heading before it.
    An unnumbered heading sits one below the last numbered one ("Consolidated
    Balance Sheets" under "Item 8.", and a "Table of Contents" there: the index of
    its statements), except front and back matter ("Abstract", "References") and
    anything before the first number, which stay at the top;
    but front or back matter met between two headings of a word scheme inside
    another ("Glossary" between "Item 7." and "Item 7A.") sits beside them. An unnumbered heading
    that repeats one met before the first numbered heading opens the document's sequence again
    (a second notice, article or report bound in the same file): at the top, and what follows
    it is read as what followed the first.
    """
    found_all = [numbering(title) for title in titles]
    for i, (title, found) in enumerate(zip(titles, found_all, strict=True)):
        first_decimal = not any(f is not None and f.scheme == "decimal" for f in found_all[:i])
        if found is not None and found.scheme == "decimal" and _first_number(title) > 3 and first_decimal:
            found_all[i] = None  # numbering starts low: "83 Tower Road" on a cover page is an address
    scheme_level: dict[str, int] = {}
    last_numbered: int | None = None
    levels: list[int] = []
    opening: set[str] = set()  # the unnumbered headings met before the first numbered one
    for i, (title, found) in enumerate(zip(titles, found_all, strict=True)):
        if found is None and _CONTENTS.match(title.strip()) is None:
            key = " ".join(title.casefold().split())
            if last_numbered is None:
                opening.add(key)
            elif key in opening:  # the document's opening heading again: a second notice or article begins
                levels.append(1)
                last_numbered = None
                continue
        if found is None:
            matter = _TOP_LEVEL_WORDS.match(title.strip()) and not _CONTENTS.match(title.strip())
            top = last_numbered is None or matter
            level = 1 if top else last_numbered + 1  # type: ignore[operator]
            at = next((k for k in range(i + 1, len(titles)) if found_all[k] is not None), None)
            following = found_all[at] if at is not None else None
            if top and last_numbered is not None and following is not None and following.scheme != "decimal":
                level = max(1, scheme_level.get(following.scheme, 1))  # the next heading continues a scheme
            elif at is not None and _opens_chapter(titles, found_all, i, at) and "decimal" in scheme_level:
                level = scheme_level["decimal"]  # a chapter's title without its number: "INSTALLATION" over "2.1"
            levels.append(level)
            continue
        if found.scheme not in scheme_level:  # appendices are back matter: always at the top
            scheme_level[found.scheme] = 1 if last_numbered is None or found.scheme == "appendix" else last_numbered + 1
            contained = [scheme_level[s] for s in _INSIDE_A_PART if s in scheme_level]
            if found.scheme == "part" and contained:  # a part first met after its items (its own heading
                scheme_level["part"] = min(contained)  # unread): beside them, never inside one
        level = scheme_level[found.scheme] + found.depth - 1
        levels.append(level)
        last_numbered = level
    return levels
