"""What a line of a document's first page is, when it is not the document's title: a page's
banner ("Table of Contents", "FOR IMMEDIATE RELEASE"), boilerplate (a byline, a date, an address,
a copyright), an institution alone (who issued the document, not what it is), a contact line
("Jane Roe, Director, Media Relations") or a person's name beside a role ("Governor").
"""

from __future__ import annotations

import re

from indexer.models import Block, Item
from indexer.parse.dates import MONTH
from indexer.parse.junk import is_junk
from indexer.parse.numbering import numbering_depth

# A page's furniture that names no document: the commission's header, a contents page's caption,
# a release line, a form's name or an exhibit's number standing alone, a report's checkbox line.
_BANNER_RE = re.compile(
    r"securities\s+and\s+exchange\s+commission|^washington,?\s+d\.?\s*c\.?\b|^(table\s+of\s+)?contents$|^index$|"
    r"^(for\s+(immediate\s+)?release|embargoed|(news|press|media)\s+release|\(mark\s+one\))|"
    r"^((annual|quarterly|current|transition)\s+report\s+pursuant)|^form\s+[\w-]*\d[\w-]*$|^exhibit\s+[\d.]+\w?$|"
    r"^((front|back|inside)\s+)?cover(\s+page)?$|^title\s+page$",  # a bookmark's name for a page
    re.I,
)
# A page's number of all ("Página 12 de 14"): the line that holds it is the page's furniture, however
# long (a court's filing stamp: "Case 3:19-cv-05711-EMC Document 74-3 Filed 04/12/21 Page 8 of 25").
_PAGE_OF_RE = re.compile(r"\b(?:page|p[áa]gina|seite|pág\.|blatt)\s*\d+\s*(?:of|de|di|von|/)\s*\d+\b", re.I)


def is_banner(text: str) -> bool:
    """A page's boilerplate, never a document's title ("UNITED STATES SECURITIES AND EXCHANGE
    COMMISSION", "Table of Contents", "FOR IMMEDIATE RELEASE", "Page 3 of 12")."""
    text = " ".join(re.sub(r"[*_#]+", " ", text).split()).strip(" .:;,-–—")
    return (bool(_BANNER_RE.search(text)) and len(text.split()) <= 10) or bool(_PAGE_OF_RE.search(text))


# An institution: a university, a college, a school, a department, an agency, a research centre
# ("UNIVERSITYOF" as some files spell it).
_INSTITUTION_RE = re.compile(
    r"\b(university|college|institute|school|academy|department|faculty|division|polytechnic|agency|ministry|"
    r"bureau|council|commission|authority|center|centre|office|directorate|committee|court|tribunal|board|"
    r"association|society|foundation)(\b|of\b)",
    re.I,
)
_COURSE_CODE = r"\b[A-Z]{2,}[\s-]*(?!(?:19|20)\d\d\b)\d{2,4}[A-Z]?\b"  # "CEE 549", "COMPSCI 466", "CS-101"
# What says what a document is: a kind of document, or a course's or a form's code ("CEE 549").
_DOCUMENT_KIND_RE = re.compile(
    rf"(?-i:{_COURSE_CODE})|\b(plan|report|syllabus|guide|manual|handbook|policy|review|course|program|programme|"
    r"strategy|statement|catalog|catalogue|brochure|prospectus|bulletin|newsletter|proceedings|agenda|minutes|notes|"
    r"outline|introduction|principles|fundamentals|seminar|lab|laboratory)s?\b",
    re.I,
)
INSTITUTION_WORDS = 12
# A company by its legal form, ending its name ("XYZ Pvt Ltd", "Northwind Traders, Inc."): who
# issued a document, as an institution is ("Limited Warranty" is no company).
_COMPANY_RE = re.compile(r"\b(inc|incorporated|corp|corporation|ltd|limited|llc|llp|plc|gmbh|pvt)\.?$", re.I)
COMPANY_WORDS = 8
_SUBJECT_RE = re.compile(r"\b(in|for|to|at|about|on|with)\s", re.I)  # a subject's words before the institution's
# Words that say only what kind of document it is ("User Manual", "Product Introduction",
# "Course Syllabus"), not what it is about.
_KIND_WORDS = frozenset(
    "plan report syllabus guide manual handbook policy review course program programme strategy statement "
    "catalog catalogue brochure prospectus bulletin newsletter proceedings agenda minutes notes outline "
    "introduction overview seminar lab laboratory instructions instruction specification specifications "
    "description documentation datasheet factsheet whitepaper paper sheet help presentation".split()
)
_KIND_MODIFIERS = frozenset(
    "user users user's owner owners owner's operating operation operator's quick start getting started reference "
    "installation product service technical online release data fact white annual quarterly monthly final draft "
    "class student students teacher information general use care safety maintenance setup "
    "the a an of for and & to".split()
)


