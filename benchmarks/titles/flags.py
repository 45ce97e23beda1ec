"""What a reader would not accept as a document's title: the scorer's own checks, written apart
from the server's code (`indexer.titles.first_page`) so that a change there cannot pass by changing them.

Each check takes the title as the map shows it and what the document prints: its first page's
lines (`Printed.first_lines`) and its opening text (`Printed.text`, the first pages' paragraphs).

* **file name**: the title is the file's name while the first page prints a line that could be a
  title (a short line of words, not a banner, not a sentence);
* **contact**: a contact line ("Jane Roe, Director, Media Relations", "Media inquiries: …", a
  telephone number or an e-mail address);
* **person**: a person's name, told by a role printed beside it ("Governor", "Director", …) or a
  title of address before it ("Dr.", "Governor");
* **banner**: a page's boilerplate (the SEC header, "Table of Contents", "FOR IMMEDIATE RELEASE");
* **leftover**: a tool's or a file system's leftover (an underscore, a file extension, a long
  number, words run together that the document prints apart or nowhere, a code in brackets, a
  run of letters whose spaces the text layer lost);
* **hyphen**: a word broken at a line's end and kept broken ("AB-STRACTION" where the text says
  "abstraction");
* **capitals**: set in capitals throughout (three words or more, one of them longer than an
  acronym, two when the title is longer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BANNER = re.compile(
    r"^\W*(united states\s+)?securities and exchange commission|^\W*table of contents\W*$|^\W*contents\W*$|"
    r"^\W*for (immediate )?release\b|^\W*form\s+10-?[kq]\W*$|^\W*annual report pursuant|^\W*quarterly report pursuant|"
    r"^\W*(news|press) release\W*$|^\W*exhibit\s+\d+(\.\d+)?\W*$",
    re.I,
)
ROLES = (
    r"governor|lieutenant governor|mayor|director|executive director|president|vice president|secretary|"
    r"commissioner|chair(?:man|woman|person)?|dean|provost|chancellor|editor|professor|ceo|cfo|"
    r"chief [a-z]+ officer|manager|senator|minister|superintendent|principal investigator"
)
_ROLE_RE = re.compile(rf"^\W*(?:{ROLES})\b", re.I)
_ADDRESS_RE = re.compile(r"^(dr|prof|professor|governor|gov|mayor|senator|sen|hon|mr|mrs|ms|sir|dame)\.?\s+[A-Z]", re.I)
_NAME_RE = re.compile(r"^(?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)(?:\s+(?:[A-Z][a-zA-Z'’-]+|[A-Z]\.)){1,3}$")
_CONTACT_RE = re.compile(
    r"\b(contacts?|inquiries|enquiries|media relations|press office|spokes(?:man|woman|person))\b|"
    r"\S@\S|\btel\.?\s*[:+(\d]|\bphone\b|\(?\b\d{3}\)?[\s.-]\d{3}[.-]\d{4}\b|"
    rf"^[A-Z][\w.'’-]+(?:\s+[A-Z][\w.'’-]+){{1,3}},\s+(?:{ROLES})\b",
    re.I,
)
_LEFTOVER_RE = re.compile(
    r"_|\.(pdf|docx?|pptx?|xlsx?|indd|qxd|rtf|txt)\b|\b\d{6,}\b|^microsoft\s+\w+\s+-|[(（]\s*\d+\s*[,，]\s*[a-z]{2}\s*[)）]|"
    r"\b(?:[A-Z]{22,}|[a-z]{22,})\b",  # words whose spaces the text layer lost
    re.I,
)
_JOINED_RE = re.compile(r"\b\w*[a-z]{2}[A-Z][a-z]{2}\w*\b")  # "NewApproachComprehensive"
_HYPHEN_RE = re.compile(r"\b([A-Za-z]{2,})-\s?([A-Za-z]{2,})\b")
_ACRONYM_LETTERS = 4  # a capitalised word this short may be an acronym ("NASA", "UK")
_TITLE_WORDS = 20
CONTENTS_ENTRIES = 5


@dataclass
class Printed:
    """What a document prints: its first page's lines and its opening text."""

    first_lines: list[str] = field(default_factory=list)
    text: str = ""


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def prints_a_title(printed: Printed) -> bool:
    """The first page has a line a person could call the document by: 2–20 words, mostly
    letters, not a banner, a sentence, a contact line or a date; a contents page (lines led by
    their page numbers) prints none."""
    if sum(bool(re.match(r"\d{1,3}\s+[A-Z]", line)) for line in printed.first_lines) >= CONTENTS_ENTRIES:
        return False
    for line in printed.first_lines:
        words = line.split()
        letters = sum(ch.isalpha() for ch in line)
        if (
            2 <= len(words) <= _TITLE_WORDS
            and letters >= 0.6 * len(line.replace(" ", ""))
            and not BANNER.search(line)
            and not line.rstrip().endswith((".", ",", ";", ":"))
            and (line[:1].isalnum() or line[:1] in "\"'“")  # not markup, a bullet or a symbol
            and not _CONTACT_RE.search(line)
        ):
            return True
    return False


