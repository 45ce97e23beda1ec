"""What to call a document: its cover page when it has a standard one, else its metadata title
when that is a real title, else the title set on its first page, else (in `indexer.structure.sections.build`)
its first heading or its file name.

In a folder of downloads the file name is often an archive id, a hash or a slug, while page 1
says plainly what the document is: a paper's title in the largest type, a report's title below
its "FOR RELEASE" line. The largest type is estimated from each line's box and length (the
square root of its area per character), which needs no font information: the text layer's
sizes are missing or in arbitrary units in many PDFs, and scans have none.

PDF metadata titles are often not titles at all: an accession number (`0000004962-23-000006`),
a template's leftover (`Document`, `Microsoft Word - F20_10K_VFinal`), or another document's
(a 10-K saved over last year's proxy statement). A filing's cover page says exactly what it is
(`indexer.parse.filing_cover`). A report that says how to cite it names its own title in the
citation ("Recommended citation: …, "Title""). A page's boilerplate (the SEC header, "Table of
Contents", "FOR IMMEDIATE RELEASE") is never a title (`is_banner`), and a line that names an
institution alone ("University of Massachusetts, Amherst") is the issuer of what the next line
names (`names_institution`).
"""

from __future__ import annotations

import math
import re

from indexer.models import Block
from indexer.parse.blocks import TRAILING_FUNCTION_WORD
from indexer.parse.junk import is_junk
from indexer.parse.numbering import numbering_depth

# A template's or a tool's leftover, or a file name, saved as the title.
_PLACEHOLDER_RE = re.compile(
    r"^(microsoft|untitled|powerpoint presentation|slide \d|document\s*\d*$|title$|presentation\d*$)"
    r"|\.(docx?|pptx?|xlsx?|pdf|indd|qxd|rtf|txt|tex|dvi)\b|\bexhibit\s+\d",  # a filing system's label
    re.I,
)


def metadata_title_ok(title: str) -> bool:
    """A metadata title worth showing: a few words, not a tool's placeholder, a file id or a banner."""
    title = title.strip()
    return (
        len(title.split()) >= 2
        and not _PLACEHOLDER_RE.search(title)
        and not re.fullmatch(r"[\d\W_]+", title)
        and not is_banner(title)
    )


# A page's furniture that names no document: the commission's header, a contents page's caption,
# a release line, a form's name or an exhibit's number standing alone, a report's checkbox line.
_BANNER_RE = re.compile(
    r"securities\s+and\s+exchange\s+commission|^washington,?\s+d\.?\s*c\.?\b|^(table\s+of\s+)?contents$|^index$|"
    r"^(for\s+(immediate\s+)?release|embargoed|(news|press|media)\s+release|\(mark\s+one\))|"
    r"^((annual|quarterly|current|transition)\s+report\s+pursuant)|^form\s+[\w-]*\d[\w-]*$|^exhibit\s+[\d.]+\w?$",
    re.I,
)


def is_banner(text: str) -> bool:
    """A page's boilerplate, never a document's title ("UNITED STATES SECURITIES AND EXCHANGE
    COMMISSION", "Table of Contents", "FOR IMMEDIATE RELEASE")."""
    text = " ".join(re.sub(r"[*_#]+", " ", text).split()).strip(" .:;,-–—")
    return bool(_BANNER_RE.search(text)) and len(text.split()) <= 10


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
            title = _clean(quoted.group(1)).strip(" ,.")
            if 2 <= len(title.split()) <= 25 and not is_banner(title):
                return title
    return None


# An institution: a university, a college, a school or a department ("UNIVERSITYOF" as some
# files spell it).
_INSTITUTION_RE = re.compile(
    r"\b(university|college|institute|school|academy|department|faculty|division|polytechnic)(\b|of\b)", re.I
)
# What says what a document is: a kind of document, or a course's or a form's code ("CEE 549").
_DOCUMENT_KIND_RE = re.compile(
    r"(?-i:\b[A-Z]{2,}[\s-]*(?!(?:19|20)\d\d\b)\d{2,4}[A-Z]?\b)|\b(plan|report|syllabus|guide|manual|handbook|policy|review|course|program|programme|"
    r"strategy|statement|catalog|catalogue|brochure|prospectus|bulletin|newsletter|proceedings|agenda|minutes|notes|"
    r"outline|introduction|principles|fundamentals|seminar|lab|laboratory)s?\b",
    re.I,
)
INSTITUTION_WORDS = 12


def names_institution(text: str) -> bool:
    """ "University of Massachusetts, Amherst", "Spring 2023 UMass Department of Geosciences":
    who issued a document (a syllabus, a handbook), not what it is."""
    text = text.strip(" .")
    return (
        len(text.split()) <= INSTITUTION_WORDS
        and bool(_INSTITUTION_RE.search(text))
        and not _DOCUMENT_KIND_RE.search(text)
    )