_CODE_WORD_RE = re.compile(_COURSE_CODE)


GREETING_RE = re.compile(r"^\W*welcome\s+to\b", re.I)  # a document's opening greeting
_WELCOME_RE = re.compile(rf"{GREETING_RE.pattern}\s+(?:the\s+)?([A-Z0-9][^!.?]{{2,80}}?)\s*(?:[!.]|$)", re.I)


def welcomed(text: str) -> str | None:
    """What a document's opening greeting names ("Welcome to CS 568 2021 FALL!" → "CS 568 2021
    FALL"; "Welcome to the Contoso Field Handbook." → "Contoso Field Handbook"), when it reads as a title."""
    found = _WELCOME_RE.match(clean(text))
    name = found.group(1).strip() if found else ""
    # a code and a term are name enough here ("CS 568 2021 FALL": more digits than a title line has)
    named = 2 <= len(name.split()) <= TITLE_MAX_WORDS and sum(ch.isalpha() for ch in name) >= 3
    return name if found and name[:1].isupper() and named and not is_date_line(name) else None


def code_line(text: str) -> str | None:
    """The course's code of a line that holds only it, or it and its term ("ENG 204", "ENG 204 Fall
    2021"): what the course is filed under, not what it is called."""
    code = re.match(rf"\s*{_COURSE_CODE}", text)
    rest = text[code.end() :].strip(" ,–—-") if code else ""
    return code.group(0).strip() if code and (not rest or is_date_line(rest)) else None


def names_kind(text: str) -> bool:
    """A line that says what kind of document it is, among other words ("Integrated Annual Report 2021-22")."""
    return bool(_DOCUMENT_KIND_RE.search(text))


def names_kind_only(text: str) -> bool:
    """A title that says only what kind of document it is ("User Manual", "Syllabus"), perhaps with
    a course's or a form's code ("Syllabus for COMPSCI 466"), which the cover completes with what it
    is about."""
    words = [w.strip(".,:;()") for w in _CODE_WORD_RE.sub(" ", clean(text)).lower().split()]
    return any(w in _KIND_WORDS for w in words) and all(w in _KIND_WORDS or w in _KIND_MODIFIERS for w in words)


_CHAPTER_KINDS = frozenset({"introduction", "overview", "notes", "outline", "description"})


def names_chapter_kind(text: str) -> bool:
    """A kind word that as often opens a document's first chapter ("Overview", "Introduction"):
    alone atop a page of text, it is the chapter's title when later headings are set like it."""
    words = {w.strip(".,:;()") for w in clean(text).lower().split()}
    return bool(words & _CHAPTER_KINDS) and not words & (_KIND_WORDS - _CHAPTER_KINDS)


def names_institution(text: str) -> bool:
    """ "University of Massachusetts, Amherst", "Spring 2023 UMass Department of Geosciences",
    "XYZ Pvt Ltd": who issued a document (a syllabus, a handbook, a statement), not what it is."""
    text = text.strip(" .")
    if _COMPANY_RE.search(text) and len(text.split()) <= COMPANY_WORDS and not _DOCUMENT_KIND_RE.search(text):
        return True
    found = next((m for m in _INSTITUTION_RE.finditer(text) if _heads_name(m, text)), None)
    return (
        len(text.split()) <= INSTITUTION_WORDS
        and found is not None
        and not _DOCUMENT_KIND_RE.search(text)
        and not _SUBJECT_RE.search(text[: found.start()])  # "Teaching Mathematics in Elementary School 2"
    )


