"""What to call a document (`document_title`): its cover page when it is a filing's, the title
a report asks to be cited by, its metadata title when the cover agrees with it
(`indexer.titles.stated`), else the title set on its first page (`first_page_title`), else
(in `indexer.structure.sections.build`) its first heading or opening line, or its file name.

In a folder of downloads the file name is often an archive id, a hash or a slug, while page 1
says plainly what the document is: a paper's title in the largest type, a report's title below
its "FOR RELEASE" line, a manual's kind ("User Manual") over or under what it is for. The
largest type comes from the text layer's font sizes, or is estimated from each line's box and
length (the square root of its area per character): the text layer's sizes are missing or in
arbitrary units in many PDFs, and scans have none. What a line of the page is when it is not the
title (a banner, a byline, a contact line, a person's name, an institution) is
`indexer.titles.lines`; a title's words are mended as the text prints them in
`indexer.titles.words`.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from typing import Any

from indexer.models import Item
from indexer.parse.blocks import TRAILING_FUNCTION_WORD
from indexer.parse.items import normalise
from indexer.parse.numbering import numbering_depth
from indexer.parse.running import running_texts
from indexer.titles.filings import exhibit_description
from indexer.titles.lines import (
    DAY_RE,
    GREETING_RE,
    LONG_TITLE_WORDS,
    TITLE_MAX_WORDS,
    clean,
    code_line,
    count_words,
    first_page_index,
    is_banner,
    is_date_line,
    is_person,
    is_schedule,
    is_sure_byline,
    names_address,
    names_chapter_kind,
    names_institution,
    names_kind,
    names_kind_only,
    names_people,
    past_institution,
    reads_as_title,
    welcomed,
)
from indexer.titles.words import RUN_RE, in_capitals, split_run

OPENING_LINE_WORDS = 12
TITLE_SCALE = 1.25  # a title is set at least this much larger than the page's text
PROSE_WORDS = 30  # a line of text this long is the document's text, not its title page
PROSE_LINES, PROSE_LINE_WORDS = 3, 12  # … and so are this many lines this long
HEADLINE_WORDS = 6  # a title this long is a headline (a release's, a report's), not a chapter's
WORD_OVER_PHRASE = 0.75  # a phrase set this large beside a single larger word is the title
_CONTENTS_RE = re.compile(r"^(table\s+of\s+)?contents\b", re.I)
_ENTRY_RE = re.compile(r"^\d{1,3}\s+[A-Z]")  # "19 School of Mechanical …": a contents entry
CONTENTS_ENTRIES = 5


def first_page_title(items: list[Item]) -> str | None:
    """The title set on a document's first page (its second, when the first is a picture): the
    line in the largest type near the top that is not boilerplate, with the lines set like it
    right below or above it (a title on two or three lines; not the authors under it); a title
    that names only a kind of document ("User Manual") with the subject the cover names. Where
    no line stands out so and the type says nothing (`_type_is_mute`), the page's opening line
    when it reads as a title. None when no line reads like a title."""
    pages = sorted({i["page_idx"] for i in items if isinstance(i.get("page_idx"), int)})
    running = running_texts(items, len(pages))
    table_title: str | None = None
    for page in pages[:2]:
        edge = _edge_lines(items, page)
        lines = [
            i
            for i in items
            if i.get("page_idx") == page and i.get("type") in ("text", "header") and i.get("bbox")
            if not _runs(i, running, edge)
        ]
        if not lines:  # a cover that is a picture: the words it carries (its text layer, or OCR's)
            pictures: list[Item] = [
                {**i, "type": "text", "text": i.get("text_layer") or i.get("content") or ""}
                for i in items
                if i.get("page_idx") == page
                and i.get("type") == "image"
                and (i.get("text_layer") or i.get("content"))
                and i.get("bbox")
            ]
            if len(pictures) == 1 and _area(pictures[0]["bbox"]) > HALF_PAGE:  # a scanned page
                return _scanned_title(pictures[0]["text"])
            lines = pictures
        if not lines:  # a page that is one table (a printout, a revision history): its banner row, if
            table_title = table_title or _table_heading(items, page)  # the next page names nothing
            continue
        title = _title_field(lines) or _in_largest_type(items, page, lines) or _exhibit_title(lines)
        mute = _type_is_mute(lines)
        top = min(lines, key=lambda i: i["bbox"][1])
        if mute and (greeted := welcomed(top.get("text") or "")):  # "Welcome to CS 568 2021 FALL!" atop
            title = greeted
        if title is None and mute:
            title = _opening_line(items, page, running)
        if title is None or len(title.split()) < 2:  # (one word under the table that opens the page is a label)
            title = _table_heading(items, page) or title
        if title is None and mute and page == pages[0]:
            title = _carried_title(items, page, running)
        words = sum(len((i.get("text") or "").split()) for i in lines)
        if title is None and words < PROSE_WORDS and (drawn := _words_drawn(items, page, words)):
            title = _scanned_title(drawn)  # a page set as a picture of text, under a line or two (a footer)
        # "ENG 204 Fall 2021" over the course's particulars, and its name set in bold under them.
        if title and (code := code_line(title)) and (named := _bold_line_below(title, items, page)):
            title = f"{code}: {named}"
        # A first slide of ornaments ("JONS", "A5T", "?L") names nothing: the second may.
        if title or any(len(clean(i.get("text") or "").split()) >= 2 for i in lines):
            return title or table_title
    return table_title


QUARTER_PAGE = 250_000  # of a page's 1000 × 1000 units


def _words_drawn(items: list[Item], page: int, words: int) -> str | None:
    """The words of the picture that holds a page's text (a page typeset as one drawing, read from
    its text layer or by OCR), when it covers a quarter of the page and carries more words than
    the page's lines of text (`words`) do."""
    pictures = [
        i
        for i in items
        if i.get("page_idx") == page and i.get("type") == "image" and i.get("bbox") and _area(i["bbox"]) > QUARTER_PAGE
    ]
    drawn = max((i.get("text_layer") or i.get("content") or "" for i in pictures), key=len, default="")
    return drawn if len(drawn.split()) > max(words, PROSE_WORDS) else None


def _carried_title(items: list[Item], page: int, running: set[str]) -> str | None:
    """Where nothing else on a word processor's first page reads as its title: the header atop it
    that every page repeats whole, the document's title carried onto each ("Course Syllabus: Sport
    Data Analytics I"), when it reads as one (not a page's number, an institution, a date, a notice
    of the copy)."""
    for item in sorted((i for i in items if i.get("page_idx") == page and i.get("bbox")), key=lambda i: i["bbox"][1]):
        if item["bbox"][1] > EDGE_BAND:
            break
        text = clean(item.get("text") or "")
        if (
            normalise(text) in running
            and 2 <= len(text.split()) <= OPENING_LINE_WORDS
            and reads_as_title(text)
            and not names_institution(text)
            and not is_date_line(text)
            and not _NOTICE_RE.search(text)
        ):
            return text
    return None


# What a page's header says of the copy, not of the document: "Acme Proprietary and Confidential".
_NOTICE_RE = re.compile(
    r"\b(confidential|proprietary|draft|internal use|do not (?:distribute|copy)|copyright|all rights reserved)\b", re.I
)


def _table_heading(items: list[Item], page: int) -> str | None:
    """A page that opens with a table (a statistics release, a price list): the table's caption,
    or the rows above its column headings that hold one cell each ("NICS Firearm Background
    Checks" over "November - 2015"), when they read as a title."""
    placed = [i for i in items if i.get("page_idx") == page and i.get("bbox")]
    top = min(placed, key=lambda i: i["bbox"][1], default=None)
    if top is None or top.get("type") != "table":
        return None
    caption = clean(" ".join(top.get("table_caption") or []))
    if headed := _caption_title(caption):
        return headed
    rows = [caption] if caption else _single_cell_rows(top.get("table_body") or "")
    banner = _banner_title(rows[0]) if rows and _BANNER_RE.search(rows[0]) else None
    if not rows or not (title := banner or opening_line_title(rows[0])) or len(title.split()) < 2:
        return None  # (a word alone is a column's heading: "Item")
    if _column_headings(title):
        return None
    return f"{title} — {rows[1]}" if len(rows) > 1 and is_date_line(rows[1]) else title