# Lines on a first page that are not its title: a release line, contacts, a byline, a citation,
# a journal's or publisher's furniture.
_BOILERPLATE_RE = re.compile(
    r"^(for (immediate )?release|embargoed|for (media|further)|media contact|contact|recommended citation|"
    r"table of contents|contents$|hosted by|by\b|prepared (by|for)|presented (by|to)|submitted (by|to)|"
    r"authors?\b|copyright|©|\(c\)|all rights reserved|page \d|draft\b|confidential|issue\b|date\b|version\b|"
    r"received\b|accepted\b|published\b|available online|doi\b|arxiv\b|volume\b|vol\.|abstract$|keywords?\b)",
    re.I,
)
_ADDRESS_RE = re.compile(r"https?://|www\.|\S@\S|\.(com|org|net|edu|gov)\b", re.I)
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_DATE_LINE_RE = re.compile(
    rf"^[\W\d_]*(({_MONTHS})[a-z]*\.?[\s,\d]*)+$|^[\d\s./,:-]+$|^(q[1-4]|fy)\s*\d{{2,4}}$|"
    r"^(spring|summer|fall|autumn|winter)(\s+(term|semester|quarter|session))?\s*,?\s*\d{4}$",  # a term: "FALL 2021"
    re.I,
)
_FIELD_RE = re.compile(r"\b[A-Z][A-Za-z]+(?: [A-Z]?[a-z]+)?:\s")
_MARKUP_RE = re.compile(r"<sup>.*?</sup>|<sub>.*?</sub>|<[^>]+>|\*\*|__|\\(?=[_*#$&%])")
TITLE_TOP = 650  # the title sits in the top two thirds of its page (0–1000 units)
TITLE_MAX_WORDS = 20
TITLE_SCALE = 1.25  # a title is set at least this much larger than the page's text
PROSE_WORDS = 30  # a line of text this long is the document's text, not its title page
PROSE_LINES, PROSE_LINE_WORDS = 3, 12  # … and so are this many lines this long
HEADLINE_WORDS = 6  # a title this long is a headline (a release's, a report's), not a chapter's
WORD_OVER_PHRASE = 0.75  # a phrase set this large beside a single larger word is the title
_CONTENTS_RE = re.compile(r"^(table\s+of\s+)?contents\b", re.I)
_ENTRY_RE = re.compile(r"^\d{1,3}\s+[A-Z]")  # "19 School of Mechanical …": a contents entry
CONTENTS_ENTRIES = 5


def first_page_title(items: list[dict], file_name: str = "") -> str | None:
    """The title set on a document's first page (its second, when the first is a picture): the
    line in the largest type near the top that is not boilerplate, with the lines set like it
    right below or above it (a title on two or three lines; not the authors under it). None
    when no line reads like a title, or when a word or two the file's name (`file_name`)
    has too, with more, is all there is."""
    pages = sorted({i["page_idx"] for i in items if isinstance(i.get("page_idx"), int)})
    for page in pages[:2]:
        lines = [i for i in items if i.get("page_idx") == page and i.get("type") == "text" and i.get("bbox")]
        if lines:
            break
    else:
        return None
    # Below a "Contents" caption the lines are chapters, none of them the document's title.
    contents = [
        i["bbox"][1]
        for i in items
        if i.get("page_idx") == page and i.get("bbox") and _CONTENTS_RE.match(_clean(i.get("text") or ""))
    ]
    lines = [i for i in lines if not contents or i["bbox"][1] < min(contents)]
    if sum(bool(_ENTRY_RE.match(_clean(i.get("text") or ""))) for i in lines) >= CONTENTS_ENTRIES:
        return None  # a contents page without its caption: lines led by their page numbers
    # The text layer's font sizes when most lines have one (a multi-line paragraph's box says
    # little of its type), else each line's box.
    fonts = sum((line.get("font_size") or 0) > 1 for line in lines) >= 0.8 * len(lines)
    sized = [(line, _clean(line.get("text") or ""), _font_size(line) if fonts else _type_size(line)) for line in lines]
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
    # A single word low on a cover is a brand's mark ("TOYOTA" under the picture), not a title.
    candidates = [
        (line, text, size)
        for line, text, size in sized
        if size
        and _reads_as_title(text, line if prose or len(text.split()) < 2 else None)
        and not names_institution(text)
    ]
    if not candidates:
        return None
    best = max(candidates, key=lambda c: c[2] * (1.15 if c[0].get("text_level") == 1 else 1.0))
    if len(best[1].split()) < 2:  # a logo's word ("UCWeb") over the title set nearly as large
        phrases = [c for c in candidates if len(c[1].split()) >= 2 and c[2] >= WORD_OVER_PHRASE * best[2]]
        best = max(phrases, key=lambda c: c[2]) if phrases else best
    if prose and best[2] < TITLE_SCALE * _body_size(sized):
        return None
    at = next(k for k, c in enumerate(sized) if c[0] is best[0])
    parts = [best[1]]
    for step in (1, -1):  # neighbours in reading order set in the same type, one under the other
        k, last = at + step, best[0]
        while 0 <= k < len(sized) and len(parts) < 4:
            line, text, size = sized[k]
            if not (
                size
                and abs(size - best[2]) <= (0.05 if fonts else 0.2) * best[2]  # one title is set in one size
                and (line.get("text_level") == best[0].get("text_level") or fonts)
                and _stacked(last, line)
                and _reads_as_title(text, line if prose else None)
                and not names_institution(text)
            ):
                break
            parts.insert(len(parts) if step == 1 else 0, text)
            k, last = k + step, line
    title = " ".join(" ".join(parts).split())
    # A chapter's title is a few words ("Getting Started"); a headline that says what the whole
    # document reports ("Amcor reports fiscal 2023 results and …") is its title however the
    # headings after it are set.
    headline = len(title.split()) >= HEADLINE_WORDS
    later = [i for i in items if (i.get("page_idx") or 0) > page]
    if prose and not headline and _set_like_a_later_heading(best[0], best[2], later):
        return None
    if len(title.split()) < 2 and len(title) < 5:  # one short word is a logo or a misread, not a title
        return None
    if TRAILING_FUNCTION_WORD.search(title.rstrip(" &")) or title.endswith(
        "&"
    ):  # a fragment: "NRC 585 & GEOGRAPH 585 &"
        return None
    if says_less(title, file_name):  # "User Manual" on page 1 of User_Manual_1500S_Classic_EN.pdf
        return None
    return title if len(title.split()) <= TITLE_MAX_WORDS else None


