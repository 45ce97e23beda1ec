"""What a filing's cover page says it is, and what a document states about its own period.

A filing's cover page says exactly what it is, in a form every SEC filing shares: `FORM 10-K`,
the registrant's name (above "(Exact name of registrant as specified in its charter)", or, on
covers without that caption, the line that ends in a legal form: `Inc.`, `Corporation`, `plc`),
and the period it covers ("For the quarterly period ended March 31, 2021"). That convention is
the genre's, like `PART II` › `Item 7A.` numbering, not any one company's. Covers are often
tables: their cells are read as lines.

`stated_detail` reads what any document says of its own period, date or version on its first
pages ("for the fiscal year ended …", "FOR RELEASE MARCH 4, 2021", "Version 1.1"): it is what
tells apart documents whose titles read alike (`indexer.titles.shown`).
"""

from __future__ import annotations

import re

from indexer.models import Block
from indexer.parse.dates import MONTH
from indexer.titles.stated import COVER_PAGES

_FORM_RE = re.compile(r"\bFORM\s+(10-KT?|10-QT?|8-K|20-F|40-F|6-K|11-K|S-1|S-4|F-1|DEF\s*14A)\b", re.I)
# "(Exact name of registrant as specified in its charter)"; a small business's cover says "issuer".
_REGISTRANT_RE = re.compile(r"\(\s*exact\s+name\s+of\s+(the\s+)?(small\s+business\s+)?(registrant|issuer)", re.I)
# A cover's own statement of its form ("ANNUAL REPORT ON FORM 10-K FOR THE YEAR ENDED …"), not a
# sentence that cites one ("… in our Quarterly Report on Form 10-Q").
_REPORT_ON_RE = re.compile(r"^\W*(annual|quarterly|current|transition)\s+report\s+on\s*$", re.I)
_DATE = r"([A-Z][a-z]+\.?\s+\d{1,2}\s*,?\s*\d{4})"
_PERIOD_RE = re.compile(
    r"(?:for\s+)?the\s+(fiscal\s+year|quarterly\s+period|transition\s+period|year|(?:three|six|nine|twelve)\s+months)"
    rf"\s+ended\s*:?\s*{_DATE}",
    re.I,
)
_REPORT_DATE_RE = re.compile(rf"date\s+of\s+report[^:]*:\s*{_DATE}", re.I)
_RULE_RE = re.compile(r"^[\s_\-–—=*]*$")
_TAG_RE = re.compile(r"<[^>]+>")

# Lines of a cover page near the registrant's name that are not it: the state of incorporation,
# the employer identification number, the commission file number, their captions, the
# report's checkboxes and the words left of "For the transition period from ___ to ___".
_NOT_REGISTRANT_RE = re.compile(
    r"commission\s+file|transition\s+period|pursuant\s+to|^for\s+the\b|jurisdiction|incorporation|i\.?\s*r\.?\s*s\.?|employer|identification|"
    r"securities|exchange\s+act|^\(|^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|[☐☒✓✔□■]|^(form|to|from|or|and|of|the|n/?a|none)\b\W*$|"
    r"^[\W\d_-]+$|^(delaware|nevada|maryland|new york|ohio|pennsylvania|california|texas|virginia|oregon|"
    r"new jersey|north carolina|washington|minnesota|michigan|massachusetts|illinois|indiana|georgia|"
    r"florida|ireland|bermuda|cayman islands|jersey|england and wales|netherlands)\b\W*$",
    re.I,
)
# A company's legal form, ending its name: "NIKE, Inc.", "Microsoft Corporation", "Amcor plc".
_LEGAL_FORM_RE = re.compile(
    r"\b(inc|incorporated|corp|corporation|company|co|plc|ltd|limited|llc|l\.?p|n\.?v|s\.?a|ag|se|holdings|"
    r"group|bancorp|trust)\.?$",
    re.I,
)


def _names_registrant(line: str) -> bool:
    return (
        bool(line)
        and len(line) <= 120
        and not _RULE_RE.match(line)
        and not _NOT_REGISTRANT_RE.search(line)
        and not _FORM_RE.search(line)
    )


COVER_BLOCKS = 80  # a document without pages (a filing saved as HTML) has its cover in its first blocks