HEADING_REPEATS = 3  # a word this often in one row, and half its words: the columns' headings read as one cell


def _column_headings(row: str) -> bool:
    """A row that repeats one word over its columns ("COMUNI COMUNI COMUNI AL COMUNI"): headings
    whose cells were read as one, never a title (a title may repeat "and" or "de", not most of its words)."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", row)]
    most = max(Counter(words).values(), default=0)
    return most >= HEADING_REPEATS and 2 * most >= len(words)


def _caption_title(caption: str) -> str | None:
    """A table's caption as a title, its number and its year with it, its headnote aside ("Table
    324. Arrests by Sex and Age: 2009 [In thousands …]"); None when it reads as none."""
    headed = re.sub(r"\s*[\[(].*$", "", caption)
    return headed if 2 <= len(headed.split()) <= TITLE_MAX_WORDS and reads_as_title(headed) else None


_NUMBERED_CAPTION_RE = re.compile(r"^(?i:table|exhibit)\s+[A-Z]?\d{1,3}[.:]")  # "Table 1.", "Exhibit 4:"


def running_head_title(items: list[Item]) -> str | None:
    """A page taken out of a longer work that nothing else names: the running head atop its first
    page that names the work beside the page's number ("Optimized Table Tokenization for Table
    Structure Recognition 9", "78 ICT 기술변화에 따른 미래 보안기술 전망 보고서"), without the number."""
    first = first_page_index(items)
    top = sorted(
        (i for i in items if i.get("page_idx") == first and i.get("bbox") and i["bbox"][1] < EDGE_BAND),
        key=lambda i: i["bbox"][1],
    )
    for item in top:
        text = clean(item.get("text") or item.get("text_layer") or "")
        number = _PAGE_NUMBER_RE.search(text)
        if "\n" in text or number is None or is_banner(text):  # (a filing's stamp: "… Page 8 of 25")
            continue
        head = (text[: number.start()] + text[number.end() :]).strip()
        words = len(head.split()) + len(re.findall(r"[\u3400-\u9fff\uac00-\ud7af]", head)) // 2
        if words >= RUNNING_HEAD_WORDS and reads_as_title(head) and not names_institution(head):
            return head
    return None


PRINT_BAND = 60  # a browser prints a page's title and the date in this band atop each page (of 1000)
_CLOCK_RE = re.compile(r",?\s*\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\s*$", re.I)  # "3/4/21, 10:15 AM"
_URL_LINE_RE = re.compile(r"^\s*(?:https?://|www\.)\S+", re.I)


def printed_page_title(items: list[Item]) -> str | None:
    """A web page printed to PDF, which nothing else names: the title its browser printed atop the
    page beside the date it was printed on ("3/4/2021  Skilak Lake Road … - Google Maps"), the page's
    address under it at the bottom."""
    first = first_page_index(items)
    page = [i for i in items if i.get("page_idx") == first and i.get("bbox")]
    if not any(i["bbox"][1] > 1000 - EDGE_BAND and _URL_LINE_RE.match(clean(i.get("text") or "")) for i in page):
        return None
    top = sorted((i for i in page if i["bbox"][3] < PRINT_BAND and i.get("type") in ("text", "header")),
                 key=lambda i: i["bbox"][0])  # fmt: skip
    texts = [clean(i.get("text") or "") for i in top]
    if len(texts) < 2 or not is_date_line(_CLOCK_RE.sub("", texts[0])):  # (a browser's date, its time with it)
        return None
    # (the page's own <title>, as the browser had it: an address may be all it says)
    said = (t for t in texts[1:] if not is_banner(t) and not is_date_line(t) and sum(c.isalpha() for c in t) >= 3)
    return next((t for t in said if count_words(t) <= LONG_TITLE_WORDS), None)


# A trade document known by its number: an invoice, a receipt, an estimate, a quote, an order.
_TRADE_KIND = (
    r"(?:(?:tax|sales|commercial|pro[\s-]?forma|preliminary)\s+)?"
    r"(?:invoice|receipt|estimate|quot(?:e|ation)|purchase\s+order|credit\s+note|delivery\s+note|packing\s+slip)"
)
_TRADE_KIND_RE = re.compile(_TRADE_KIND, re.I)
_NUMBER_FIELD_RE = re.compile(
    rf"^\W*(?:{_TRADE_KIND}|order|document)\s*(?:number|no\.?|#|id)\s*[:#]?\s*(?P<value>[A-Z0-9][\w/.-]*\d[\w/-]*)?\W*$",
    re.I,
)
_NUMBER_VALUE_RE = re.compile(r"^#?\s*(?P<value>[A-Z0-9][\w/.-]*\d[\w/-]*)$", re.I)
FIELD_REACH = 40  # a field's value is set right under its label or beside it, within this many units (of 1000)


def with_trade_number(title: str, items: list[Item]) -> str:
    """A trade document's title that names only its kind, or its issuer and its kind ("INVOICE",
    "Contoso Inc. — Invoice"), with the number its first page gives it ("… Invoice INV-0046");
    any other title as it is."""
    kind = title.rsplit(" — ", 1)[-1]
    if not _TRADE_KIND_RE.fullmatch(clean(kind).strip(" :")):
        return title
    number = trade_number(items)
    return f"{title.rstrip(' :')} {number}" if number else title


def trade_number(items: list[Item]) -> str | None:
    """The number a trade document's first page gives it: its number field's value ("Invoice
    Number" over "INV-0046"), on the field's line or right under or beside it."""
    first = first_page_index(items)
    page = [i for i in items if i.get("page_idx") == first and len(i.get("bbox") or ()) == 4 and i["type"] != "table"]
    for label in page:
        found = _NUMBER_FIELD_RE.match(clean(label.get("text") or ""))
        if found is None:
            continue
        if found.group("value") and _a_number(found.group("value")):
            return found.group("value")
        x0, y0, x1, bottom = label["bbox"]
        beside = [
            o for o in page if 0 <= o["bbox"][0] - x1 <= 3 * FIELD_REACH and abs(o["bbox"][1] - y0) <= FIELD_REACH / 4
        ]
        under = [o for o in page if abs(o["bbox"][0] - x0) <= FIELD_REACH and 0 <= o["bbox"][1] - bottom <= FIELD_REACH]
        for other in sorted(beside, key=lambda o: o["bbox"][0]) + sorted(under, key=lambda o: o["bbox"][1]):
            value = _NUMBER_VALUE_RE.match(clean(other.get("text") or ""))
            if value and _a_number(value.group("value")):
                return value.group("value")
    return None