# What follows an institution's word that heads its name: nothing, what it is of or for ("de",
# "für" too), a place after a comma, another institution's word ("University College", "Court of
# Appeals", "Center for …"). Before other words it qualifies them ("Government-University Identity
# Management Opportunities", a deck's title).
_HEAD_END_RE = re.compile(r"^(?:$|[,;:()\[\]–—/|&]|-\s|(?:of|for|on|at|and|de|des|du|di|del|für)\b)", re.I)


def _heads_name(found: re.Match[str], text: str) -> bool:
    """Whether the institution's word `found` heads its name in `text` (or is run into its "of"),
    also where another line runs on after it: a code, or capitals after a word that is not. A line
    in capitals cannot tell: its word is taken to head it ("HARVARD UNIVERSITY PRESS")."""
    after = " ".join(text[found.end() :].split()).strip(" .")
    if found.group(2).lower() == "of" or _HEAD_END_RE.match(after) or _INSTITUTION_RE.match(after):
        return True
    following = after.split()[0]
    return any(c.isdigit() for c in following) or following.isupper()


# An institution's name run into a title in capitals: "… SCHOOL OF MANAGEMENT", "UNIVERSITYOF
# MASSACHUSETTS" (a name of two words is joined by "and": "DEPARTMENT OF HEALTH AND HUMAN …").
_INSTITUTION_OF_RE = re.compile(
    r"\b(?:university|college|institute|school|academy|department|faculty)\s*of\s+[A-Z][\w'-]*(?:\s+(?:and|&)\s+\S+)?",
    re.I,
)


def past_institution(text: str) -> str | None:
    """What a line set in capitals names after the institution it opens with, where a paragraph
    lost the line breaks between them ("UNIVERSITYOF MASSACHUSETTS AMHERST ISENBERG SCHOOL OF
    MANAGEMENT INDIVIDUAL INCOME TAXES" → "INDIVIDUAL INCOME TAXES"), when it names two
    institutions, the second within the first; None when nothing follows that reads as a title of
    two words or more."""
    institutions = list(_INSTITUTION_OF_RE.finditer(text))
    if not text.isupper() or len(institutions) < 2:  # a university, then its school: where one name ends is
        return None  # told only by the next ("UNIVERSITY OF CALIFORNIA SAN DIEGO" is one name)
    rest = text[institutions[-1].end() :].strip(" ,;:-–—")  # past the last: "… SCHOOL OF MANAGEMENT"
    named = len(rest.split()) >= 2 and not re.match(r"(?i)(?:and|&|of|for|in|at)\b", rest)
    return rest if named and reads_as_title(rest) and not names_institution(rest) else None


