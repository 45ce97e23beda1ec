"""What to call a document, decided in one place: what it states of itself, else what its opening
names, else (`Named.title` None) its file's name (`title_from_name`).

What a document states (`stated_title`): a filing's cover (`indexer.titles.filings`), a court
paper's caption (`indexer.titles.card.court_title`), the subject its opening fields name (a memo's,
a register's rule: `indexer.titles.preamble`), the citation a report asks for, its metadata
title where its cover agrees (`indexer.titles.stated`), the title set on its first page
(`indexer.titles.first_page`); for a format read natively, what it declares outright (a text
file's front-matter title, an e-mail's subject). What its opening names: its first heading when
that is the title (the only one at its level; a web page's <h1>), or a short opening line that
reads as one; an institution's name alone gives way to what the next line names, a kind of
document alone ("Syllabus") takes its subject from it; with nothing else, the first heading under
the particulars a page opens with, or the lines a preformatted text sets in from the margin.
Whatever names it, its words are mended as the text prints them (`indexer.titles.words`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from indexer.models import Block, Item, ParsedDocument
from indexer.parse.blocks import TRAILING_FUNCTION_WORD
from indexer.parse.numbering import numbering_depth
from indexer.parse.ooxml import DEFAULT_SHEET_RE
from indexer.titles.caption import court_label, court_title, stamped_label
from indexer.titles.filings import cover_title, is_filing
from indexer.titles.first_page import (
    ASIDE_RE,
    TRAILING_PARTICULARS_RE,
    banner_picture_title,
    bold_opening_title,
    first_page_title,
    numbered_table_title,
    opening_line_title,
    printed_page_title,
    reads_as_subtitle,
    running_head_title,
    with_trade_number,
)
from indexer.titles.lines import (
    TITLE_MAX_WORDS,
    clean,
    first_page_lines,
    is_banner,
    is_byline_name,
    is_date_line,
    is_schedule,
    names_address,
    names_chapter_kind,
    names_institution,
    names_kind_only,
    past_institution,
    reads_as_title,
)
from indexer.titles.preamble import preamble_title
from indexer.titles.stated import (
    citation_title,
    cover_text,
    metadata_agrees,
    metadata_title_ok,
    with_printed_version,
    without_identifier,
)
from indexer.titles.words import in_capitals, mend, opening_text, same_title


@dataclass
class Named:
    title: str | None  # None: nothing in the document names it (its file's name stands in)
    heading_at: int | None  # the block that prints the title: the document's root, not a section of it


def name_document(parsed: ParsedDocument, blocks: list[Block], lead: int, unique_top: bool) -> Named:
    """What to call `parsed`, whose blocks the structure has cleaned into `blocks` (`lead`: the first
    with words); `unique_top`: its first heading is the only one at its level."""
    if parsed.items:  # what MinerU read: its metadata is weighed against what its pages print
        declared = parsed.declared
        stated = parsed.title or stated_title(
            parsed.blocks, parsed.items, declared.title or "", parsed.paged, subject=declared.subject or ""
        )
    else:  # a format read natively declares what it is outright: front matter, an e-mail's subject
        stated = parsed.title or parsed.declared.title
    h1 = _web_page_heading(parsed.format, blocks, lead)
    unique_top = unique_top or h1 != lead  # a web page's <h1> is its title, whatever headings the site sets
    lead = h1
    boxed = any(item.get("bbox") for item in parsed.items or [])  # pages laid out (a PDF), not a deck's text
    if not boxed and unique_top and _kicker(blocks, lead):
        lead += 1  # the heading its author styled as the title, under a kicker ("Summer activities")
    first = blocks[lead] if blocks and blocks[lead].kind == "heading" else None
    # The opening heading *is* the title when it repeats the stated title, or when nothing else
    # names the document and it is the only heading at its level (or, without type sizes to say
    # otherwise, an unnumbered guessed heading standing first).
    typeset = first is not None and first.size is not None
    is_title = first is not None and (
        same_title(first.text, stated)
        or (not stated and (unique_top or (not typeset and first.inferred and numbering_depth(first.text) is None)))
    )
    # "1 Introduction" is no title; nor is a chapter title set like the chapters after it, nor a
    # banner ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION": the root holds it, unnamed by it).
    named_by_heading = (
        first is not None
        and (numbering_depth(first.text) is None or unique_top)  # "Appendix A: Keywords" over its parts
        and (is_title or not typeset)
        and not is_banner(first.text)
        and not DEFAULT_SHEET_RE.fullmatch(first.text.strip())  # "Sheet1": a sheet's name that says nothing
    )
    office = parsed.format in SLIDE_FORMATS or parsed.format in WORD_FORMATS  # (a sheet's bold cells: its headings)
    at = _opening_at(blocks, first_page=not boxed)
    opening_line = opening_line_title(blocks[at].text) if at is not None else None
    named = (
        stated
        or (_what_it_names(first.text, blocks, lead) if first is not None and named_by_heading else None)
        or (_what_it_names(opening_line, blocks, at) if opening_line and at is not None else None)
        or _heading_past_particulars(blocks, lead)
        or (_set_in_title(blocks[lead].text) if blocks and blocks[lead].kind == "code" else None)
        or running_head_title(parsed.items or [])
        or printed_page_title(parsed.items or [])
        or numbered_table_title(parsed.items or [])
        or (bold_opening_title(parsed.items or [], parsed.format in SLIDE_FORMATS) if office else None)
        or banner_picture_title(parsed.items or [])
    )
    named = with_trade_number(named, parsed.items or []) if named else named  # "Invoice INV-0046"
    outright = parsed.title or (None if parsed.items else parsed.declared.title)  # front matter, a subject
    if named and named != outright:  # what a document declares outright it says whole
        named = with_code(named, first_page_lines(parsed.blocks, parsed.items))
    title = mend(named, opening_text(blocks), opening_text(blocks, pictures=True)) if named else None
    # A title as its author typed it into the file's properties, where page 1 agrees with it, keeps
    # its hyphens and capitals ("Multi-way" though the text writes "multiway"): no line broke it.
    # Its spacing is mended all the same ("HUAWEIMate20" → "HUAWEI Mate 20").
    typed = named == clean(parsed.declared.title or "") and not in_capitals(named or "")
    if typed and title and _unhyphenated(title) == _unhyphenated(named or ""):
        title = named
    # The heading that prints the title (a paper's, under a line such as "Published as a
    # conference paper at …") is the document's root, not a section that holds the whole paper.
    return Named(title, lead if is_title else _title_heading(blocks, stated))


SLIDE_FORMATS = frozenset({".pptx", ".ppt", ".odp"})
WORD_FORMATS = frozenset({".docx", ".doc", ".odt", ".rtf"})
KICKER_WORDS = 4  # a kicker over a title is a few words


def _kicker(blocks: list[Block], lead: int) -> bool:
    """The opening line of a file without pages is a kicker, not its title: a few words alone
    ("Summer activities"), then right under it the heading its author styled as the title (Word's
    Title style, the parser's level 1: "Swimming in the lake"), the only one at that level."""
    if lead + 1 >= len(blocks) or blocks[lead].kind != "text" or blocks[lead + 1].kind != "heading":
        return False
    heading = blocks[lead + 1]
    if heading.level != 1 or numbering_depth(heading.text) is not None or names_chapter_kind(heading.text):
        return False  # Word's Heading 1 ("Introduction", "1. Scope") opens the text the line above titles
    line = clean(blocks[lead].text)
    return "\n" not in blocks[lead].text.strip() and 1 <= len(line.split()) <= KICKER_WORDS and not _is_aside(line)


def _unhyphenated(title: str) -> str:
    return title.replace("-", "").lower()


SET_IN_LINES = 3  # the lines a preformatted text's title runs over
PREFORMATTED_OPENING = 40  # … among its first lines
SET_IN_INDENT = 8  # spaces before a title line set in from the margin (less, if it is in capitals)
_RECORD_LINE_RE = re.compile(r"^\s*[\[<].*[\]>]\s*$")  # "[DOCID: f:publ056.107]", "<DOC>": a record's, not a title


def _set_in_title(text: str) -> str | None:
    """The title a preformatted text (a plain-text licence, a <pre> page) sets in from the margin
    on its opening lines, past its bracketed record lines ("[DOCID: f:publ056.107]"): its first line
    set in deep, or in capitals, that reads as a title, with the lines under it up to a blank line or
    an address ("Apache License" / "Version 2.0, January 2004"). Code starts at the margin or a
    step in, in lower case."""
    lines = text.split("\n")[:PREFORMATTED_OPENING]
    start = next((k for k, line in enumerate(lines) if line.strip() and not _RECORD_LINE_RE.match(line)), None)
    if start is None:
        return None
    first = lines[start]
    indent = len(first) - len(first.lstrip())
    if not (indent >= SET_IN_INDENT or (indent and in_capitals(first))) or not reads_as_title(first.strip()):
        return None  # its first line is at the margin, or reads as no title: code, or text
    parts: list[str] = []
    for line in lines[start : start + SET_IN_LINES]:
        if not line.strip() or names_address(line):
            break
        parts.append(line.strip())
    title = " ".join(parts)
    return title if len(title.split()) <= TITLE_MAX_WORDS else None


WEB_FORMATS = (".html", ".htm", ".xhtml")


def _web_page_heading(file_format: str, blocks: list[Block], lead: int) -> int:
    """Where a web page opens: at its first top-level heading (its <h1>) among its first blocks,
    past the site's header and navigation set before it ("Home | News", a site-wide <h2>)."""
    if file_format.lower() not in WEB_FORMATS:
        return lead
    heads = (at for at in range(lead, min(len(blocks), lead + OPENING_BLOCKS)) if blocks[at].kind == "heading")
    return next((at for at in heads if blocks[at].level == 1), lead)


PARTICULAR_BLOCKS = 10  # the particulars a document may open with before its first heading
PARTICULAR_WORDS = 16  # a particular is a short line; a longer one is text ("Abstract: We present …")
# A course's or a meeting's field: who teaches, how to reach them, where and when ("Instructor: …").
_FIELD_LINE_RE = re.compile(
    r"^(?:instructor|professor|lecturer|teacher|ta|teaching assistants?|e-?mail|phone|office(?: hours)?|location|"
    r"room|classroom|time|class time|lectures?|credits?|term|semester|website|course website|zoom)\s*:(?:\s|$)",
    re.I,
)


def _heading_past_particulars(blocks: list[Block], lead: int) -> str | None:
    """The first heading of a document that opens with the particulars a course's or a meeting's
    page sets above its title (its code, term, schedule, room, who teaches and how to reach them):
    "ENG 204", "Fall 2021", "TTh 11:30", "Instructor: …" over "Introduction to Asian American
    Literature"; None when other text stands before it, or it names a kind of section alone."""
    for at in range(lead, min(len(blocks), lead + PARTICULAR_BLOCKS)):
        block = blocks[at]
        if block.kind == "heading":
            text = clean(block.text)
            named = len(text.split()) >= 2 and reads_as_title(text) and not names_kind_only(text)
            return text if named and not names_institution(text) and numbering_depth(text) is None else None
        if block.kind == "table" and _lists_particulars(block.text):
            continue
        text = clean(block.text)
        if not (block.kind == "text" and _is_particular(text) and len(text.split()) <= PARTICULAR_WORDS):
            return None
    return None


def _is_particular(text: str) -> bool:
    """A course's or a meeting's particular: a date or a code alone, a schedule, an institution, a field."""
    return bool(_is_aside(text) or is_schedule(text) or names_institution(text) or _FIELD_LINE_RE.match(text))


_CELL_GAP_RE = re.compile(r"\s{2,}")


def _lists_particulars(table: str) -> bool:
    """A table of a page's particulars (a text's columns: "ENG 204  Instructor:  Prof. …" over
    "Fall 2021  (she/her)"): fields with their values, most of its cells particulars or a field's value."""
    cells = [clean(cell) for line in table.splitlines() for cell in _CELL_GAP_RE.split(line.strip()) if cell.strip()]
    labels = [k for k, cell in enumerate(cells) if _FIELD_LINE_RE.match(cell)]
    known = sum(_is_particular(cell) or k - 1 in labels for k, cell in enumerate(cells))
    return bool(labels) and known >= PARTICULAR_SHARE * len(cells)


PARTICULAR_SHARE = 0.6


OPENING_ASIDES = 2  # lines a text without pages may set above its title: a date, a code alone


def _opening_at(blocks: list[Block], first_page: bool) -> int | None:
    """Where a document without pages opens with text (`first_page`: or on its first page, a deck's
    first slide, whose lines have no place to weigh them by): its first block, or the block after a
    date or a code set alone above the title ("1/27/23", "LINGUIST 101 (49624)" over "People and
    Their Language", whose code `with_code` puts back)."""
    for at, block in enumerate(blocks[: OPENING_ASIDES + 1]):
        if block.kind != "text" or block.page not in (None, 1 if first_page else None):
            return None
        if not _is_aside(clean(block.text)):
            return at
    return None


def _is_aside(text: str) -> bool:
    """A date or a code set alone on its line ("1/27/23", "LINGUIST 101 (49624)"), not a title."""
    return is_date_line(text) or (_CODE_RE.match(text) is not None and len(text.split()) <= CODE_WORDS)


def stated_title(blocks: list[Block], items: list[Item], metadata: str, paged: bool, subject: str = "") -> str | None:
    """What to call a parsed document, tried in order: a filing's cover, a court paper's caption, the
    subject its opening fields name, a report's citation, its metadata title when its cover agrees
    (in the words page 1 prints, when page 1's title holds the metadata's: a form's metadata names
    its template; a form's number, with the name its metadata `subject` gives where page 1 prints
    it), the title set on its first page (`items`: the parser's content list)."""
    lines = first_page_lines(blocks, items)
    stated = (
        cover_title(blocks)
        or court_title(lines, first_page_lines(blocks, items, after=1))
        or preamble_title(lines)
        or citation_title(blocks)
    )
    if stated:
        return stated
    metadata, cover = without_identifier(clean(metadata)), cover_text(blocks, items)
    if not (metadata_title_ok(metadata) and metadata_agrees(metadata, cover)):
        metadata = ""
    metadata = metadata and with_printed_version(metadata, cover)
    form = bool(metadata) and _FORM_CODE_RE.fullmatch(_REVISION_RE.sub("", metadata)) is not None
    subject = without_identifier(clean(subject))
    if form and metadata_title_ok(subject) and not _FORM_CODE_RE.fullmatch(subject) and metadata_agrees(subject, lines):
        return f"{metadata} — {subject}"  # "Form 940-B (Rev. 5-2010) — Request for Verification of Credit …"
    # A court's paper that names no parties is named by its heading, court and case before its type
    # speaks: the court's name is set largest ("Central District of California").
    if not metadata and (label := court_label(lines)):
        return label
    printed = first_page_title(items) if paged and not is_filing(blocks) else None
    if metadata and printed and _FORM_CODE_RE.fullmatch(metadata) and not metadata_agrees(metadata, [printed]):
        return f"{metadata} — {printed}"  # "2007 Form 1040NR — U.S. Nonresident Alien Income Tax Return"
    if metadata and not names_kind_only(metadata):
        # page 1's title in full, not cut short: as many words, most of them the metadata's
        fuller = printed and len(printed.split()) >= len(metadata.split()) and metadata_agrees(metadata, [printed])
        return printed if printed and fuller else metadata
    # A metadata title that names only a kind ("Product Introduction") gives way to the cover's.
    return printed or metadata or stamped_label(lines)


# A form known by its number, as its metadata names it ("2007 Form 1040NR", "Form W-9"): its printed name completes it.
_FORM_CODE_RE = re.compile(r"(?:(?:19|20)\d\d\s+)?form\s+[\w-]*\d[\w-]*(?:\s+\((?:19|20)\d\d\))?", re.I)
_REVISION_RE = re.compile(r"\s*\((?:rev\.?|revised)\s+[^)]*\)\s*$", re.I)  # "(Rev. 5-2010)", "(Rev. May 2010)"
# A code a document is known by beside its name: a course's, a form's, a standard's, a model's
# ("PUBHLTH 224", "RES-ECON 213", "Honors 391AH-35", "Form W-9", "ISO 27001"; not "A 21st Century", nor a
# time, "TTh 11:30").
_CODE_RE = re.compile(
    r"(?!(?:chapter|section|part|title|article|rule|page|seite|pagina|página|item|table|figure|vol|volume|no|step|unit|"
    r"lesson|week|room|appendix|revision|rev|version|edition)\b)"
    r"[A-Z][A-Za-z&/]*(?:[-\s][A-Z][A-Za-z&/]*)?[-\s]?(?!(?:19|20)\d\d\b)\d{2,5}(?!\d|:\d|(?:st|nd|rd|th)\b)[A-Z]{0,2}(?:[-–/]\d{1,3}[A-Z]?)?",
    re.I,
)
CODE_LINES = 6  # the title's line is looked for among the first page's first lines
CODE_WORDS = 4  # a line this short that opens with a code is the code's line
_WORD_RE = re.compile(r"\b[a-z]{3,}\b")


def _is_schedule_of(line: str, code_end: int) -> bool:
    """A code's line of particulars: a schedule, and no word in lower case after the code
    ("ACCOUNTING 371-01 (#58038) M & W: 11:15 – 12:05, ISOM 106")."""
    return is_schedule(line) and _particulars_after(line, code_end)


def _particulars_after(line: str, code_end: int) -> bool:
    """Whether all a line holds after its code is particulars: no word in lower case (", Fall 2022")."""
    return not _WORD_RE.search(line[code_end:])


def with_code(title: str, lines: list[str]) -> str:
    """A title with the code the first page sets on its own line beside it: a code alone gets the
    name on the next line ("PUBHLTH 224" over "Epidemiology in Public Health"), a name the code on
    the line before or after it ("LINGUIST 101" over "People and Their Language"): "CODE: Name";
    either without its particulars (`without_particulars`)."""
    title = without_particulars(title)
    if _CODE_RE.search(title) and not _CODE_RE.fullmatch(title.strip()):
        return title  # it has its code already
    squeezed = [re.sub(r"\W+", "", line.lower()) for line in lines[: CODE_LINES * 2]]
    key = re.sub(r"\W+", "", title.lower())
    # its line, its aside cut (or the line it ends, past an institution run into it)
    at = next((k for k, line in enumerate(squeezed) if key and (line.startswith(key) or line.endswith(key))), None)
    if at is None:
        return title
    if _CODE_RE.fullmatch(title.strip()):
        after = without_particulars(next((line for line in lines[at + 1 : at + 3] if line.strip()), ""))
        if reads_as_title(after) and not _CODE_RE.search(after) and not is_schedule(after) and len(after.split()) <= 10:
            return f"{title.strip()}: {after.strip()}"
        return title
    for k in (at - 1, at + 1):  # "LINGUIST 101 (49624)": the code, its number aside
        beside = lines[k].strip() if 0 <= k < len(lines) else ""
        code = _CODE_RE.match(beside)
        if code and (len(beside.split()) <= CODE_WORDS or _is_schedule_of(beside, code.end())):
            return f"{code.group(0)}: {title}"  # (or its particulars: "ACCOUNTING 371-01 (#58038) M & W: 11:15")
    for k in (at - 2, at + 2):  # a code alone with a term between ("Biology 151", "Fall 2022", the title)
        beside = lines[k].strip() if 0 <= k < len(lines) else ""
        if _CODE_RE.fullmatch(beside) and is_date_line(lines[(k + at) // 2]):
            return f"{beside}: {title}"
    return title


# A code's section number after it ("MSCI 790 – Section 009"): which of a course's groups, not what it is.
_SECTION_RE = re.compile(r"\s*[–—-]?\s*(?i:section|sec\.)\s*\d{1,3}[A-Z]?\b")


def without_particulars(title: str) -> str:
    """A title without what follows it on its line but is no part of it: a schedule, credits, a
    room, an address ("Autism Spectrum Disorder PSYCH 397D – 3 credits MWF 11:15-12:05"), an aside in
    brackets ("(previous taught as FIN 497T)"), a code's section number, a trailing colon."""
    title = ASIDE_RE.sub("", title)
    if (code := _CODE_RE.match(title)) and (section := _SECTION_RE.match(title, code.end())):
        title = title[: code.end()] + title[section.end() :]
    cut = TRAILING_PARTICULARS_RE.search(title)
    if cut and len(title[: cut.start()].split()) >= 2:
        title = title[: cut.start()]
    title = re.sub(r"\s*\([^)]*$", "", title)  # a bracket left open by the cut
    return title.strip(" -–—,;:|") or title


def title_from_name(path: Path) -> str:
    """A document's title when nothing in it names one: its file name, readable."""
    return path.stem.replace("_", " ").strip() or path.name


OPENING_BLOCKS = 12  # the title heading stands among the first blocks of the first page


def _title_heading(blocks: list[Block], title: str | None) -> int | None:
    """Where the first heading prints the document's title (`title`, the parser's), when only
    text and pictures of the first page stand before it; None elsewhere."""
    if not title:
        return None
    first_page = next((b.page for b in blocks if b.page is not None), None)
    for at, block in enumerate(blocks[:OPENING_BLOCKS]):
        if block.kind == "heading":
            return at if block.page == first_page and same_title(block.text, title) else None
    return None


NEXT_BLOCKS = 3  # the line after an opening line is among the blocks right after it


def _what_it_names(title: str, blocks: list[Block], at: int) -> str | None:
    """The document's opening line or heading (`title`, its block `at`), or what the line after it
    adds: an institution alone ("University of Massachusetts, Amherst" in a Word file's Title
    style) issued the document the next line names (the course), else nothing names it; a kind
    of document alone ("Syllabus") is completed by the next line ("Biology 544, Ornithology,
    Spring 2023 Syllabus")."""
    # The lines after it: the rest of its own block (a slide's title box holds two), then the next blocks.
    rest = blocks[at].text.split("\n")[1:] if blocks[at].kind == "text" else []
    lines = [("text", line) for line in rest if line.strip()] + [
        (b.kind, b.text) for b in blocks[at + 1 : at + 1 + NEXT_BLOCKS] if b.kind in ("heading", "text")
    ]  # past a picture
    if names_institution(title):  # past the issuer's lines ("U.S. Department of Justice", "Executive Office …")
        while lines and names_institution(clean(lines[0][1])):
            lines = lines[1:]
    line = clean(lines[0][1]) if lines else ""
    if TRAILING_FUNCTION_WORD.search(line) and len(lines) > 1:  # "Handbook for" / "Chapter 13 Standing Trustees"
        line = f"{line} {clean(lines[1][1])}"
    after = opening_line_title(line) if line else None
    coded = without_particulars(line)  # "Syllabus" over "KIN 270, Fall 2022 (4 credits)": the code, its term
    if after is None and names_kind_only(title) and (code := _CODE_RE.match(coded)):
        after = coded if _particulars_after(coded, code.end()) else None
    after = after if after and not names_institution(after) and not names_kind_only(after) else None
    if names_institution(title):  # (or what its own line names after it, its line breaks lost)
        return after or past_institution(title)
    # A heading after a kind alone is its first section ("Grading") unless it names the subject by
    # a code, a year or a number ("Biology 544, Ornithology, Spring 2023").
    subject = after if after and (lines[0][0] == "text" or re.search(r"\d", after)) else None
    if names_kind_only(title):
        return f"{subject} {title}" if subject else title
    # A file without pages sets its subtitle as the line under the title ("Educational Psychology"
    # over "Introduction to Learning Sciences II"), no type size to tell it by: a line in title
    # case, without a number or a menu's bars, that repeats no word of the title.
    if blocks[at].page is None and after == line and lines[0][0] == "text" and ":" not in title + line:
        return f"{title}: {after}" if _reads_as_subtitle_unsized(after, title) else title
    return title


def _reads_as_subtitle_unsized(line: str, title: str) -> bool:
    """A subtitle told without type sizes: in title case, no number, code or menu, no word of the title again."""
    words = [w for w in re.findall(r"[^\W\d_]+", line) if len(w) > 3]
    repeated = {w.lower() for w in words} & {w.lower() for w in re.findall(r"[^\W\d_]+", title) if len(w) > 3}
    in_title_case = bool(words) and all(w[0].isupper() for w in words)
    apart = re.search(r"\d|[|·•/]", line)  # a number, a code; a menu's items set apart ("Home | Counts | About")
    named = is_byline_name(line)  # "Jane Roe", "Executive Summary": a person, a section
    return in_title_case and not repeated and not apart and not named and reads_as_subtitle(line, title)