def _a_number(value: str) -> bool:
    """A document's number, not a date or an amount set near its label ("2021-04-12", "1,234.00")."""
    return not re.fullmatch(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|[\d,]*\d[.,]\d{2}", value)


RUNNING_HEAD_WORDS = 3  # a running head this long names the work ("Chapter 4" names a part)
# A page's number at either end of a running head, not a year ("… Annual Report 2024" names its year).
_PAGE_NUMBER_RE = re.compile(r"^(?!(?:19|20)\d\d\b)\d{1,4}\s+(?=\D)|(?<=\D)\s(?!(?:19|20)\d\d$)\d{1,4}$")


# A line set wholly in bold, as MinerU marks it in an Office file's text ("**…**", no other
# emphasis inside); a table's cell marks it "<strong>…</strong>" or "<b>…</b>".
_BOLD_TEXT_RE = re.compile(r"^\s*\*\*([^*]+)\*\*\s*$")
BOLD_OPENING_LINES = 12  # the bold title is among a slide's or a page's first lines
_FIELD_LABEL_RE = re.compile(r"^[^\W\d][^:]{0,40}:(?:\s|$)")  # "Department:", "Job Announcement Number: …"


def bold_opening_title(items: list[Item], slides: bool) -> str | None:
    """An Office file laid out without places whose first page names it only in bold type: a
    slide without a title placeholder (`slides`), by its first line set wholly in bold with the
    bold lines right after it that carry it on ("Thin Film Partnership Subcontract Budgets (out the
    door);" / "2002-2005 Actuals"); a Word file laid out in tables (its first page opens with one),
    by the first paragraph of a cell set wholly in bold. A form's field ("Department: Veterans
    Affairs"), a row of several cells (column headings), a schedule or an institution is no title,
    however it is set. None where a line has a place: a PDF's page says by its type and position
    what its title is (`first_page_title`)."""
    first = first_page_index(items)
    page = [i for i in items if i.get("page_idx") == first]
    if first is None or not page or any(i.get("bbox") for i in page):
        return None
    if not slides and page[0].get("type") != "table":
        return None  # a Word file's bold lines under its opening text are its sections' labels
    lines: list[tuple[str, bool]] = []  # each line's words, and whether it is set in bold
    for item in page:
        if item.get("type") == "text" and slides:
            text = item.get("text") or ""
            set_bold = _BOLD_TEXT_RE.match(text)
            lines.append((clean(set_bold.group(1) if set_bold else text), bool(set_bold)))
        elif item.get("type") == "table":
            lines += _cell_lines(item.get("table_body") or "")
        if len(lines) >= BOLD_OPENING_LINES:
            break
    lines = [(text, bold) for text, bold in lines[:BOLD_OPENING_LINES] if text]
    for at, (text, bold) in enumerate(lines):
        if not bold or _FIELD_LABEL_RE.match(text):
            continue
        title = text
        for more, more_bold in lines[at + 1 :] if slides else []:
            if not more_bold or _FIELD_LABEL_RE.match(more) or count_words(f"{title} {more}") > TITLE_MAX_WORDS:
                break
            title = f"{title} {more}"
        if count_words(title) >= 2 and reads_as_title(title) and not (is_schedule(title) or names_institution(title)):
            return title
    return None


def _cell_lines(body: str) -> list[tuple[str, bool]]:
    """A table's paragraphs in reading order, each one's words and whether all of them are set in
    bold; a cell in a row of several that hold words (column headings, a label beside its value)
    gives none: it is a column's, not the page's."""
    from lxml import etree, html

    try:
        root = html.fragment_fromstring(body, create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    lines: list[tuple[str, bool]] = []
    shared: dict[Any, bool] = {}  # each row: whether several of its cells hold words
    for cell in root.iter("td", "th"):
        row = cell.getparent()
        if row not in shared:
            shared[row] = sum(1 for c in row if c.tag in ("td", "th") and _words_of(c).strip()) > 1
        if shared[row]:
            continue
        paragraphs = [p for p in cell if p.tag == "p"] or [cell]
        for paragraph in paragraphs:
            words = clean(_words_of(paragraph))
            bold = clean(" ".join(_words_of(b) for b in paragraph.iter("strong", "b")))
            if words:
                lines.append((words, bold == words))
        if len(lines) >= BOLD_OPENING_LINES:
            break
    return lines


def _words_of(element: Any) -> str:
    """An element's words, not those of a table inside it (its cells are lines of their own) nor
    of a comment."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag != "table":  # (a comment's tag is a function)
            parts.append(_words_of(child))
        parts.append(child.tail or "")
    return " ".join(parts)


BANNER_WIDTH = 600  # page units (of 1000): a picture this wide atop the page is its banner
BANNER_TOP = 250  # … and it starts in the page's top quarter
BANNER_HEIGHT = 250  # … a band, not the page (a scan)


def banner_picture_title(items: list[Item]) -> str | None:
    """A first page whose title is drawn (a worksheet's banner, a heading set as a picture) and
    that nothing else names: the longest part of the words read from the picture that spans the
    top of the page above its text ("COMMANDS | THE 7 BASIC SUGGESTIONS OF JESUS"), when it reads
    as a title. Words read from a picture are weaker evidence than the page's text, so this is
    the last thing tried before the file's name, which page 1's own title always beats."""
    first = first_page_index(items)
    placed = [i for i in items if i.get("page_idx") == first and i.get("bbox")]
    top = min(placed, key=lambda i: i["bbox"][1], default=None)
    if top is None or top.get("type") != "image":
        return None
    x0, y0, x1, y1 = top["bbox"]
    if x1 - x0 < BANNER_WIDTH or y0 > BANNER_TOP or y1 - y0 > BANNER_HEIGHT:
        return None
    if not any(i.get("type") == "text" and i["bbox"][1] >= y1 for i in placed):
        return None  # a band of pictures over no text: a cover, which `first_page_title` reads
    words = top.get("text_layer") or top.get("content") or ""
    parts = [clean(part) for part in re.split(r"\s*\|\s*|\n", words)]
    parts = [part for part in parts if count_words(part) >= 2 and reads_as_title(part)]
    return max(parts, key=count_words, default=None)


def numbered_table_title(items: list[Item]) -> str | None:
    """A document nothing else names (an excerpt of a report, its text running on from before):
    its first page's first numbered table's caption ("Table 1. Prevalence of Disability for
    Selected Age Groups")."""
    first = first_page_index(items)
    for item in items:
        caption = clean(" ".join(item.get("table_caption") or [])) if item.get("page_idx") == first else ""
        if _NUMBERED_CAPTION_RE.match(caption) and (title := _caption_title(caption)):
            return title
    return None


# What a printout's banner row sets around its title: the run's date and time, a page's or a job's
# number ("RUN 12/3/2014 11:57:01 AM REGISTRAR-RECORDER/COUNTY CLERK PRECINCT BULLETINS PAGE 1 JOB 0014").
_BANNER_PARTICULARS_RE = re.compile(r"\s*(?:\b(?:page|job|run)\s+)?(?<!\S)\S*\d\S*(?:\s+[AP]M\b)?\s*", re.I)
_BANNER_RE = re.compile(r"\b(?:run|page|job)\s+\S*\d|\b\d{1,2}:\d{2}", re.I)  # a printout's run, page or time
BANNER_TITLE_WORDS = 3  # a banner's title has this many words at least; fewer are its labels


def _banner_title(row: str) -> str | None:
    """The title a printout's banner row (one that holds a run's, a page's or a job's number, or a
    time) sets between its particulars: its first stretch of words without a number that reads as
    a title, unless a number cut it short ("… to the Registrar by")."""
    for part in _BANNER_PARTICULARS_RE.split(row):
        words = part.split()
        if BANNER_TITLE_WORDS <= len(words) <= TITLE_MAX_WORDS and reads_as_title(part):
            return None if TRAILING_FUNCTION_WORD.search(part.strip()) else part.strip()  # not "… returned by"
    return None


_CELL_GAP = re.compile(r"\s{3,}")  # cells of a table set as text are spaced apart
_ROW_RE = re.compile(r"<tr[^>]*>(.*?)</tr>", re.I | re.S)
_CELL_RE = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.I | re.S)


def _single_cell_rows(body: str) -> list[str]:
    """The rows a table opens with that hold one cell each, before its first row of columns."""
    if "<tr" in body.lower():
        rows = [_CELL_RE.findall(row) for row in _ROW_RE.findall(body)]
        cells = [[clean(re.sub(r"<[^>]+>", " ", c)) for c in row] for row in rows]
        lines = [[c for c in row if c] for row in cells]
    else:
        lines = [_CELL_GAP.split(line.strip()) for line in body.splitlines() if line.strip()]
    opening = [clean(row[0]) for row in itertools.takewhile(lambda row: len(row) == 1, lines)]
    return _fragments_joined(opening)


FRAGMENT_ROWS = 4  # a line read a few letters to a row runs over this many rows at least
FRAGMENT_CHARS = 3  # … most of them this short


def _fragments_joined(rows: list[str]) -> list[str]:
    """Rows that are one line read a few letters at a time (a rotated page's title: "NI", "CS",
    "Firearm", "B", "ac", …, "2015") joined into that line, its words split where English splits
    them ("NICS Firearm Background Checks November - 2015"), when they join into far fewer words
    than rows; other rows as they are."""
    short = sum(len(row) <= FRAGMENT_CHARS for row in rows)
    if len(rows) < FRAGMENT_ROWS or 2 * short < len(rows) or any(" " in row for row in rows):
        return rows
    # letters run together into words; a number or a dash stands apart
    runs = itertools.groupby(rows, key=str.isalpha)
    line = " ".join(split_run("".join(run), "") if letters else " ".join(run) for letters, run in runs)
    return [line] if 2 * len(line.split()) <= len(rows) else rows  # pieces of words, not words ("Bolt", "Nut")


# A field's name set in bold before its value ("**Academic Term:** Spring 2023"): a form's line.
_FIELD_RE = re.compile(r"^\s*\*\*[^*\n]{1,40}(?::\s*\*\*|\*\*\s*:)\s*\S")


def _is_field(item: Item) -> bool:
    return bool(_FIELD_RE.match(item.get("text") or ""))


def _runs(item: Item, running: set[str], edges: tuple[list[str], list[str]] | None = None) -> bool:
    """A line of the running furniture rather than of the page: a page-edge line whose words stand
    inside a longer line that runs at the edge of other pages ("Proposed Rules" in "Federal Register
    / Vol. 85 / … / Proposed Rules", a journal's name in its running head), or a `header` line the
    parser saw as one that repeats. (A line repeated alone atop every page is the document's own
    title carried onto each, as a manual's "Help Guide", and so is one whose running line this page
    prints in parts on lines of its own at one edge, `edges` holding its top and bottom lines: a
    course's name over its code, "Learning Analytics Concepts" / "EME 6651"; a page-top line that
    is not repeated is the page's own: a paper's title.)"""
    key = normalise(item.get("text") or "")
    if not key:
        return True
    if item.get("type") == "header":
        return key in running
    return _in_edge_band(item) and any(
        key != r and f" {key} " in f" {r} " and not any(_printed_in_parts(r, edge) for edge in edges or ())
        for r in running
    )


def _printed_in_parts(running: str, edge: list[str]) -> bool:
    """Whether one edge of a page prints a running line in two or more lines of its own, not whole."""
    parts = [line for line in edge if line and line != running and f" {line} " in f" {running} "]
    words = {w for line in parts for w in line.split()}
    return running not in edge and len(parts) >= 2 and set(running.split()) <= words


def _edge_lines(items: list[Item], page: int) -> tuple[list[str], list[str]]:
    """A page's lines at its top edge and at its bottom edge, normalised."""
    edge = [i for i in items if i.get("page_idx") == page and i.get("bbox") and _in_edge_band(i)]
    top = [normalise(i.get("text") or "") for i in edge if i["bbox"][3] < EDGE_BAND]
    return top, [normalise(i.get("text") or "") for i in edge if i["bbox"][3] >= EDGE_BAND]


EDGE_BAND = 120  # page units (of 1000): a running line lies wholly within this band at the top or bottom


def _in_edge_band(item: Item) -> bool:
    """Wholly in the band at a page's top or bottom (a cover's title may start there, but runs on below)."""
    top, bottom = item["bbox"][1], item["bbox"][3]
    return bottom < EDGE_BAND or top > 1000 - EDGE_BAND


HALF_PAGE = 500_000  # of a page's 1000 × 1000 units
_RUNNING_HEAD_RE = re.compile(r"^\d{1,4}\s+\D.{0,60}$|^\D.{0,60}\s\d{1,4}$")  # "BRECCIA-GASHES. 165"
SCANNED_TITLE_LINES = 3
ISSUER_LINES = 4  # a cover's issuer is among its first lines (an affiliation comes under the title and its byline)


def _respaced(text: str) -> str:
    """A line that is one run of letters ("THEECOMMERCEGOLDRUSHININDIA") split into its words."""
    return split_run(text, "") if RUN_RE.fullmatch(text) else text


def _area(box: list[int]) -> int:
    return max(box[2] - box[0], 0) * max(box[3] - box[1], 0)


def _scanned_title(text: str) -> str | None:
    """A page that is one picture, titled by the lines read from it (its text layer, or OCR's):
    an institution and the line after it ("NUS BUSINESS SCHOOL" over "BACHELOR OF BUSINESS
    ADMINISTRATION"), else the first run of lines set in capitals after the running head (an old
    paper's "ON THE BRECCIA-GASHES OF THE DURHAM COAST AND / SOME RECENT …", up to its byline),
    else its first short lines ("Undergraduate / Prospectus")."""
    lines = [clean(line) for line in text.splitlines() if line.strip()][: OPENING_LINES * 2]
    if lines and _RUNNING_HEAD_RE.match(lines[0]) and len(lines[0].split()) <= HEADLINE_WORDS:
        lines = lines[1:]
    while lines and not re.search(r"[^\W\d_]", lines[0]):  # a page's number over the title ("272")
        lines = lines[1:]
    for k, (line, after) in enumerate(itertools.pairwise(lines)):  # an issuer atop a cover, not an affiliation
        if k >= ISSUER_LINES or names_people(line):
            break
        named = all(w[:1].isupper() for w in re.findall(r"[^\W\d_]{4,}", line))  # a name: "NUS Business School"
        if named and names_institution(line) and reads_as_title(after) and not names_institution(after):
            return f"{line} — {after}"
    run: list[str] = []
    for line in lines:
        if in_capitals(line) and reads_as_title(line.rstrip(".")) and len(run) < SCANNED_TITLE_LINES:
            run.append(line)
        elif run:
            break
    if not run:  # no capitals: the opening short lines, up to a byline or a section's label ("Notes")
        for line in lines[:SCANNED_TITLE_LINES]:
            if len(line.split()) > HEADLINE_WORDS or not reads_as_title(line):
                break
            if run and (names_people(line) or names_chapter_kind(line)):
                break
            run.append(line)
    title = re.sub(r"(?<=[^\W\d_]) -(?=[^\W\d_])", "-", " ".join(run)).rstrip(" .")  # "BRECCIA -GASHES"
    return title if len(title.split()) >= 2 else None


OPENING_TOP = 350  # the opening line sits in the top third of its page
OPENING_LINES = 4  # … among its first lines
_PERSON_FIELD_RE = re.compile(
    r"^\W*(?:(?:first|last|full|employee'?s?|printed)\s+)?(?:name|signature|phone|e-?mail)\b", re.I
)
PERSON_FIELDS_BAND = 60  # page units (of 1000) above or below a "Title:" label where a person's fields would be
_TITLE_LABEL_RE = re.compile(r"^\W*(?:document\s+|report\s+)?title\s*:?\W*$", re.I)


def _title_field(lines: list[Item]) -> str | None:
    """The value a form or a bulletin sets beside its "TITLE:" label, on the label's row in the
    page's top third ("TITLE:" | "Oversize Tire Accessory Kit"): the title the document states."""
    for label in lines:
        if label["bbox"][1] > OPENING_TOP or not _TITLE_LABEL_RE.match(clean(label.get("text") or "")):
            continue
        row = [i for i in lines if i is not label and i["bbox"][0] >= label["bbox"][2] - 5 and _beside(i, label)]
        near = [clean(i.get("text") or "") for i in lines if abs(i["bbox"][1] - label["bbox"][1]) <= PERSON_FIELDS_BAND]
        if row and not any(_PERSON_FIELD_RE.match(text) for text in near):  # not a signer's or an employee's title
            text = clean(min(row, key=lambda i: i["bbox"][0]).get("text") or "")
            return text if reads_as_title(text) else None
    return None


def _exhibit_title(lines: list[Item]) -> str | None:
    """A printed EDGAR exhibit whose page sets no title: the description in its header atop the
    page, when it says more than the exhibit's number or kind ("EXHIBIT 99.1", "PRESS RELEASE")."""
    for line in lines:
        described = exhibit_description(clean(line.get("text") or "")) if line["bbox"][1] <= OPENING_TOP else None
        if described and reads_as_title(described) and not names_kind_only(described):
            return described
    return None


_TITLE_FIELD_RE = re.compile(  # a form's "Title:" field, up to the next field
    r"\btitle\s*:\W*\s*([^*\n]{3,120}?)\s*(?:\*\*|\n|$|\s(?=[A-Z][a-z]+(?:\s[A-Za-z][a-z]+)?:\s))", re.I
)


def _type_is_mute(lines: list[Item]) -> bool:
    """Whether a page's type says nothing of its title: its sizes unknown (most lines 1.0), or no
    line in its top third set larger than its text by a title's margin (a word processor's page in
    one size, a scan whose lines OCR measured alike), its section headings' size (`heading_style`)
    and a figure's callouts aside."""
    sizes = [_font_size(line) for line in lines]
    if sum(size is not None for size in sizes) < 0.5 * len(lines):
        return True
    sized = [(line, clean(line.get("text") or ""), size) for line, size in zip(lines, sizes, strict=True)]
    body, headings = _body_size(sized), heading_style(sized)
    top = [
        size
        for line, text, size in sized
        if size and line["bbox"][1] < OPENING_TOP
        if not _under_its_style(line, size, sized, headings) and not _callout(line, text)
    ]
    return not top or max(top) < TITLE_SCALE * body


def _under_its_style(line: Item, size: float, sized: list[tuple[Item, str, float | None]], styles: set[float]) -> bool:
    """Whether a line is set in a section headings' size (`heading_style`) below another line in
    that size or below the page's text: a heading. The first line in that size, above the text, may
    be the title the headings are set like (a paper's title over its "Abstract" and "1 Introduction")."""
    return size in styles and any(
        other["bbox"][1] < line["bbox"][1] and (s == size or count_words(text) >= PROSE_LINE_WORDS)
        for other, text, s in sized
    )


CALLOUT_WORDS = 4


def _callout(line: Item, text: str) -> bool:
    """A figure set large to catch the eye ("1st", "~70% electricity", "kilograms CO₂e/boe 2.5"): a
    number in a few words that do not read as a title, and no section's number ("1 Introduction")."""
    return (
        any(c.isdigit() for c in text)
        and len(text.split()) <= CALLOUT_WORDS
        and numbering_depth(text) is None
        and not reads_as_title(_lettered(line, text))
    )


HEADING_RUNS = 3  # a type size that sets this many short lines apart, text between them, is the headings'


def heading_style(sized: list[tuple[Item, str, float | None]]) -> set[float]:
    """The type sizes a page of text sets its section headings in: short lines, each set apart
    from the next by text in another size ("Calculator", "Format", "Academic Honesty" each over
    its paragraph). A document's title is set apart once; a size repeated so is no title's,
    however large (a syllabus's headings set larger than its course's name)."""
    runs: dict[float, int] = {}
    for (_, text, size), (_, after, below) in itertools.pairwise(sized):
        words = len(text.split())
        if size and words <= SUBTITLE_WORDS and below and below < size and len(after.split()) > words:
            runs[size] = runs.get(size, 0) + 1  # a short line over a longer one set smaller: a heading over its text
    return {size for size, count in runs.items() if count >= HEADING_RUNS}


def _opening_line(items: list[Item], page: int, running: set[str]) -> str | None:
    """The page's first line that reads as a title, among its first few at the top (a syllabus
    from a word processor: "Cancer Biology, Fall 2021 Syllabus" in bold body type), a page header
    only when no line of text does; an institution's name is passed over for the line after it."""
    edge = _edge_lines(items, page)
    for kinds in (("text",), ("header",)):
        lines = [
            i
            for i in items
            if i.get("page_idx") == page and i.get("type") in kinds and i.get("bbox") and i["bbox"][1] < OPENING_TOP
            if not _runs(i, running, edge)
        ]
        folios = [
            i for i in items if i.get("page_idx") == page and i.get("bbox") and _FOLIO_RE.match(i.get("text") or "")
        ]
        for k, line in enumerate(lines[:OPENING_LINES]):
            text = clean(line.get("text") or "")
            if _bold(line) and ". " not in text and _OPENS_WITH_CODE_RE.match(text):
                text = text.removesuffix(".")  # a course's title set in bold may end as a sentence does
            # A run-on line: its opening phrase ("PUBHLTH 490Z: … Science (3 credits) Fall 2022 :: T/Th 11:30").
            if len(text.split()) > OPENING_LINE_WORDS or is_schedule(text):
                text = opening_line_title(text, sentences=False) or text
            if _CONTENTS_RE.match(text):
                return None  # a contents page: the lines under its caption are chapters
            text = _chapter_heading(text, lines[k + 1 : k + 2]) or text
            if any(_beside(line, folio) for folio in folios if folio is not line):
                continue  # a running header: set on one line with the page's number
            beside = [clean(other.get("text") or "") for other in lines[max(k - 1, 0) : k + 2] if other is not line]
            if named := _TITLE_FIELD_RE.search(line.get("text") or ""):  # "**Course Title:** ECE 4670: …"
                return clean(named.group(1))
            issued = k > 0 and names_institution(clean(lines[k - 1].get("text") or ""))
            if (
                2 <= len(text.split()) <= (TITLE_MAX_WORDS if issued else OPENING_LINE_WORDS)  # under its issuer
                and reads_as_title(_lettered(line, text))
                and not is_schedule(text)
                and not _is_field(line)
                and not text.endswith((".", ",", ";", ":"))
                and not names_institution(text)
                and not is_person(text, beside)
            ):
                after = [clean(other.get("text") or "") for other in lines[k + 1 : k + 2]]
                if names_kind_only(text) and after and reads_as_title(after[0]) and not names_institution(after[0]):
                    return f"{after[0]} {text}"  # "COURSE SYLLABUS" over "CHEM 101 General Chemistry"
                if names_kind_only(text) and _heads_text(line, items):
                    continue  # a section's heading over its text ("Course Description"), not the document's
                return text
    return None


def _chapter_heading(text: str, after: list[Item]) -> str | None:
    """A chapter's heading that opens a page taken out of a longer work, without its label, on one
    line or two set in capitals ("CHAPTER 6 – AN OVERVIEW OF MARKET STRUCTURE BASED" / "UPON
    EXISTING SOURCES"); None for any other line."""
    number = _SECTION_NUMBER_RE.match(text)
    if number is None or not number.group(0)[:1].isalpha() or len(text[number.end() :].split()) < EXCERPT_WORDS:
        return None
    heading = text[number.end() :]
    more = clean(after[0].get("text") or "") if after else ""
    if more and in_capitals(heading) and in_capitals(more) and len(more.split()) <= SUBTITLE_WORDS:
        heading = f"{heading} {more}"
    return heading


CENTRED = 50  # page units (of 1000): a line whose middle is this near the page's is set centred


def _bold_line_below(coded: str, items: list[Item], page: int) -> str | None:
    """The first line set in bold whole and centred under a code's line (`coded`) in the page's top
    third that reads as a title: the course's name, over its particulars ("ENG 204 Fall 2021", its
    schedule, its room, then "Introduction to Asian American Literature" in bold, centred; not a
    section's heading, "Learning Objectives", set at the margin)."""
    placed = sorted((i for i in items if i.get("page_idx") == page and i.get("bbox")), key=lambda i: i["bbox"][1])
    line = next((i for i in placed if clean(i.get("text") or "") == coded), None)
    if line is None:
        return None
    for item in placed:
        text = clean(item.get("text") or "")
        x0, top, x1, _ = item["bbox"]
        set_apart = _bold(item) and abs((x0 + x1) / 2 - 500) <= CENTRED
        if not (item.get("type") == "text" and line["bbox"][3] <= top < OPENING_TOP and set_apart):
            continue
        plain = 2 <= len(text.split()) <= OPENING_LINE_WORDS and reads_as_title(text) and not _is_field(item)
        plain = plain and not text.endswith((".", ",", ";", ":"))  # a field's label ("Course Chair:")
        if plain and not (names_institution(text) or is_schedule(text) or names_kind_only(text)):
            return text
    return None


def _heads_text(line: Item, items: list[Item]) -> bool:
    """Whether the next item under a line on its page is a paragraph of text (the line heads a section)."""
    below = [
        i
        for i in items
        if i.get("page_idx") == line.get("page_idx") and i.get("bbox") and i["bbox"][1] >= line["bbox"][3]
    ]
    under = min(below, key=lambda i: i["bbox"][1], default=None)
    return under is not None and len(clean(under.get("text") or "").split()) >= PROSE_WORDS


_FOLIO_RE = re.compile(r"^\s*\d{1,4}\s*$")  # a page's number, alone


def _lettered(line: Item, text: str) -> str:
    """A line as judged: one set in bold whole and in small letters only ("eastern mediterranean")
    is a designer's lettering, not a sentence's run-on tail, and is judged as if capitalised."""
    return text[:1].upper() + text[1:] if _bold(line) and text == text.lower() else text


def _bold(item: Item) -> bool:
    """A line set in bold whole (a word processor's title in body type)."""
    raw = (item.get("text") or "").strip()
    return raw.startswith("**") and raw.endswith("**") and raw.count("**") == 2


def _beside(line: Item, other: Item) -> bool:
    """Whether two items share a line: most of the lower one's height is the other's too."""
    top, bottom = max(line["bbox"][1], other["bbox"][1]), min(line["bbox"][3], other["bbox"][3])
    lower = min(line["bbox"][3] - line["bbox"][1], other["bbox"][3] - other["bbox"][1])
    return lower > 0 and bottom - top >= 0.5 * lower


def _in_largest_type(items: list[Item], page: int, lines: list[Item]) -> str | None:
    # Below a "Contents" caption the lines are chapters, none of them the document's title.
    contents = [
        i["bbox"][1]
        for i in items
        if i.get("page_idx") == page and i.get("bbox") and _CONTENTS_RE.match(clean(i.get("text") or ""))
    ]
    lines = [i for i in lines if not contents or i["bbox"][1] < min(contents)]
    if sum(bool(_ENTRY_RE.match(clean(i.get("text") or ""))) for i in lines) >= CONTENTS_ENTRIES:
        return None  # a contents page without its caption: lines led by their page numbers
    # The text layer's font sizes when most lines have one (a multi-line paragraph's box says
    # little of its type), else each line's box.
    fonts = sum((line.get("font_size") or 0) > 1 for line in lines) >= 0.8 * len(lines)
    sized = [
        (line, _respaced(clean(line.get("text") or "")), size)
        for line, size in zip(lines, _sizes(lines, fonts), strict=True)
    ]
    sized = _unnumbered_opening(sized)
    # A page with text on it has its title near the top, set larger than the text; a cover page
    # (no prose) has it wherever its largest type is, under a picture as often as above one.
    # (Running text comes as paragraphs, or, from OCR, as its lines: long single lines that are
    # not a list's items.)
    prose = (
        any(len(text.split()) >= PROSE_WORDS for _, text, _ in sized)
        or sum(
            len(text.split()) >= PROSE_LINE_WORDS
            and text[:1].isalpha()
            and numbering_depth(text) is None
            and _one_line(line)
            for line, text, _ in sized
        )
        >= PROSE_LINES
    )
    body = _body_size(sized)
    # A single word low on a cover is a brand's mark ("TOYOTA" under the picture), not a title.
    candidates = [
        (line, text, size)
        for k, (line, text, size) in enumerate(sized)
        if size
        and reads_as_title(text, line if prose or len(text.split()) < 2 else None, _set_apart(line, size, body))
        and not names_institution(text)
        and not is_schedule(text)
        and not _is_field(line)
        and not is_person(text, [c[1] for c in sized[max(k - 1, 0) : k + 2] if c[0] is not line])
        # sized by boxes alone, a page of text has its title in its top third, not among its tables
        and (fonts or not prose or line["bbox"][1] < OPENING_TOP)
    ]
    if prose and fonts:  # not the page's section headings, however large (`_type_is_mute` reads them so)
        headings = heading_style(sized)
        candidates = [c for c in candidates if not _under_its_style(c[0], c[2], sized, headings)]
    if not candidates:
        return None
    best = max(candidates, key=_weight)
    # Of lines set alike, the one that says what the document is ("2012 Better Varieties Harvest Report
    # for …" beside a label only the parser's heading mark set above it, "ALL SEASON TEST").
    named = [
        c
        for c in candidates
        if _weight(c) >= KIND_TIE * _weight(best) and (c[2] or 0) >= (best[2] or 0)  # as large, but for a mark
        if names_kind(c[1]) and not names_kind_only(c[1])
        if len(c[1].split()) >= KIND_TIE_WORDS and not names_chapter_kind(c[1])  # not "Introduction to …"
    ]
    if named and not names_kind(best[1]):
        best = max(named, key=_weight)
    if len(best[1].split()) < 2:  # a logo's word ("UCWeb") over the title set nearly as large
        phrases = [c for c in candidates if len(c[1].split()) >= 2 and c[2] >= WORD_OVER_PHRASE * best[2]]
        best = max(phrases, key=_weight) if phrases else best
    # A byline measured as large as the title (a scan's): the title is the line over it, a title
    # block's, however little larger than the text.
    over = [c for c in candidates if c[0]["bbox"][1] < best[0]["bbox"][1] and _over(c[0], best[0])]
    bylined = bool(over) and is_sure_byline(best[1])
    best = max(over, key=lambda c: c[0]["bbox"][1]) if bylined else best
    # A kind of document named atop the page ("Help Guide" over the product's name) is its title
    # however little larger it is set.
    heads = (
        names_kind_only(best[1])
        and not names_chapter_kind(best[1])
        and best[0]["bbox"][1] <= min(line["bbox"][1] for line in lines)
    )
    at = next(k for k, c in enumerate(sized) if c[0] is best[0])
    # Under a title block's first lines its byline: a title set larger than the text, if not much larger.
    block = _heads_a_title_block([text for _, text, _ in sized[at + 1 : at + 1 + BYLINE_LINES]])
    if prose and best[2] < TITLE_SCALE * body and not heads and not bylined and not (block and best[2] > body):
        return None
    parts = [best[1]]
    for step in (1, -1):  # neighbours in reading order set in the same type, one under the other
        k, last = at + step, best[0]
        while 0 <= k < len(sized) and len(parts) < 4:
            line, text, size = sized[k]
            # A line that ends in "and", "of", "for" goes on in the next, in whatever type it is set.
            runs_on = _runs_on(text if step == -1 else parts[-1])
            alike = (
                size is not None
                and abs(size - best[2]) <= (0.05 if fonts else 0.2) * best[2]  # one title is set in one size
                and (line.get("text_level") == best[0].get("text_level") or fonts)
            )
            if not (
                size
                and (alike or runs_on)
                and _stacked(last, line)
                and reads_as_title(text, line if prose else None, _set_apart(line, size, body))
                and not names_institution(text)
                and not is_schedule(text)
            ):
                break
            parts.insert(len(parts) if step == 1 else 0, text)
            k, last = k + step, line
            if not alike:  # set apart from the rest, joined for the word it runs on with: the title ends here
                break
    title = " ".join(" ".join(parts).split())
    after = at + len(parts) - parts.index(best[1])
    if _LABEL_RE.fullmatch(title) and (beside := _beside_label(sized, after, best)):
        title = f"{title} — {beside}"  # "SECTION 2" | "DIESEL ENGINES", set side by side
    elif subtitle := _subtitle(sized, after, body, best[2]):
        title = f"{title}: {subtitle}"
    # A chapter's title is a few words ("Getting Started"); a headline that says what the whole
    # document reports ("Amcor reports fiscal 2023 results and …") is its title however the
    # headings after it are set.
    headline = len(title.split()) >= HEADLINE_WORDS
    later = [i for i in items if (i.get("page_idx") or 0) > page]
    if prose and not (headline or heads or block or bylined) and _set_like_a_later_heading(best[0], best[2], later):
        return None
    if len(title.split()) < 2 and len(title) < 5:  # one short word is a logo or a misread, not a title
        return None
    if TRAILING_FUNCTION_WORD.search(title.rstrip(" &")) or title.endswith(
        "&"
    ):  # a fragment: "NRC 585 & GEOGRAPH 585 &"
        return None
    if prose and title.endswith(":"):  # a label of what follows on a page of text ("Course zoom links:")
        return None
    if names_kind_only(title):  # "User Manual": what about, the cover says in its next largest type
        title = _with_subject((best[0], title), [c for c in candidates if c[1] not in parts])
    longest = LONG_TITLE_WORDS if _set_apart(best[0], best[2], body) else TITLE_MAX_WORDS
    if len(title.split()) > longest:
        return None
    if not prose:  # a cover names who issued it: "Department of Health — Strategic Plan 2031–2033"
        others = [(text, size) for _, text, size in sized if text not in parts]
        issued = _with_issuer(_with_kind_line(title, others), others)
        title = issued if len(issued.split()) <= TITLE_MAX_WORDS else title  # (a long title alone)
    return title


def _set_apart(line: Item, size: float | None, body: float) -> bool:
    """A line the page sets apart as a title: in type larger than its text, or the parser's top-level heading."""
    return line.get("text_level") == 1 or bool(size and body and size >= TITLE_SCALE * body)


EXCERPT_WORDS = 3  # a numbered heading that opens a page names an excerpt when this long ("1 Introduction" does not)
# "1.1", "3.2.1" (not "10 Ways to …"), a chapter's or a part's label ("CHAPTER 6 – ", "Part II: ").
_SECTION_NUMBER_RE = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,3})+\s+|(?i:chapter|part)\s+(?:\d{1,2}|[IVXLC]{1,6})\s*[–—:.-]\s*)(?=\S)"
)