# Lines on a first page that are not its title: a release line, contacts, a byline, a citation,
# a journal's or publisher's furniture.
_BOILERPLATE_RE = re.compile(
    r"^(for (immediate )?release|embargoed|for (media|further)|media contact|contact|recommended citation|"
    r"table of contents|contents$|hosted by|by\b|prepared (by|for)|presented (by|to)|submitted (by|to)|"
    r"authors?\b|copyright|©|\(c\)|all rights reserved|page \d|draft\b|confidential\b|issue\b|date\b|version\b|"
    r"received\b|accepted\b|published\b|available online|doi\b|arxiv\b|volume\b|vol\.|abstract$|keywords?\b|"
    # a course's or a meeting's particulars: who teaches, when and where
    r"instructors?\b|lecturers?\b|professors?\b|teaching\s+assistants?\b|office\s+hours\b|e-?mail\b|phone\b|location\b|"
    r"room\b|(mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)\b|"
    # a letter's greeting and its close
    r"dear\b|to whom it may concern|(best|kind|warm)(est)?\s+regards|regards\b|sincerely|yours\b|thanks?\b)",
    re.I,
)
# A day's date in a line ("March 15, 1978", "Mar. 5", "1/27/23"): a record's, not a year's.
DAY_RE = re.compile(rf"\b{MONTH}\.?\s+\d{{1,2}}\b|\b\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}\b", re.I)
_ADDRESS_RE = re.compile(r"https?://|www\.|\S@\S|\.(com|org|net|edu|gov|co\.uk|io)\b", re.I)
# A postal address: a street, by its number ("2955 Exchange Place Blvd", "123 Main Street") or as one
# part of a comma-separated address ("…, Anchor Road, Bristol"), a suite or a box ("Suite 103", "P.O.
# Box 12"), a postal code (a state's code and ZIP after a town, "Miamisburg, OH 45342"; a British or
# Canadian postcode, "BS1 5HL", "K1A 0B6"); any two of them make an address, one alone may be a
# title's ("Route 66 Main Street Revitalization Plan").
_STREET_TYPES = (
    r"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|place|pl|way|square|sq|parkway|pkwy|highway|hwy)"
)
_STREET_RE = re.compile(
    rf"(?:^|[,;|]\s*|\s)\d{{1,6}}\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){{0,3}}\s+{_STREET_TYPES}\b"
    rf"|(?:^|,\s*)[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){{0,2}}\s+{_STREET_TYPES}\s*,"
)
_SUITE_RE = re.compile(r"\b(?i:suite|ste|p\.?\s?o\.?\s+box)\s*#?\d+")
_ZIP_RE = re.compile(
    r"[a-z.,]\s*,?\s*[A-Z]{2}\s?\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b[A-Z]\d[A-Z]\s\d[A-Z]\d\b"
)


def names_postal_address(text: str) -> bool:
    """A street's address: two of a street, a suite or a box, a postal code."""
    return sum(bool(r.search(text)) for r in (_STREET_RE, _SUITE_RE, _ZIP_RE)) >= 2


# A line that marks how the copy is to be kept, whole: "STRICTLY PRIVATE AND CONFIDENTIAL",
# "Proprietary & Confidential — Do not distribute", "Execution Version", "CONFIDENTIALITY NOTICE".
_MARKING_RE = re.compile(
    r"^(?:(?:(?:strictly|highly|company|private|proprietary|privileged)\s+(?:(?:and|&)\s+)?)*confidential(?:ity\s+notice)?"
    r"(?:\s*[-–—:,]?\s*(?:for\s+internal\s+use\s+only|do\s+not\s+(?:distribute|copy|forward)|not\s+for\s+distribution))?"
    r"|execution\s+(?:version|copy)|(?:final\s+)?draft|for\s+internal\s+use\s+only"
    # a page printed empty on purpose ("This page intentionally left blank", its first letter lost or not)
    r"|(?:\w+\s+)?page\s+(?:is\s+|has\s+been\s+)?(?:intentionally|deliberately)\s+(?:left\s+)?blank)\W*$",
    re.I,
)


def marks_copy(text: str) -> bool:
    """A line that says how the copy is to be kept ("STRICTLY CONFIDENTIAL", "Execution Version") or
    that a page is empty on purpose, not what the document is."""
    return bool(_MARKING_RE.match(clean(text).strip(" *_#")))


def is_boilerplate(text: str) -> bool:
    """A first page's furniture (a release line, a byline, a copyright, a citation, dates received
    and accepted, a course's particulars, a letter's greeting and close, a marking of the copy):
    never a title, nor what a document is about."""
    return bool(_BOILERPLATE_RE.match(text.strip(" *_#"))) or marks_copy(text)


def is_date_line(text: str) -> bool:
    """A line that is a date or a term alone ("1/27/23", "March 4, 2021", "FALL 2021")."""
    return bool(_DATE_LINE_RE.match(text.strip()))


def names_address(text: str) -> bool:
    """A web, e-mail or postal address: a website's name ("www.example.com"), a street's, not a
    document's."""
    return bool(_ADDRESS_RE.search(text)) or names_postal_address(text)


