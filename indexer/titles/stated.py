"""Titles a document states outright: the citation a report asks for, and the metadata title,
which is a title only when the document's text agrees with it.

A report that says how to cite it names its own title in the citation ("Recommended citation: …,
"Title""), which beats the contact lines and logos around it on the cover. PDF metadata titles
are often not titles at all: an accession number (`0000004962-23-000006`), a template's leftover
(`Document`, `Microsoft Word - F20_10K_VFinal`), a file system's name
(`Campaign_038_Introducing_AC_Whitepaper_v5e`), a website's (the page a datasheet was saved
from), or another document's (a 10-K saved over last year's proxy statement). So a metadata
title is shown only when the first pages print its words and, where it names a kind of
document ("Proxy Statement", "Form 10-K"), the cover says so too.
"""

from __future__ import annotations

import re

from indexer.models import Block, Item
from indexer.titles.lines import clean, is_banner, names_address

# A template's or a tool's leftover, or a file name, saved as the title.
_PLACEHOLDER_RE = re.compile(
    r"^(microsoft|untitled|powerpoint presentation|slide \d|document\s*\d*$|title$|presentation\d*$)"
    r"|\.(docx?|pptx?|xlsx?|pdf|indd|qxd|rtf|txt|tex|dvi)\b|\bexhibit\s+\d"  # a filing system's label
    r"|\w_\w|\b\d{6,}\b",  # words joined by underscores, a long number: a file's or a record's name
    re.I,
)


# A report's number before its title, a comma between ("GAO-23-106826, Cybersecurity: …"; not
# "ISO 27001: Information Security", whose code is part of its name).
_LEADING_ID_RE = re.compile(r"^(?:[A-Z]{1,8}[\s-])?[A-Z]{1,8}[\s-]?\d[\w.-]*\s*,\s+(?=\S)")


ID_DIGITS = 4  # a number this long in parts ("GAO-23-106826"), not a name's ("COVID-19", "FY 2024", "SB 1047")


def without_identifier(title: str) -> str:
    """A metadata title without the report number a publisher files it under."""
    found = _LEADING_ID_RE.match(title)
    if found is None or "-" not in found.group(0) or sum(ch.isdigit() for ch in found.group(0)) < ID_DIGITS:
        return title
    return title[found.end() :]


def metadata_title_ok(title: str) -> bool:
    """A metadata title worth showing: a few words, not a tool's placeholder, a file's name or
    id, a web address or a banner."""
    title = title.strip()
    return (
        len(title.split()) >= 2
        and not _PLACEHOLDER_RE.search(title)
        and not re.fullmatch(r"[\d\W_]+", title)
        and not is_banner(title)
        and not names_address(title)
    )


COVER_PAGES = 2  # a cover runs over its first page or two: the pages a metadata title must agree with
AGREEING_WORDS = 0.75  # the share of a metadata title's words the cover must print
# Kinds of document a metadata title may name; the cover must name the same one on a line of its own.
_KIND_RE = re.compile(
    r"\bproxy\s+statement|\bannual\s+report|\bquarterly\s+report|\b(?:10-[kq]|8-k|20-f|def\s*14a)\b|\bprospectus\b",
    re.I,
)
KIND_LINE_WORDS = (
    10  # a line this short that names a kind names the document's own (not "Portions of the Proxy Statement …")
)


def cover_text(blocks: list[Block], items: list[Item]) -> list[str]:
    """The lines of the first pages, from the blocks and from the parser's items (which keep the
    lines the blocks drop as running text, such as a title repeated atop every page, and the words
    a cover drawn as a picture carries in its text layer)."""
    lines = [line for b in blocks if b.page is None or b.page <= COVER_PAGES for line in b.text.splitlines()]
    lines += [
        line
        for i in items
        if isinstance(i.get("page_idx"), int) and i["page_idx"] < COVER_PAGES
        for line in (i.get("text") or i.get("text_layer") or "").splitlines()  # a drawn cover's words too
    ]
    return [clean(line) for line in lines if line.strip()]


def metadata_agrees(title: str, lines: list[str]) -> bool:
    """Whether the cover (`lines`, from `cover_text`) agrees with a metadata title: it prints most
    of its words, and names any kind of document the title names on a line of its own."""
    printed = {w for line in lines for w in re.findall(r"[^\W_]+", line.lower())}
    words = [w for w in re.findall(r"[^\W_]+", title.lower()) if len(w) >= 3 or w.isdigit()]
    if not words or sum(w in printed for w in words) < AGREEING_WORDS * len(words):
        return False
    for kind in _KIND_RE.finditer(title):
        said = re.compile(r"\s+".join(map(re.escape, kind.group(0).split())), re.I)
        if not any(said.search(line) and len(line.split()) <= KIND_LINE_WORDS for line in lines):
            return False
    return True


# A version printed after a title ("Release 23.7.R1", "Version 2.1", "v4", "Revision B", "2nd Edition").
_VERSION_RE = re.compile(
    r"^\s*[,:–—-]?\s*(?:(?:release|version|rev\.?|revision|v)\s*\d[\w.-]*|\d+(?:st|nd|rd|th)\s+edition)\s*$", re.I
)


def with_printed_version(title: str, lines: list[str]) -> str:
    """A metadata title as a line of the cover prints it with the release it documents after it
    ("Interface Configuration Guide" → "Interface Configuration Guide Release 23.7.R1"): a
    manual's metadata names the product's guide, its pages the release."""
    for line in lines:
        if line[: len(title)].lower() == title.lower() and _VERSION_RE.match(line[len(title) :]):
            return line
    return title


_CITATION_RE = re.compile(
    r"\b(recommended|suggested|preferred)\s+citation\b|\bcite\s+(this\s+\w+\s+)?as\b|\bplease\s+cite\b", re.I
)
_QUOTED_RE = re.compile(r"[\"“]([^\"“”]{8,240}?)[,.]?[\"”]")
CITATION_PAGES = 4  # a report says how to cite it on its cover or the pages right after


def citation_title(blocks: list[Block]) -> str | None:
    """The title a report gives in the citation it asks for ("Recommended citation: Pew Research
    Center, March 2021, "Americans' Views of China""), when that is a title (2–25 words)."""
    for block in blocks:
        if block.page is not None and block.page > CITATION_PAGES:
            break
        found = _CITATION_RE.search(block.text)
        if found is None:
            continue
        quoted = _QUOTED_RE.search(block.text, found.end())
        if quoted:
            title = clean(quoted.group(1)).strip(" ,.")
            if 2 <= len(title.split()) <= 25 and not is_banner(title):
                return title
    return None