def _unnumbered_opening(sized: list[tuple[Item, str, float | None]]) -> list[tuple[Item, str, float | None]]:
    """A page that opens with a section's or a chapter's numbered heading in its largest type ("1.1
    JAL Group International Passenger Traffic Data" over the tables, "CHAPTER 6 – AN OVERVIEW OF
    …"): pages taken out of a longer work, titled by that heading, read without its number."""
    sizes = [size for _, _, size in sized if size]
    if not sizes:
        return sized
    at = min(range(len(sized)), key=lambda k: sized[k][0]["bbox"][1])
    line, text, size = sized[at]
    number = _SECTION_NUMBER_RE.match(text)
    if number is None or not size or size < 0.9 * max(sizes) or len(text[number.end() :].split()) < EXCERPT_WORDS:
        return sized
    return [*sized[:at], (line, text[number.end() :], size), *sized[at + 1 :]]


KIND_TIE = 0.9  # a line set at least this near the largest that names a kind of document is the title
KIND_TIE_WORDS = 3
LEVEL_ONE = 1.15  # a line the parser marks a top-level heading weighs as if set this much larger


def _weight(candidate: tuple[Item, str, float | None]) -> float:
    """A candidate line's size, a top-level heading's raised (a bold line's box, wider, says it is larger)."""
    line, _, size = candidate
    return (size or 0.0) * (LEVEL_ONE if line.get("text_level") == 1 else 1.0)