_DATE_LINE_RE = re.compile(
    rf"^[\W\d_]*({MONTH}[\s,\d–-]*)+$|^[\d\s./,:-]+$|^(q[1-4]|fy)\s*\d{{2,4}}$|"
    r"^(spring|summer|fall|autumn|winter)(\s+(term|semester|quarter|session))?\s*,?\s*\d{4}$",  # a term: "FALL 2021"
    re.I,
)
_LETTER_SPACED_RE = re.compile(r"(?<!\S)(?:[^\W\d_] ){3,}[^\W\d_](?!\S)")  # "C o u r s e"
_CLOCK_RE = re.compile(r"\b\d{1,2}:\d{2}(?!\d)")  # a time of day ("11:30am", "9:05-9:55"): a schedule's line
_BLANK_RE = re.compile(r"_{3,}")  # a blank to fill in: the line is a form's prompt or a question to answer
_FIELD_RE = re.compile(r"\b[A-Z][A-Za-z]+(?: [A-Z]?[a-z]+)?:\s")
_MARKUP_RE = re.compile(r"<sup>.*?</sup>|<sub>.*?</sub>|<[^>]+>|\*\*|__|\\(?=[_*#$&%])")
TITLE_TOP = 650  # the title sits in the top two thirds of its page (0–1000 units)
TITLE_MAX_WORDS = 20
LONG_TITLE_WORDS = 36  # a title set in type larger than its page's text may run this long (a paper's, a study's)
RUN_ON_WORDS, RUN_ON_LETTERS = 6, 12  # this many words this long on average: words run together
CJK_PER_WORD = 2  # Chinese and Japanese write no spaces: a title's characters count as this many to a word
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# A sentence's end at the line's end, two of them in it (a title may hold one: "けいおん！公式ガイドブック"),
# or many clauses listed
_SENTENCE_CJK_RE = re.compile(r"[。！？；]\s*$|[。！？；].*[。！？；]|[，、].*[，、].*[，、]")


def count_words(text: str) -> int:
    """A line's words, Chinese and Japanese characters counted CJK_PER_WORD to a word (they are
    written without spaces: a paragraph of them is one "word" to `split`)."""
    return len(text.split()) + len(_CJK_RE.findall(text)) // CJK_PER_WORD


def reads_as_title(text: str, item: Item | None = None, set_apart: bool = False) -> bool:
    """Whether a line may be a document's title by its words (`item`: its place on the page too);
    `set_apart`: the page sets it apart as one (larger than its text, or the parser's top-level
    heading), so it may run long and end in a full stop ("… of Phoenix paludosa Roxb.")."""
    cjk = len(_CJK_RE.findall(text))
    words = text.split()
    n_words = count_words(text)
    letters = sum(ch.isalpha() for ch in text)
    return (
        (item is None or item["bbox"][1] < TITLE_TOP)
        and 1 <= n_words <= (LONG_TITLE_WORDS if set_apart else TITLE_MAX_WORDS)
        and not (cjk == 0 and _run_together(words))  # a paragraph whose spaces were lost reads as few words
        and not (cjk and _SENTENCE_CJK_RE.search(text))
        and letters >= 3
        and letters >= 0.5 * len(text.replace(" ", ""))
        and not _BOILERPLATE_RE.match(text)
        and not marks_copy(text)
        and not is_banner(text)
        and not names_address(text)
        and not _DATE_LINE_RE.match(text)
        and not is_junk(text, "text")
        and not (text.endswith(".") and len(words) > 6 and not set_apart)  # a sentence
        and (text[:1].isalnum() or text[:1] in "\"'“(")  # not a bullet, not a run-on ": Monday …"
        and not text[:1].islower()
        and numbering_depth(text) is None  # "2. Textbook", "1 Introduction": an item or a chapter
        and len(_FIELD_RE.findall(text)) < 2  # "Term: … Office Hours: …": a form's fields
        and not _BLANK_RE.search(text)  # "Which light marks the northern breakwater? ______"
        and not is_contact(text)
        and not (
            _ROLE_LINE_RE.match(text) and len(words) <= ROLE_WORDS and not _DOCUMENT_KIND_RE.search(text)
        )  # "Governor"
        and not _NAMES_AND_ROLES_RE.match(text)
    )