def cover_lines(blocks: list[Block], pages: int = COVER_PAGES) -> list[str]:
    """The lines of the first `pages` pages (of a document without pages, its first blocks), a
    table's cells each a line."""
    if any(b.page is not None for b in blocks):
        first = [b for b in blocks if b.page is not None and b.page <= pages]
    else:
        first = blocks[: COVER_BLOCKS * pages // COVER_PAGES]
    lines: list[str] = []
    for b in first:
        text = _TAG_RE.sub("\n", b.text) if b.kind == "table" else b.text
        lines.extend(" ".join(line.split()) for line in text.splitlines())
    lines = [line for line in lines if line]
    for i in range(len(lines) - 1):  # "FORM" and "10-K" in cells of their own
        if lines[i].strip(" *_").upper() == "FORM":
            lines[i : i + 2] = [f"{lines[i]} {lines[i + 1]}", ""]
    return [line for line in lines if line]


def _form(lines: list[str]) -> tuple[int, re.Match[str]] | None:
    """The form a cover names and the line it is on, as a cover names it: a line that opens with it,
    a short line ("Washington, D.C. 20549 FORM 10-K") or one that opens by saying what report it is
    ("ANNUAL REPORT ON FORM 10-K FOR THE YEAR ENDED …"); a release whose footnote mentions "our
    Quarterly Report on Form 10-Q" is no filing."""
    for at, line in enumerate(lines):
        found = _FORM_RE.search(line)
        if not found:
            continue
        before = line[: found.start()]
        if not before.strip(" *_#") or len(line.split()) <= 8 or _REPORT_ON_RE.match(before):
            return at, found
    return None


def is_filing(blocks: list[Block]) -> bool:
    """A cover page naming a form (`FORM 10-K`): its largest type is the commission's name, not a title."""
    return _form(cover_lines(blocks)) is not None


# Where a filing names itself when its cover's name is a logo: the statements' running header
# ("THE COCA-COLA COMPANY AND SUBSIDIARIES") and the report's definitions ("In this report, the
# terms "The Coca-Cola Company," "Company," … mean …"; "Acme Corp. (the "Company")").
_SUBSIDIARIES_RE = re.compile(r"^\W*(.{3,80}?),?\s+and\s+(?:its\s+)?(?:consolidated\s+)?subsidiaries\b", re.I)
_DEFINED_RE = re.compile(
    r"\bthe\s+terms?\s+[\"“]([^\"“”]{3,80}?),?[\"”]|"
    r"(?:^|(?<=[.;:])\s+)(?-i:([A-Z][\w.,&'’-]*(?:\s+[A-Z&][\w.,&'’-]*){0,6}))"  # a sentence opens with the name
    r"\s+\((?:together\s+with\s+its\s+subsidiaries,\s+)?(?:the\s+)?[\"“](?:company|corporation|registrant)[\"”]|"
    # … "NIKE" and the "Company" refer to NIKE, Inc. and its …
    r"[\"“](?:the\s+)?company[\"”]\s+(?:refers?\s+to|means?)\s+"
    r"(?-i:([A-Z][\w.,&'’-]*(?:\s+[A-Z&][\w.,&'’-]*){0,6}?))(?=\s+and\s+(?:its|all)\b|[;,]?\s+(?:unless|collectively)\b)",
    re.I,
)
NAMING_PAGES = 8  # the definitions come with Item 1, a few pages in


def _named_elsewhere(blocks: list[Block]) -> str | None:
    for block in blocks:
        if block.page is not None and block.page > NAMING_PAGES:
            break
        line = " ".join(block.text.replace("*", " ").split())
        header = _SUBSIDIARIES_RE.match(line)
        names = (
            [header.group(1)]
            if header and (header.group(1).isupper() or _LEGAL_FORM_RE.search(header.group(1)))
            else []
        )
        names += [
            g for found in _DEFINED_RE.finditer(line) for g in found.groups() if g
        ]  # not "Sales of … and subsidiaries"
        for name in (n.strip(" ,") for n in names):
            if _names_registrant(name) and _reads_as_name(name):
                return name
    return None


def _reads_as_name(name: str) -> bool:
    """A company's name: a few capitalised words ("The Coca-Cola Company", "Fabrikam, Inc."), not
    a pronoun or a clause the pattern ran into."""
    words = name.split()
    return (
        0 < len(words) <= 8
        and name.lower() not in ("we", "our", "us", "the company", "company")
        and all(w[:1].isupper() or w[:1].isdigit() or w.lower() in ("of", "and", "the", "&", "de") for w in words)
    )


def _registrant(lines: list[str], form_at: int) -> str | None:
    """The name above "(Exact name of registrant …)", or else the first line after the form's
    that ends in a legal form."""
    for i, line in enumerate(lines):
        match = _REGISTRANT_RE.search(line)
        if not match:
            continue
        before = line[: match.start()].strip(" ,;:")
        if before and _names_registrant(before):
            return before
        previous = [p for p in lines[max(0, i - 4) : i] if _names_registrant(p)]
        if previous:
            return previous[-1]
        break
    for line in lines[form_at:]:
        name = line.strip(" ,;:")
        if _LEGAL_FORM_RE.search(name) and len(name.split()) <= 8 and _names_registrant(name):
            return name
    return None


def period(text: str) -> str | None:
    """ "quarter ended March 31, 2021" from the first statement of a period a text makes."""
    found = _PERIOD_RE.search(text)
    if found is None:
        return None
    kind = " ".join(found.group(1).lower().split())
    kind = "quarter" if "quarter" in kind else kind
    month, rest = found.group(2).split(maxsplit=1)
    return f"{kind} ended {month.capitalize()} {' '.join(rest.split())}".replace(" ,", ",")  # "MAY 29" → "May 29"


def registrant(blocks: list[Block]) -> str | None:
    """Who files a filing: the registrant its cover names (or its report's definitions); None for a
    document that is no filing."""
    lines = cover_lines(blocks)
    if (found := _form(lines)) is None:
        return None
    return _registrant(lines, found[0]) or _named_elsewhere(blocks)


def cover_title(blocks: list[Block]) -> str | None:
    """`REGISTRANT — Form 10-K, fiscal year ended …` from a filing's cover page, or None."""
    lines = cover_lines(blocks)
    text = "\n".join(lines)
    if (found := _form(lines)) is None:
        return None
    form_at, form = found
    issuer = _registrant(lines, form_at) or _named_elsewhere(blocks)
    if not issuer:
        return None
    title = f"{issuer} — Form {' '.join(form.group(1).upper().split())}"
    if covered := period(text):
        return f"{title}, {covered}"
    if report := _REPORT_DATE_RE.search(text):
        return f"{title}, {' '.join(report.group(1).split())}"
    return title


_STATED_DATE_RE = re.compile(
    rf"^\W*(?:(?:for\s+(?:immediate\s+)?release|released?|published|issued|dated?|updated|as\s+of|effective)\b:?\s*)?"
    rf"((?:\w+day,?\s+)?{MONTH}\s+\d{{1,2}}\s*,?\s*\d{{4}}|\d{{1,2}}\s+{MONTH}\s+\d{{4}}|{MONTH}\s+\d{{4}})\W*$",
    re.I,
)
# A release's dateline: "PURCHASE, N.Y. - April 25, 2023 - PepsiCo today reported …".
_DATELINE_RE = re.compile(
    rf"^\W*[A-Z][\w .,'’]{{2,60}}?[,\s][-–—]?\s*({MONTH}\s+\d{{1,2}}\s*,?\s*\d{{4}})\W*\s*(?:/[^/]{{2,30}}/\s*)?[-–—]",
    re.I,
)  # "/PRNewswire/ --"
_VERSION_RE = re.compile(
    r"\b(?:version|ver\.|rev\.|revision|release|edition)\s*:?\s*([\w.-]*\d[\w.-]*)|\bv(\d+(?:\.\d+)+)\b", re.I
)
DETAIL_LINES = 80  # the opening lines read for a document's statement of its date or version


def stated_detail(blocks: list[Block]) -> str | None:
    """The period, date or version a document states on its first pages: a filing's period
    ("quarter ended March 31, 2021"), a release's date line ("March 4, 2021"), a manual's
    version ("version 1.1"); None when it states none."""
    lines = cover_lines(blocks) or [
        " ".join(line.split()) for b in blocks[:DETAIL_LINES] for line in b.text.splitlines() if line.strip()
    ]
    lines = lines[: DETAIL_LINES * 4]
    if covered := period("\n".join(lines)):
        return covered
    for line in lines:
        found = _STATED_DATE_RE.match(line) if len(line) <= 60 else None
        if found := found or _DATELINE_RE.match(line.replace("*", "")):
            return " ".join(found.group(1).split()).replace(" ,", ",")
    for line in lines:
        if len(line) <= 80 and (found := _VERSION_RE.search(line)):
            return f"version {found.group(1) or found.group(2)}"
    return None


# An exhibit as EDGAR files it and a browser prints it: its type, its sequence number, its file's
# name, then its description ("EX-10.17 3 ea190737ex10-17_bluejay.htm AMENDMENT TO ENGAGEMENT
# LETTER, …"): every exhibit carries this header, and the description is the exhibit's title.
_EXHIBIT_HEADER_RE = re.compile(r"^EX-\d+[\w.()]*\s+\d+\s+\S+\.(?:htm|html|txt)\s+(\S.{5,})$", re.I)


def exhibit_description(line: str) -> str | None:
    """An EDGAR exhibit's description, from the header a printed exhibit opens with."""
    found = _EXHIBIT_HEADER_RE.match(line.strip())
    return found.group(1).strip() if found else None