def _runs_on(text: str) -> bool:
    """A line that cannot end a title: it ends in a function word or an ampersand."""
    return bool(TRAILING_FUNCTION_WORD.search(text.rstrip(" &"))) or text.rstrip().endswith("&")


BYLINE_LINES = 4  # a title block's byline (authors, affiliation, abstract) follows within these lines


def _heads_a_title_block(after: list[str]) -> bool:
    """The lines right under a line are a title block's: its authors, an affiliation, an e-mail
    address or the abstract (a paper's, a report's), so the line is the document's title, however
    its later headings are set."""
    return any(
        names_people(line) or names_address(line) or names_institution(line) or _ABSTRACT_RE.match(line)
        for line in after
    )


_ABSTRACT_RE = re.compile(r"^\W*(abstract|summary|executive summary)\b", re.I)


def _with_issuer(title: str, others: list[tuple[str, float | None]]) -> str:
    """The title after the institution a cover names in its largest type, when the title does
    not name it already."""
    issuers = [(text, size or 0.0) for text, size in others if names_institution(text) and reads_as_title(text)]
    if not issuers:
        return title
    issuer = max(issuers, key=lambda i: i[1])[0].strip(" ,.")
    have = set(re.findall(r"[^\W_]+", title.lower()))
    words = [w for w in re.findall(r"[^\W_]+", issuer.lower()) if len(w) > 3]
    if words and sum(w in have for w in words) >= 0.5 * len(words):
        return title
    return f"{issuer} — {title}"