def _run_together(words: list[str]) -> bool:
    """Words whose spaces OCR lost ("Portezcevieuxwhiskyaujuge blondquifumesursonile …"): a line
    of several words averaging more letters than words have."""
    return len(words) >= RUN_ON_WORDS and sum(len(w) for w in words) / len(words) > RUN_ON_LETTERS


def clean(text: str) -> str:
    """A line's words without markup, words set in spaced letters closed up ("C o u r s e I n f o"
    → "Course Info": a capital after a small letter starts a word)."""
    text = re.sub(r"(?<=\w)&(?=\s|$)", " &", " ".join(_MARKUP_RE.sub("", text).split()))  # "STUDIES& …"
    return _LETTER_SPACED_RE.sub(lambda m: re.sub(r"(?<=[a-z])(?=[A-Z])", " ", m.group(0).replace(" ", "")), text)


def is_schedule(text: str) -> bool:
    """A schedule's line ("Tuesdays and Thursdays 11:30-12:45"): when, not what."""
    return bool(_CLOCK_RE.search(text))


# Who signs or answers for a document: a role, alone on its line or after a name.
_ROLES = (
    r"governor|mayor|director|president|secretary|commissioner|chair(?:man|woman|person)?|dean|provost|"
    r"chancellor|editor|professor|ceo|cfo|coo|chief\s+\w+\s+officer|manager|senator|minister|superintendent|"
    r"treasurer|attorney\s+general|comptroller|spokes(?:man|woman|person)|analyst|coordinator|officer|researcher"
)
_RANK = r"(?:(?:deputy|assistant|associate|acting|interim|senior|executive|vice|lieutenant|lt\.?)[\s-]+)*"
ROLE_WORDS = 3  # a line this short that opens with a role names one
_ROLE_LINE_RE = re.compile(rf"^\W*(?i:{_RANK}(?:{_ROLES}))\b", re.I)
_NAME = r"(?:[A-Z][\w'’.-]*|[A-Z]\.)"
_PARTICLE = r"(?:de|da|di|del|della|van|von|der|den|le|la|du|bin|al)"  # "Bill de Blasio", "Ludwig van Beethoven"
_PERSON = rf"{_NAME}(?:\s+(?:{_PARTICLE}\s+)?{_NAME}){{1,3}}"  # a person's name: two to four words
_PERSON_NAME_RE = re.compile(rf"^{_PERSON}$")
_NAME_AND_ROLE_RE = re.compile(rf"^{_NAME}(?:\s+{_NAME}){{1,3}}\s*(?:,|\s[–—-])\s*(?i:{_RANK}(?:{_ROLES}))\b")
# People each with their role, a cover's row of officials ("Bill de Blasio Mayor James P. O'Neill Police
# Commissioner"): two or more, as one with a role alone may be a title ("The One Minute Manager").
_NAMES_AND_ROLES_RE = re.compile(rf"^(?:{_PERSON},?\s+(?:[A-Z][a-z]+\s+)?(?i:{_RANK}(?:{_ROLES}))\b\.?\s*){{2,}}$")
_ROLE_AND_NAME_RE = re.compile(rf"^(?i:{_RANK}(?:{_ROLES})|dr|prof|hon)\.?\s+{_NAME}(?:\s+{_NAME}){{1,3}}$")
_CONTACT_RE = re.compile(
    r"\b(contacts?|inquiries|enquiries|media\s+relations|press\s+office)\b|\btel\.?\s*[:+(\d]|\bphone\b|"
    r"\(?\b\d{3}\)?[\s.-]\d{3}[.-]\d{4}\b|\+\d[\d\s().-]{7,}",
    re.I,
)