def is_contact(title: str) -> bool:
    return bool(_CONTACT_RE.search(title))


def is_person(title: str, printed: Printed) -> bool:
    """A person's name: a title of address before it, or a role printed right beside it."""
    name = title.split(",")[0].strip()
    if _ADDRESS_RE.match(name) and len(name.split()) <= 4:
        return True
    if not _NAME_RE.match(name):
        return False
    if _CONTACT_RE.search(title) and "," in title:
        return True
    lines = printed.first_lines
    for at, line in enumerate(lines):
        if _words(name) and _words(line).startswith(_words(name)):
            rest = line[len(name) :] if line.lower().startswith(name.lower()) else ""
            beside = [rest.strip(" ,–—-"), *(lines[k] for k in (at - 1, at + 1) if 0 <= k < len(lines))]
            if any(_ROLE_RE.match(b) for b in beside if b):
                return True
    return False


def is_banner(title: str) -> bool:
    return bool(BANNER.search(title))


def is_leftover(title: str, printed: Printed) -> bool:
    """A tool's leftover: an underscore, an extension, an id, a bracketed code, or words run
    together that the document does not print so."""
    text = printed.text
    underscored = re.findall(r"\S*_\S*", title)  # a code's name the text prints too is no leftover
    if _LEFTOVER_RE.search(title) and not (underscored and all(u in text for u in underscored)):
        return True
    return any(joined not in text for joined in _JOINED_RE.findall(title))


def has_hyphen_break(title: str, printed: Printed) -> bool:
    """A word broken by a line's end ("AB-STRACTION") that the text prints whole."""
    text = printed.text.lower()
    for found in _HYPHEN_RE.finditer(title):
        whole = (found.group(1) + found.group(2)).lower()
        hyphenated = rf"\b{found.group(1).lower()}\s?-\s?{found.group(2).lower()}\b"
        if re.search(rf"\b{whole}\b", text) and not re.search(hyphenated, text):
            return True
    return False


def in_capitals(title: str) -> bool:
    """Three words or more in capitals (acronyms of up to four letters aside) and nothing in
    lower case but small words."""
    words = re.findall(r"[^\W\d_]+", title.split(" — ")[0])
    long_caps = [w for w in words if w.isupper() and len(w) > _ACRONYM_LETTERS]
    lower = [w for w in words if not w.isupper() and len(w) > 3]
    return len(words) >= 3 and bool(long_caps) and len(long_caps) >= min(2, len(words) - 2) and not lower


FLAGS = ("file name", "contact", "person", "banner", "leftover", "hyphen", "capitals")


def flags(title: str, named_by_file: bool, printed: Printed) -> list[str]:
    """What a reader would not accept in `title` (as the map shows it), by the checks above."""
    found = []
    if named_by_file and prints_a_title(printed):
        return ["file name"]
    if named_by_file:
        return []
    for name, bad in (
        ("contact", is_contact(title)),
        ("person", is_person(title, printed)),
        ("banner", is_banner(title)),
        ("leftover", is_leftover(title, printed)),
        ("hyphen", has_hyphen_break(title, printed)),
        ("capitals", in_capitals(title)),
    ):
        if bad:
            found.append(name)
    return found