_YEAR_RE = re.compile(r"\b(?:19|20)\d\d\b")


def _with_kind_line(title: str, others: list[tuple[str, float | None]]) -> str:
    """A cover's theme in its largest type ("We Care") after the line that says what the document
    is and of when ("Integrated Annual Report 2021-22"), when the theme does not say it."""
    if names_kind(title):
        return title
    kinds = [
        (text, size or 0.0)
        for text, size in others
        if names_kind(text) and _YEAR_RE.search(text) and len(text.split()) <= SUBJECT_WORDS and reads_as_title(text)
        if ":" not in text and not names_institution(text)  # not a field: "Review date: March 2025"
        if not DAY_RE.search(text)  # of a year, not a day's record ("PATIENT INFORMATION … March 15, 1978")
    ]
    joined = f"{title} — {max(kinds, key=lambda k: k[1])[0]}" if kinds else title
    return joined if len(joined.split()) <= TITLE_MAX_WORDS else title


SUBJECT_WORDS = 10


def _with_subject(kind: tuple[Item, str], others: list[tuple[Item, str, float | None]]) -> str:
    """ "Coffee machine User Manual", "Object Storage Service Product Introduction": a title that
    names only a kind of document (`kind`: its line and text), after the line nearest to it on the
    cover that names a subject."""
    subjects = [
        (line, text)
        for line, text, size in others
        if size
        and len(text.split()) <= SUBJECT_WORDS
        and not names_kind_only(text)
        and sum(ch.isalpha() for ch in text) >= 3
    ]
    if not subjects:
        return kind[1]
    top = kind[0]["bbox"][1]
    subject = min(subjects, key=lambda s: abs(s[0]["bbox"][1] - top))[1]
    return f"{subject} {kind[1]}"