def is_contact(text: str) -> bool:
    """A contact line: "Media inquiries: …", a telephone number, "Jane Roe, Director, Research"."""
    return bool(_CONTACT_RE.search(text) or _NAME_AND_ROLE_RE.match(text))


# The marks a byline sets after a name for its affiliation or its footnote ("Jane Roe²", "Ann Lee*").
MARKS_RE = re.compile(r"[\d*†‡§¶∗^¹²³⁴⁵⁶⁷⁸⁹]+")
_MARKED_RE = re.compile(rf"[^\W\d_]{MARKS_RE.pattern}")


def names_people(text: str) -> bool:
    """A byline: people's names and nothing else, two or more of them or one with an affiliation's
    mark ("Liangming Pan¹, Xiaobao Wu² and Min-Yen Kan", "Jane Roe*"); two capitalised words
    alone ("Getting Started") say nothing of who wrote them."""
    marked = bool(_MARKED_RE.search(text))
    if _DOCUMENT_KIND_RE.search(text):
        return False  # "WARN Report*": a report's name with its footnote's mark
    bare = re.sub(rf"{MARKS_RE.pattern}|\(\s*\)", " ", clean(text))  # marks; a mail icon read as "()"
    parts = [" ".join(p.split()) for p in re.split(r",|;|\band\b|&", bare)]
    parts = [p for p in parts if p]
    return (len(parts) >= 2 or marked) and all(_BYLINE_NAME_RE.fullmatch(p) for p in parts)


def is_sure_byline(text: str) -> bool:
    """A byline beyond doubt: names with their affiliations' marks ("Jane Roe², Ann Lee*"), or three
    names or more; two capitalised phrases joined by "and" ("Machine Learning and Data Science") are
    as often a topic."""
    return names_people(text) and bool(_MARKED_RE.search(text) or text.count(",") >= 2)


_BYLINE_NAME_RE = re.compile(
    r"(?:[A-Z][\w'’.-]*|[A-Z]\.)(?:\s+(?:[A-Z][\w'’.-]*|[A-Z]\.|van|von|de|der|da|di|le|la)){1,4}"
)


def is_byline_name(text: str) -> bool:
    """A person's name as a byline prints it: two to five capitalised words or initials ("G. A.
    LEBOUR", "Jane van Roe"); an institution's name is set so too, so callers tell those apart."""
    return bool(_BYLINE_NAME_RE.fullmatch(text))


def is_person(text: str, beside: list[str]) -> bool:
    """A person's name, not a document's: "Jane Roe, Director", "Governor Jane Roe", or a name
    alone with a role on the line `beside` it (a cover's "Jane Roe" over "Governor")."""
    text = clean(text)
    if _DOCUMENT_KIND_RE.search(text) or _INSTITUTION_RE.search(text):
        return False
    if _NAME_AND_ROLE_RE.match(text) or _ROLE_AND_NAME_RE.match(text):
        return True
    if not _PERSON_NAME_RE.match(text):
        return False
    return any(_ROLE_LINE_RE.match(clean(line)) and len(line.split()) <= 6 for line in beside)


def first_page_index(items: list[Item]) -> int | None:
    """The 0-based page the parser's items start on (a file's first pages may hold nothing)."""
    return min((i["page_idx"] for i in items if isinstance(i.get("page_idx"), int)), default=None)


def first_page_lines(blocks: list[Block], items: list[Item] | None, after: int = 0) -> list[str]:
    """The first page's lines in reading order (the parser's items where it gave them, which keep
    the lines the blocks drop; a scanned page's, the words its picture carries), or a file's
    opening lines; `after`: the lines of the page this many pages on (none in a file without pages)."""
    if items:
        first = (first_page_index(items) or 0) + after
        page = [i for i in items if i.get("page_idx", 0) == first]
        texts = [i.get("text") or "" for i in page]
        if not any(t.strip() for t in texts):
            texts = [i.get("text_layer") or i.get("content") or "" for i in page if i.get("type") == "image"]
    else:
        texts = [] if after else [b.text for b in blocks[:12]]
    return [clean(line) for text in texts for line in text.splitlines() if line.strip()]