def _body_size(sized: list[tuple[dict, str, float | None]]) -> float:
    """The page's text size: the median type size, each line weighted by its characters."""
    weighted = sorted((size, len(text)) for _, text, size in sized if size)
    half, seen = sum(n for _, n in weighted) / 2, 0
    for size, n in weighted:
        seen += n
        if seen >= half:
            return size
    return 0.0


def _set_like_a_later_heading(line: dict, size: float, later: list[dict]) -> bool:
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


def _clean(text: str) -> str:
    return " ".join(_MARKUP_RE.sub("", text).split())


def _one_line(item: dict) -> bool:
    """A box one line high: its height under twice the type size its area gives."""
    size = _type_size(item)
    return bool(size) and item["bbox"][3] - item["bbox"][1] < 2 * size  # type: ignore[operator]


def _font_size(item: dict) -> float | None:
    size = item.get("font_size") or 0
    return float(size) if size > 1 else None


def _type_size(item: dict) -> float | None:
    """The type size of a line, in page units: the square root of its box's area per character."""
    x0, y0, x1, y1 = item["bbox"]
    chars = len(_clean(item.get("text") or "").replace(" ", ""))
    return math.sqrt(max(x1 - x0, 1) * max(y1 - y0, 1) / chars) if chars else None


OPENING_LINE_WORDS = 12


def says_less(title: str, file_name: str) -> bool:
    """A title of a word or two that the file's name has too, with more ("Syllabus" for
    "270 Syllabus Fall 2022"): the name says more."""
    words, named = set(re.findall(r"[^\W_]+", title.lower())), set(re.findall(r"[^\W_]+", file_name.lower()))
    return len(words) <= 2 and words < named


def opening_line_title(text: str, file_name: str = "") -> str | None:
    """A file without pages or headings (plain text, a letter in DOCX) whose first line is short
    and reads like a title ("Quarterly Safety Review", not "Dear Ms Li," or a sentence)."""
    line = _clean(text.strip().split("\n", 1)[0])
    ok = len(line.split()) <= OPENING_LINE_WORDS and not line.endswith((".", ",", ";", ":"))
    return line if ok and _reads_as_title(line) and not says_less(line, file_name) else None


def _reads_as_title(text: str, item: dict | None = None) -> bool:
    words = text.split()
    letters = sum(ch.isalpha() for ch in text)
    return (
        (item is None or item["bbox"][1] < TITLE_TOP)
        and 1 <= len(words) <= TITLE_MAX_WORDS
        and letters >= 3
        and letters >= 0.5 * len(text.replace(" ", ""))
        and not _BOILERPLATE_RE.match(text)
        and not is_banner(text)
        and not _ADDRESS_RE.search(text)
        and not _DATE_LINE_RE.match(text)
        and not is_junk(text, "text")
        and not (text.endswith(".") and len(words) > 6)  # a sentence
        and (text[:1].isalnum() or text[:1] in "\"'“(")  # not a bullet, not a run-on ": Monday …"
        and not text[:1].islower()
        and numbering_depth(text) is None  # "2. Textbook", "1 Introduction": an item or a chapter
        and len(_FIELD_RE.findall(text)) < 2  # "Term: … Office Hours: …": a form's fields
    )


def _stacked(above: dict, below: dict) -> bool:
    """Two lines of one title: one right under the other (either order), overlapping across."""
    a, b = above["bbox"], below["bbox"]
    top, bottom = (a, b) if a[1] <= b[1] else (b, a)
    height = min(a[3] - a[1], b[3] - b[1])
    return bottom[1] - top[3] <= max(height, 1) and min(a[2], b[2]) > max(a[0], b[0])