def _sizes(lines: list[Item], fonts: bool) -> list[float | None]:
    """Each line's type size: the text layer's font size where most lines have one (a line
    without it sized by its box, scaled as the other lines' boxes are to their fonts), else its box."""
    if not fonts:
        return [_type_size(line) for line in lines]
    ratios = sorted(font / box for line in lines if (font := _font_size(line)) and (box := _type_size(line)))
    scale = ratios[len(ratios) // 2] if ratios else None
    return [_font_size(line) or ((box * scale) if scale and (box := _type_size(line)) else None) for line in lines]


SUBTITLE_WORDS = 10


# A part's label alone: "SECTION 2", "Chapter 3", "PART C", "Annex IV".
_LABEL_RE = re.compile(r"(?i:section|chapter|part|article|annex|appendix)\s+(?:\d{1,3}|[A-Z]|[IVXLC]{1,6})\.?")


def _beside_label(
    sized: list[tuple[Item, str, float | None]], at: int, best: tuple[Item, str, float | None]
) -> str | None:
    """The name set beside or under a part's label (`best`), in type like it: the line after it
    in reading order, on its row or right under it."""
    if not 0 < at < len(sized):
        return None
    line, text, size = sized[at]
    alike = bool(size and best[2] and abs(size - best[2]) <= 0.2 * best[2])
    placed = _beside(line, best[0]) or _stacked(best[0], line)
    return text if alike and placed and reads_as_title(text) and not _LABEL_RE.match(text) else None


def _subtitle(sized: list[tuple[Item, str, float | None]], at: int, body: float, size: float) -> str | None:
    """The line right under a title (`sized[at]`), set smaller than it but larger than the page's
    text ("Educational Psychology" over "Introduction to Learning Sciences II"): its subtitle,
    when it reads as one and is no byline, date, field or institution."""
    if not 0 < at < len(sized) or ":" in sized[at - 1][1]:
        return None
    line, text, its = sized[at]
    if not (its and TITLE_SCALE * body <= its < size and _stacked(sized[at - 1][0], line)):
        return None
    if _runs_on(text):  # its line goes on in the next ("NRC 585 & GEOGRAPH 585 &"): a fragment, no subtitle
        return None
    return text if reads_as_subtitle(text, sized[at - 1][1], line) and not _is_field(line) else None


def reads_as_subtitle(text: str, above: str, line: Item | None = None) -> bool:
    """Whether a line right under a title (`above`) reads as its subtitle ("Introduction to
    Learning Sciences II"): a few words, no sentence, date, byline, institution or schedule."""
    plain = 2 <= len(text.split()) <= SUBTITLE_WORDS and not text.endswith((".", ",", ";", ":"))
    if not plain or not reads_as_title(text, line) or is_date_line(text):
        return False
    return not (names_institution(text) or is_schedule(text) or names_people(text) or is_person(text, [above]))


def _body_size(sized: list[tuple[Item, str, float | None]]) -> float:
    """The page's text size: the median type size, each line weighted by its characters."""
    weighted = sorted((size, len(text)) for _, text, size in sized if size)
    half, seen = sum(n for _, n in weighted) / 2, 0
    for size, n in weighted:
        seen += n
        if seen >= half:
            return size
    return 0.0


def _set_like_a_later_heading(line: Item, size: float, later: list[Item]) -> bool:
    """On a first page that goes straight into the text, the largest line is a chapter's title
    when later chapters are set like it ("Getting Started" on page 1, "Daily Use" on page 9): a
    document's own title is set apart. (A cover page without text, a deck's first slide, is not
    judged so: its slides' titles are all set alike.)"""
    for item in later:
        raw = (item.get("text") or "").strip()
        heading = item.get("text_level") or (raw.startswith("**") and raw.endswith("**"))  # flash leaves some in bold
        if not heading or item.get("type") != "text" or not item.get("bbox"):
            continue
        if (line.get("font_size") or 0) > 1 and (item.get("font_size") or 0) > 1:  # 1.0: the text layer's sizes unknown
            if item["font_size"] >= 0.95 * line["font_size"]:
                return True
        elif (other := _type_size(item)) and other >= 0.9 * size:
            return True
    return False


def _one_line(item: Item) -> bool:
    """A box one line high: its height under twice the type size its area gives."""
    size = _type_size(item)
    return bool(size) and item["bbox"][3] - item["bbox"][1] < 2 * size  # type: ignore[operator]


def _font_size(item: Item) -> float | None:
    size = item.get("font_size") or 0
    return float(size) if size > 1 else None


def _type_size(item: Item) -> float | None:
    """The type size of a line, in page units: the square root of its box's area per character."""
    x0, y0, x1, y1 = item["bbox"]
    chars = len(clean(item.get("text") or "").replace(" ", ""))
    return math.sqrt(max(x1 - x0, 1) * max(y1 - y0, 1) / chars) if chars else None


def opening_line_title(text: str, sentences: bool = True) -> str | None:
    """A file without pages or headings (plain text, a letter in DOCX) whose first line is short
    and reads like a title ("Quarterly Safety Review", not "Dear Ms Li," or a sentence); or, where
    the first line runs on (a text whose lines were joined), its opening phrase, up to the first of
    its particulars: a time, a day, a field ("Instructor:"), an address, a bracket
    ("Stat 111 Elementary Statistics Syllabus --Spring 2023 Moodle in the Cloud: …"); `sentences`:
    or its first sentence's end, when the sentence opens with a code ("Biology 582: From DNA to
    Diversity: … change. * Note – …"; a text's lines joined, not a paragraph of a page)."""
    line = ASIDE_RE.sub("", clean(text.strip().split("\n", 1)[0]))
    if GREETING_RE.match(line):  # a greeting: "Welcome to CS 568 2021 FALL! The reading …"
        return welcomed(line)  # what it names, if anything ("Welcome to your new phone." names nothing)
    limit = OPENING_LINE_WORDS if "\n" in text.strip() else OPENING_PHRASE_WORDS
    title = _opening_phrase(line, sentences, limit)
    if title is None and _OPENS_WITH_CODE_RE.match(line) and (second := _NEXT_CODED_NAME_RE.search(line, 1)):
        title = _opening_phrase(line[: second.start()], sentences, limit)  # of two courses run on, the first's
    return title


def _opening_phrase(line: str, sentences: bool, limit: int) -> str | None:
    cuts = list(PARTICULARS_RE.finditer(line))
    if len(line.split()) > OPENING_LINE_WORDS:  # a line run on: "Prof." opens who teaches, not the title's words
        cuts = sorted([*cuts, *_PROFESSOR_RE.finditer(line)], key=lambda c: c.start())
    cut = next((c for c in cuts if len(line[: c.start()].split()) >= 2 and _names_before(c, sentences)), None)
    if (named := _TITLE_FIELD_RE.search(line)) and len(line.split()) > OPENING_LINE_WORDS:
        line = clean(named.group(1))  # "School of … Course Title: ECE 4670: Digital Communication Author: …"
    elif cut:
        line = re.sub(r"\s*\([^)]*$", "", line[: cut.start()]).strip(" -–—,;:|")  # no bracket left open
    if len(line.split()) > limit:  # a heading in capitals whose lines ran on: past its institution's
        line = past_institution(line) or line
    ok = len(line.split()) <= limit and not line.endswith((".", ",", ";", ":")) and not _runs_on(line)
    return line if ok and reads_as_title(line) else None


OPENING_PHRASE_WORDS = 16  # the opening phrase of a run-on first line, at most
# A second course's code and name on a line that opens with one ("… (Elementary) MUSIC-ED 500U: Student …").
_NEXT_CODED_NAME_RE = re.compile(r"\s[A-Z][A-Za-z&/-]*\s?(?!(?:19|20)\d\d\b)\d{2,}[A-Z]{0,2}:\s")
# A line that opens with a code ("Physics 132 …", "Biology 582: From DNA to …"; not a year, "In 2023 …").
_OPENS_WITH_CODE_RE = re.compile(r"^[A-Z][\w&/-]*\s?(?!(?:19|20)\d\d\b)\d{2,}")


def _names_before(cut: re.Match[str], sentences: bool) -> bool:
    """Whether what a run-on line says before its cut names the document: before its particulars,
    always; before its first sentence's end only when it opens with a code (a first sentence such
    as "We're investing to grow in …" or "In 2023 the company grew …" is text, not a title)."""
    if cut.group(0)[:1] not in ".!?":
        return True
    return sentences and bool(_OPENS_WITH_CODE_RE.match(cut.string))


_PROFESSOR_RE = re.compile(r"\s(?i:prof)\.\s")  # "… SPRING 2023 – SYLLABUS Prof. <NAME>, CPA"
# An aside with a number, of three words or more ("(3 credits, CRN = 21233)"; not "(2015)").
ASIDE_RE = re.compile(r"\s*\((?=[^)]*\d)(?=(?:[^)\s]+\s+){2,}[^)\s]+\))[^)]*\)(?=\s|$)")
# What follows a document's name on its line but is no part of it: a time (not a date's
# "01.01.2020", nor a court's case number "3:18-cv-04954"), an address, a placeholder, credits.
_PARTICULARS = r"(?:[MTWRF]|Th|Tu)*\s?\d{1,2}[:.]\d{2}\b(?![.:]\d|-[A-Za-z]{2}-)|<[A-Z_]+>|\S+@\S+|https?://|\(?\d+\s+(?i:credits?)\b"
# A sentence's end, after a word (not an initial's or a title's "Dr."), before the next sentence
# however it opens ("… evolutionary change. * Note – This syllabus …").
_ABBREVIATIONS = ("Prof", "Inc", "Corp", "Ltd", "Dept", "Univ", "Assoc", "Govt", "Mrs")
_SENTENCE_END = "".join(rf"(?<!\b{a})" for a in _ABBREVIATIONS) + r"(?<=[a-z]{3})[.!?](?=\s+\W*[A-Z])"
_ROLES = r"instructors?|lecturers?|professors?|teaching\s+assistants?"
_FIELDS = (
    r"office\s+hours?|e-?mail|phone|location|room|prerequisites?"
    r"|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|satur|sun)(?:day)?s?"
)
# Where a run-on opening line (a text whose lines were joined) turns from naming the document to
# its particulars: those, or the name of one of a course's or a meeting's fields (`lines._BOILERPLATE_RE`
# names them where a line starts with one), or its first sentence's end.
PARTICULARS_RE = re.compile(
    rf"\s(?:{_PARTICULARS}|(?i:credits?|{_ROLES}|{_FIELDS})\b|(?i:classroom)\s*:)|{_SENTENCE_END}"
)
# The same on a title's own line, where such words may belong to the title ("Email Marketing
# Basics"): a field with its value after it ("Room 138", "Office Hours for …"), a role before a name.
TRAILING_PARTICULARS_RE = re.compile(
    rf"\s(?:{_PARTICULARS}|(?i:{_ROLES})\b(?=\s*[:(<]|\s+[A-Z][a-z]+\s+[A-Z])|(?i:{_FIELDS})\b(?=\s*[:(\d]|\s+for\b))"
)


def _over(above: Item, below: Item) -> bool:
    """A line right over another, a blank line's gap at most between them, overlapping across."""
    a, b = above["bbox"], below["bbox"]
    gap = b[1] - a[3]
    return -1 <= gap <= 2 * max(b[3] - b[1], 1) and min(a[2], b[2]) > max(a[0], b[0])


def _stacked(above: Item, below: Item) -> bool:
    """Two lines of one title: one right under the other (either order), overlapping across."""
    a, b = above["bbox"], below["bbox"]
    top, bottom = (a, b) if a[1] <= b[1] else (b, a)
    height = min(a[3] - a[1], b[3] - b[1])
    return bottom[1] - top[3] <= max(height, 1) and min(a[2], b[2]) > max(a[0], b[0])
