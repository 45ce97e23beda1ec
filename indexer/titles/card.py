"""A document's card: what kind of document it is, who issued or wrote it, its own date or period,
and one line of what it is about, taken from it. A host reads the card to pick a document before it
opens one, and a whole-folder question that says what kind of document it asks about ("in slide 4",
"this paper") is pointed at the documents of that kind (`indexer.search.documents`).

Each field comes from evidence any document of its kind has, not from phrases seen in one file:

* **kind**: the format where it is the kind (a deck, a workbook), a filing's cover, a court
  paper's caption (parties "A v. B" with the court or a case number), a paper's abstract and
  references, the title's own kind word ("User Manual", "Annual Report", "Syllabus"), a letter's
  salutation, a memo's To/From/Subject lines, pages of few words (slides), else a report for a
  long paged document and a document for the rest;
* **issuer**: a filing's registrant, a court paper's court, a paper's authors (the names under its
  title), the institution its cover names, an e-mail's sender, else who the file declares as its
  author;
* **date**: the period, date or version the document states on its first pages
  (`indexer.titles.filings.stated_detail`), else the date its first page prints, else the day the
  file declares it was made;
* **about**: the first sentence of its abstract or summary, else of its first paragraph of prose,
  at most ABOUT_WORDS words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.models import Block, Declared, Item, Paragraph, Section
from indexer.parse.dates import MONTH
from indexer.parse.junk import is_junk
from indexer.titles.caption import Caption, read_caption
from indexer.titles.filings import is_filing, registrant, stated_detail
from indexer.titles.lines import (
    MARKS_RE,
    first_page_lines,
    is_boilerplate,
    is_byline_name,
    is_person,
    names_address,
    names_institution,
    names_people,
    reads_as_title,
)

ABOUT_WORDS = 25
ABOUT_MIN_WORDS = 8  # a paragraph shorter than this is a label, a field or a caption, not prose
OPENING_PARAGRAPHS = 60  # the first paragraph of prose is looked for among these
DECK_TOKENS_PER_PAGE = 200  # a deck's pages average fewer tokens than this (a report's, a manual's: 220 and up)
LONG_PAGES = 8  # a paged document of this many pages or more, of no other kind, is a report
AUTHOR_LINES = 8  # a paper's authors are among the lines of its first page right after its title
BYLINE_LINES = 30  # a byline ("By Jane Roe") is among the first page's first lines
MAX_AUTHORS = 3

FORMAT_KINDS = {
    ".pptx": "slides",
    ".ppt": "slides",
    ".odp": "slides",
    ".xlsx": "spreadsheet",
    ".xlsm": "spreadsheet",
    ".xls": "spreadsheet",
    ".ods": "spreadsheet",
    ".csv": "spreadsheet",
    ".tsv": "spreadsheet",
    ".eml": "e-mail",
    ".msg": "e-mail",
    ".epub": "book",
}
# The kind a title names in its own words ("User Manual", "Annual Report 2022", "Course Syllabus").
_TITLE_KINDS = (
    ("manual", r"\b(manual|handbook|user'?s? guide|owner'?s? guide|instructions|quick start)\b"),
    ("guide", r"\b(guide|guidebook|tutorial)\b"),
    ("syllabus", r"\b(syllabus|course outline)\b"),
    ("transcript", r"\b(transcript|oral argument)\b"),
    ("hearing", r"\bhearings?\b"),
    ("minutes", r"\bminutes\b"),
    ("agenda", r"\bagenda\b"),
    ("brochure", r"\b(brochure|prospectus|catalog(ue)?|factsheet|fact sheet|datasheet)\b"),
    ("newsletter", r"\b(newsletter|bulletin)\b"),
    ("form", r"\b(application form|questionnaire)\b|^form\b"),
    ("plan", r"\bplan\b"),
    ("policy", r"\bpolic(y|ies)\b"),
    ("report", r"\b(report|review|study|survey|assessment|analysis|white ?paper)\b"),
    ("slides", r"\b(presentation|slides|slide deck|webinar)\b"),
)
PLAIN = "document"  # the kind of a document no evidence says more of
_ABSTRACT_RE = re.compile(r"^\W*(abstract|summary|executive summary|synopsis|overview|introduction|purpose)\b", re.I)
_REFERENCES_RE = re.compile(r"^\W*(\d+\.?\s*)?(references|bibliography|works cited|literature cited)\W*$", re.I)
# A letter's greeting or its close ("Dear Ms Li,", "To whom it may concern:", "Best regards, Ann").
_SALUTATION_RE = re.compile(
    r"^\s*(dear\s+\w|to whom it may concern\b|(best|kind|warm)(est)?\s+regards\b|(yours\s+)?sincerely\b)", re.I
)
_MEMO_FIELDS_RE = re.compile(r"^\s*\**(to|from|subject|re|date|cc)\s*\**\s*:", re.I | re.M)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s+(?=[\"'(“]?[A-Z0-9\u3400-\u9fff])|(?<=[。！？])")
_DATE_LINE_RE = re.compile(
    rf"\b((?:{MONTH}\s+\d{{1,2}}(?:\s*[-–]\s*\d{{1,2}})?,?\s+\d{{4}})|(?:\d{{1,2}}\s+{MONTH}\s+\d{{4}})|(?:{MONTH}\s+\d{{4}}))\b",
    re.I,
)


@dataclass
class Card:
    kind: str | None = None
    issuer: str | None = None
    date: str | None = None
    about: str | None = None


def make_card(
    title: str,
    blocks: list[Block],
    items: list[Item] | None,
    declared: Declared,
    file_format: str,
    n_pages: int | None,
    sections: list[Section],
    paragraphs: list[Paragraph],
) -> Card:
    """The card of a document built from `blocks` (the parser's, in reading order) into `sections`
    and `paragraphs`, named `title`."""
    first = first_page_lines(blocks, items)
    court = read_caption(first)
    filing = is_filing(blocks)
    kind = _kind(title, blocks, file_format, n_pages, sections, paragraphs, first, filing, court)
    if kind == "e-mail":  # a message says outright who sent it and when
        sender = declared.authors[0] if declared.authors else None
        return Card(kind, _display_name(sender), _declared_date(declared), about_line(sections, paragraphs))
    return Card(
        kind=kind,
        issuer=_issuer(kind, blocks, first, title, declared, court),
        date=stated_detail(blocks) or _printed_date(first) or _declared_date(declared),
        about=about_line(sections, paragraphs),
    )


def _display_name(sender: str | None) -> str | None:
    """ "Jane Roe <jane@example.com>" → "Jane Roe"; an address alone stays as it is."""
    if not sender:
        return None
    name = re.sub(r"\s*<[^>]*>\s*$", "", sender).strip(" \"'")
    return name or sender.strip("<> ")


def _kind(
    title: str,
    blocks: list[Block],
    file_format: str,
    n_pages: int | None,
    sections: list[Section],
    paragraphs: list[Paragraph],
    first: list[str],
    filing: bool,
    court: Caption | None,
) -> str:
    if file_format in FORMAT_KINDS:
        return FORMAT_KINDS[file_format]
    if filing:
        return "filing"
    if court is not None:
        return "court paper"
    opening = "\n".join(first[:40])
    if any(_REFERENCES_RE.match(s.title) for s in sections) and (
        any(_ABSTRACT_RE.match(line) and "abstract" in line.lower() for line in first)
        or any(s.title.lower().strip(" :") == "abstract" for s in sections[:6])
    ):
        return "paper"
    for kind, pattern in _TITLE_KINDS:
        if re.search(pattern, title, re.I):
            return kind
    if len(_MEMO_FIELDS_RE.findall(opening)) >= 3:
        return "memo"
    if any(_SALUTATION_RE.match(line) for line in [*first[:15], *(b.text for b in blocks[:15] if b.kind == "text")]):
        return "letter"
    tokens = sum(p.n_tokens for p in paragraphs)
    if n_pages and n_pages >= 2 and tokens < DECK_TOKENS_PER_PAGE * n_pages:
        return "slides"
    if n_pages and n_pages >= LONG_PAGES:
        return "report"
    return PLAIN


def title_says(title: str, kind: str) -> bool:
    """The title names the document's kind already ("Gardening Guide", "Annual Report 2022")."""
    patterns = [pattern for name, pattern in _TITLE_KINDS if name == kind]
    return kind.lower() in title.lower() or any(re.search(p, title, re.I) for p in patterns)


def _issuer(
    kind: str,
    blocks: list[Block],
    first: list[str],
    title: str,
    declared: Declared,
    court: Caption | None,
) -> str | None:
    if kind == "filing":
        return registrant(blocks)
    if court is not None and court.court:
        return court.court
    if kind == "paper" and (authors := _authors(first, title)):
        return authors
    if byline := _byline(first):
        return byline
    cover = [
        line
        for line in first[:30]
        if names_institution(line) and reads_as_title(line) and line.lower() not in title.lower()
    ]
    if cover:
        return cover[0].strip(" ,.")
    declared_authors = [a for a in declared.authors if _plausible_author(a)]
    if declared_authors:
        more = " et al." if len(declared_authors) > MAX_AUTHORS else ""
        return ", ".join(declared_authors[:MAX_AUTHORS]) + more
    return declared.publisher


def _authors(lines: list[str], title: str) -> str | None:
    """A paper's authors: the names printed under its title, before its abstract."""
    words = set(re.findall(r"\w+", title.lower()))
    start = next(
        (k + 1 for k, line in enumerate(lines[:15]) if words and set(re.findall(r"\w+", line.lower())) <= words), 0
    )
    names: list[str] = []
    for line in lines[start : start + AUTHOR_LINES]:
        if _ABSTRACT_RE.match(line):
            break
        if not names_people(line):  # a byline: names, and nothing else (not "Santa Barbara, CA")
            continue
        for part in re.split(r",|;|\band\b|&|\s{2,}", MARKS_RE.sub(" ", line)):
            name = " ".join(part.split())
            if name:
                names.append(name)
    return _listed(names)


def _listed(names: list[str]) -> str | None:
    """Authors as a card names them: the first MAX_AUTHORS, then "et al."; None for none."""
    if not names:
        return None
    return ", ".join(names[:MAX_AUTHORS]) + (" et al." if len(names) > MAX_AUTHORS else "")


# "By Jane Roe", "By: G. A. LEBOUR, M.A., F.G.S.": a byline on a first page, in any kind of document.
_BYLINE_RE = re.compile(r"^\W*by:?\s+(.{3,120})$", re.I)


def _byline(lines: list[str]) -> str | None:
    """Who wrote a document, as its first page's byline says ("By G. A. LEBOUR, M.A., F.G.S.,"):
    the names it opens with, without the degrees and roles after them, nor an institution."""
    for line in lines[:BYLINE_LINES]:
        said = _BYLINE_RE.match(line.strip())
        if not said:
            continue
        names: list[str] = []
        for part in re.split(r",|;|\band\b|&", said.group(1)):
            name = " ".join(part.split()).strip(" .")
            if not name:
                continue
            if not is_byline_name(name) or names_institution(name):
                break  # the names end where the degrees, roles or affiliation start
            names.append(name)
        if names:
            return _listed(names)
    return None


def _plausible_author(name: str) -> bool:
    """A declared author worth showing: not a tool's or a template's leftover ("Microsoft Office
    User", "Administrator", "user"), nor an address."""
    lowered = name.lower()
    return (
        len(name) >= 3
        and not names_address(name)
        and not re.search(r"\d", name)  # a machine's name ("WIN7", "PC-0042"), not a person's
        and not re.search(r"\b(microsoft|office|user|admin|administrator|owner|unknown|author)\b", lowered)
        and any(ch.isalpha() for ch in name)
    )


def _printed_date(lines: list[str]) -> str | None:
    """A date the first page prints on a line of its own or beside a venue ("July 9-14, 2023")."""
    for line in lines[:40]:
        if len(line) <= 120 and (found := _DATE_LINE_RE.search(line)) and not is_person(line, []):
            return " ".join(found.group(1).split())
    return None


def _declared_date(declared: Declared) -> str | None:
    """The day the file declares it was made, as a date ("2021-03-04")."""
    found = re.match(r"\d{4}-\d{2}-\d{2}|\d{4}", declared.created or "")
    return found.group(0) if found and not found.group(0).startswith(("1970", "1601", "0000")) else None


def about_line(sections: list[Section], paragraphs: list[Paragraph]) -> str | None:
    """The first sentence of the abstract or summary, else of the first paragraph of prose, at most
    ABOUT_WORDS words (cut with "…")."""
    summary = {s.sec_id for s in sections if _ABSTRACT_RE.match(s.title)}
    candidates = [p for p in paragraphs[: OPENING_PARAGRAPHS * 4] if p.sec_id in summary] + paragraphs[
        :OPENING_PARAGRAPHS
    ]
    for paragraph in candidates:
        text = " ".join(paragraph.text.split())
        text = re.sub(r"^\W*(abstract|summary)\s*[:.—–-]?\s*", "", text, flags=re.I)
        if paragraph.kind != "text" or paragraph.junk or not _prose(text):
            continue
        sentence = _SENTENCE_END_RE.split(text, maxsplit=1)[0]
        words = sentence.split()
        return " ".join(words[:ABOUT_WORDS]) + ("…" if len(words) > ABOUT_WORDS else "")
    return None


def _prose(text: str) -> bool:
    """A paragraph of sentences: enough words, most of them words in lower case as sentences write
    them, a sentence's end; not furniture (a byline, a copyright, a citation), not a line of fields,
    a list or a contents page's entries ("5.1 Inference … 17"), not noise."""
    words = text.split()
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", text))
    if cjk >= 20:
        return not is_boilerplate(text)
    letters = sum(ch.isalpha() for ch in text)
    lower = sum(w[:1].islower() for w in words)
    return (
        len(words) >= ABOUT_MIN_WORDS
        and letters >= 0.6 * len(text.replace(" ", ""))
        and lower >= 0.4 * len(words)
        and bool(re.search(r"[a-z]{2,}[.!?](\s|$)", text))
        and text.count(":") <= 2
        and not re.search(r"(…|\.{3,}|\s\.\s\.)\s*\d", text)
        and not is_boilerplate(text)
        and not re.match(r"^\W*(copyright|©|received\b|recommended citation|by\s+[A-Z])", text, re.I)
        and not is_junk(text, "text")
        and _in_vocabulary(words)
    )


VOCABULARY_SHARE = 0.7  # of a sentence's longer words that are words a dictionary knows: else it is noise


def _in_vocabulary(words: list[str]) -> bool:
    """Most of the words are words (wordninja's English frequencies), not an OCR's or a broken
    font's letters ("ymhyoelerytugete"); a text in another language is left to pass."""
    import wordninja

    known = wordninja.DEFAULT_LANGUAGE_MODEL._wordcost
    long = [w.lower().strip(".,;:!?()\"'’“”") for w in words if len(w) > 4 and w.isascii()]
    if len(long) < 4:
        return True
    return sum(w in known for w in long) >= VOCABULARY_SHARE * len(long)
