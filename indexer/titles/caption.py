"""A court paper's caption, read from its first page as any court paper sets it: who the case is
between ("Calvary Chapel of Bangor v. Mills", or "In re Liebowitz" for a matter of one party), the
court, and what the paper is ("Order", "Docketing Notice", "Entry of Appearance").

A caption sets each party's name apart: in capitals, or ending in the comma its role follows
("JANE ROE, Plaintiff,"), or right beside the "v." with only rules, brackets and case numbers
between. The same "v." inside a sentence or a citation ("See United States v. Detroit Timber &
Lumber Co., 200 U. S. 321") names another case, and a clerk's letter names its case on its "Re:"
line ("Re: Case No. 17-3994, Island Creek Coal Company v. Linda Hill, et al"). What the paper is
comes from the heading that says it (a line in capitals, or a short line of its own), else from the
words its first page uses for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.titles.lines import DAY_RE, names_institution

COURT_RE = re.compile(
    r"\b(supreme|district|circuit|superior|appellate|bankruptcy|family|county|high)\s+court\b|\bcourt\s+of\s+appeals?\b|"
    r"\bcourt of the united states\b|\btribunal\b",
    re.I,
)
# A case's number: "Case No. 8:16-cv-1261", "Docket #: 17-3510", "No. 11–889", "No. ED108783", "No. MDL 15-02641"
# (a full stop in it only before a digit: "No. 11-889.Argued April 23" is "No. 11-889").
_NUMBER_CHAR = r"(?:[\w:–/-]|\.(?=\d))"
_CASE = (
    r"\b(?:case|docket|civil action|cause|index|appeal)\s*(?:no|number|#)\.?\s*[:#]?\s*"
    rf"(?:[A-Z]{{1,4}}\s)?{_NUMBER_CHAR}*\d{_NUMBER_CHAR}*"
)
CASE_RE = re.compile(rf"{_CASE}|\bno\.\s*(?:[A-Z]{{1,4}}\s?)?\d{_NUMBER_CHAR}*", re.I)
# … and one a court's docket gives, not any "No. 5" (an issue's, a grant's, a resolution's): labelled
# as a case's, or numbered with its year or its court's letters ("No. 21-800", "No. 3:05-cv-00595").
_DOCKET_RE = re.compile(rf"{_CASE}|\bno\.\s*(?:[A-Z]{{1,4}}\s?)?\d{{1,2}}[-–:]\d", re.I)
ROLE_RE = re.compile(
    r"\b(plaintiffs?|defendants?|petitioners?|respondents?|appellants?|appellees?|intervenors?|"
    r"counter-?(?:plaintiffs?|defendants?)|cross-?(?:appellants?|appellees?)|debtors?|creditors?|movants?)\b"
    r"(?:\(s\))?",  # "Debtor(s)"
    re.I,
)
# "v." between the parties, or "- against -" on a line of its own (as New York's courts set it).
VERSUS_RE = re.compile(r"(?:^|\s)(?:v\.|vs\.?|versus)(?:\s|$)|^\W*against\W*$", re.I)
_IN_RE_RE = re.compile(r"^(?:\W*no\.\s*\S+\s+)?\W*(in\s+re\b|in\s+the\s+matter\s+of\b|ex\s+parte\b)\s*:?\s*(.*)$", re.I)
# The kinds of paper a court's heading names, with the word the fallback looks for in the page's text.
_PAPER_KINDS = (
    ("opinion", r"\bopinion\b"),
    ("order", r"\border\b"),
    ("complaint", r"\bcomplaint\b"),
    ("brief", r"\bbrief\b"),
    ("motion", r"\bmotion\b"),
    ("judgment", r"\bjudg(e)?ment\b"),
    ("oral argument transcript", r"\boral argument\b"),
    ("transcript", r"\btranscript\b|\bproceedings\b"),
    ("petition", r"\bpetition\b"),
)
_HEADING_KIND_RE = re.compile(
    r"\b(opinion|order|complaint|brief|motion|notice|petition|judg(?:e)?ment|transcript|appearance|memorandum|"
    r"stipulation|declaration|affidavit|answer|reply|response|opposition|minutes|report|subpoena|summons|verdict|mandate|syllabus)\b",
    re.I,
)
HEADING_WORDS = 16  # a heading that names the paper is a line of at most this many words (unless it opens so)
CAPITALS_SHARE = 0.8  # a heading set in capitals, a party's "dba" or "ex rel." aside
HEADING_KIND_WORDS = 10  # a heading in capitals that names the paper later in it is shown whole up to this many
KIND_WORDS = 6  # … shown whole up to this many ("Suggestion of Remand and Transfer Order"), else by its kind word
FIRST_LINES = 40  # the caption and the paper's heading are among the first page's first lines
CAPTION_LINES = 16  # a party's name is within this many lines of the "v." (margins, rules and roles between)
CASE_LABEL_WORDS = 2  # a case number's label ("State File No.", "Docket No.") is at most this many words
PARTY_WORDS = 8  # a party's name, its roles aside, is at most this many words
# A citation's reporter after the second party ("…, 200 U. S. 321", "…, 2023 WL 128600") and the
# signal before the first ("See", "Cf."): another case the paper cites, not its own.
_REPORTER_RE = re.compile(r",\s*\d+\s+[A-Z][\w.]*(?:\s+[\w.]+){0,3}\s+\d+")
_SIGNAL_RE = re.compile(r"^\W*(?:see(?:\s+also)?|cf\.?|accord|compare|but\s+see|e\.g\.,?)\s", re.I)
_LABEL_RE = re.compile(r"^\W*(?:re|short title|caption|case name|case title|in the matter of)\s*:\s*", re.I)
_ET_AL_RE = re.compile(r",?\s*\bet\.?\s*al\b\.?,?", re.I)
_RULE_RE = re.compile(r"^(?:[\W_]+|\d+(?!\w)|x(?=\s))+")  # a caption's rule "- - - - x", a bracket, a margin's number
_NOT_NAME_RE = re.compile(
    r"\b(filed|clerk|judge|honou?rable|hon\.|www\.|https?:|jury)\b|@|^(?:for|in)\s+the\b", re.I
)  # a stamp, the clerk, the judge, a website, a jury's demand
_LEGAL_FORM = re.compile(r"\b(inc|corp|corporation|co|company|llc|llp|ltd|plc|n\.a|l\.p)\b\.?", re.I)
# Words that make a name an organisation's or a state's, not a person's ("TARRANT REGIONAL WATER DISTRICT").
_ORGANISATION_RE = re.compile(
    r"\b(state|states|county|city|town|village|district|department|board|bank|people|commonwealth|republic|"
    r"company|association|church|chapel|group|union|authority|commission|council|agency|school|university|"
    r"hospital|trust|fund|litigation|products|services|estate|partners|holdings|insurance|society|club|league|"
    r"federation|alliance|network|systems|industries|enterprises|international|national|service|postal|railway|"
    r"railroad|airlines|airways|motors|computer|communications|technologies|pharmaceuticals|"
    r"of|the|and|for|&)\b",
    re.I,
)
_SURNAME_PARTICLES = frozenset("st. st ste. de da di del della van von der den la le du mac".split())
_CONTINUED_RE = re.compile(r"\b(of|the|and|for|from|to|in|on|at|by|with)\s*$", re.I)  # a line that runs on
_SALUTATION_RE = re.compile(r"^\s*dear\s+\w", re.I)


@dataclass(frozen=True)
class Caption:
    parties: str | None  # "Knowles v. Mirzayance", "In re Liebowitz"
    court: str | None  # "Supreme Court of the United States"
    kind: str | None  # "Oral Argument Transcript", "Docketing Notice"


def read_caption(lines: list[str]) -> Caption | None:
    """The caption of a court paper's first page (`lines`, in reading order); None when the page is
    no court paper's: no parties "A v. B" or "In re …", or none of a court, a case number and a
    party's role beside them."""
    lines = lines[:FIRST_LINES]
    text = "\n".join(lines)
    court = next((line for line in lines if COURT_RE.search(line) and len(line.split()) <= 14), None)
    has_case = bool(_DOCKET_RE.search(text) or _FILING_STAMP_RE.search(text))
    versus = [k for k, line in enumerate(lines) if VERSUS_RE.search(f" {line} ")]
    in_re = _in_re(lines) if court else None
    if not versus and not in_re:  # a court's paper without parties: its heading says what it is
        heading = _heading_kind(lines) if court and any(_case_line(line) for line in lines) else None
        return Caption(None, _court_name(court), heading) if court and heading else None
    if not (court or has_case or ROLE_RE.search(text)):
        return None
    parties = next((found for at in versus if (found := _parties(lines, at))), None) or in_re
    if parties is None and not (court and has_case):
        return None
    return Caption(parties, _court_name(court) if court else None, _paper_kind(lines))


CASE_LINE_WORDS = 8  # a caption sets its case's number on a short line of its own (or one in capitals)


def _case_line(line: str) -> bool:
    """A line that sets the paper's case number as a caption or a filing stamp does ("Case No.
    2:19-cr-00595-CAS", "No. 17-2400": opening the line, on a short one, or in capitals), not a
    sentence that cites one ("Filings rose; Case No. 2019-1234 took longest.")."""
    if _FILING_STAMP_RE.search(line):
        return True
    if _DOCKET_RE.match(line.strip(" ([*")):  # the line opens with it ("No. 11-889. Argued April 23, …")
        return True
    sentence = re.search(r"[a-z]{2}\.$", line.strip())
    set_apart = len(line.split()) <= CASE_LINE_WORDS or line.isupper()  # (a form's line in capitals)
    return bool(_DOCKET_RE.search(line)) and set_apart and not sentence


def court_title(lines: list[str], following: list[str] | None = None) -> str | None:
    """A court paper's title: "Knowles v. Mirzayance — Oral Argument Transcript" (its parties and
    the kind of paper its first page names, else the heading that names it on the `following`
    page, where a caption of several cases runs on), None when the page is no court paper's or
    names no parties."""
    found = read_caption(lines)
    if found is None or found.parties is None:
        return None
    kind = found.kind or _heading_kind((following or [])[:FIRST_LINES])
    return f"{found.parties} — {kind}" if kind else found.parties


def court_label(lines: list[str]) -> str | None:
    """What a court paper whose parties cannot be read is, where nothing else names it: its kind,
    its court and its case's number ("Order — United States Court of Appeals, No. 17-2400"); None
    when the page is no court paper's or names no kind of paper."""
    found = read_caption(lines)
    if found is None or not (found.kind and found.court):
        return None
    case = CASE_RE.search("\n".join(lines[:FIRST_LINES]))
    words = re.sub(r"(?i)\bno\.\s*", "No. ", case.group(0)).split() if case else []
    number = " ".join(w if re.search(r"\d", w) else w.capitalize() if w.isupper() else w for w in words)
    stamped = _filing_stamp(lines)
    number = number or (f"Case {stamped.group(1)}" if stamped else "")  # the case its filing stamp gives
    return f"{found.kind} — {found.court}" + (f", {number}" if number else "")


# The stamp a court's electronic filing sets atop every page of a paper filed with it: "Case
# 3:19-cv-05711-EMC Document 74-3 Filed 04/12/21 Page 8 of 25" (its case, and the paper's number in the docket;
# also "Case: 1:19-cv-01234 Document #: 12 Filed: …", and a bankruptcy court's "… Filed … Entered … Page 3 of 5").
_FILING_STAMP_RE = re.compile(
    r"\bcase:?\s+(\S*\d\S*)\s+(?:document|doc\.?)\s*(?:#\s*)?:?\s*(\S*\d\S*)\s+filed\b:?"
    r"(?:(?:\s+\S+){1,8}?\s+page:?\s*(\d+))?",
    re.I,
)


def _filing_stamp(lines: list[str]) -> re.Match[str] | None:
    return next((m for line in lines[:FIRST_LINES] if (m := _FILING_STAMP_RE.search(line))), None)


def stamped_label(lines: list[str]) -> str | None:
    """What a page of a filed court paper whose first page names no parties is, where nothing else
    names it: the paper its heading or its footer names, with the case and the docket's number its
    filing stamp gives, and the page they start on if not its first ("Motion for Class Certification
    — Case 3:19-cv-05711-EMC, Document 74-3, page 8", "Case 1:19-cr-00725-JPO, Document 191"); None
    without such a stamp."""
    found = _filing_stamp(lines)
    if found is None:
        return None
    filed = f"Case {found.group(1)}, Document {found.group(2)}"
    if found.group(3) and found.group(3) != "1":  # pages taken out of the paper, from its page 8 on
        filed += f", page {found.group(3)}"
    kind = _heading_kind([line for line in lines if not _FILING_STAMP_RE.search(line)])
    return f"{kind} — {filed}" if kind else filed


def _parties(lines: list[str], at: int) -> str | None:
    """ "Knowles v. Mirzayance" from the caption whose "v." is on line `at`: each party named on
    that line beside it, else on the nearest line set as a party's."""
    before, after = VERSUS_RE.split(f" {lines[at]} ", maxsplit=1)
    if _SIGNAL_RE.match(before) or _REPORTER_RE.search(after) or len(before.split()) > HEADING_WORDS:
        return None  # a case the paper cites, or a sentence that names one
    before = CASE_RE.sub(",", _LABEL_RE.sub("", before))
    cut = CASE_RE.search(after)
    after = after[: cut.start()] if cut else after
    first = _party(before) or _party_near(lines, at, -1)
    second = _party(after) or _party_near(lines, at, 1)
    return f"{first} v. {second}" if first and second else None


def _party_near(lines: list[str], at: int, step: int) -> str | None:
    """The party named on the nearest line above (`step` -1) or below (1) the "v." that a caption
    sets as a party's: in capitals, ending in a comma, with its role or "et al.", or right beside
    the "v." (rules, brackets, case numbers and roles between)."""
    beside = True
    end = at + step * CAPTION_LINES
    for k in range(at + step, max(-1, min(len(lines), end)), step):
        line = _RULE_RE.sub("", lines[k].strip())
        if not line or _skipped(line):
            continue
        name = _party(line)
        if name and (beside or _set_as_party(lines, k)) and not _continues(lines, k):
            return name
        beside = False
    return None


def _continues(lines: list[str], k: int) -> bool:
    """Line `k` carries on the line above it ("Appeal from the Circuit Court of" / "St. Charles
    County, Missouri"): a place in a caption's other column, not a party."""
    above = next((x for x in reversed(lines[:k]) if _RULE_RE.sub("", x.strip())), "")
    return bool(_CONTINUED_RE.search(above))


def _skipped(line: str) -> bool:
    """A caption's line that is no party's and keeps a party beside the "v.": a case number with its
    label ("State File No. 80097-2017"), a role."""
    bare = re.sub(r"[\W_]|\band\b", " ", ROLE_RE.sub("", CASE_RE.sub("", line)), flags=re.I).split()
    return not bare or (CASE_RE.search(line) is not None and len(bare) <= CASE_LABEL_WORDS)


def _set_as_party(lines: list[str], k: int) -> bool:
    line = lines[k].strip()
    letters = re.sub(r"[^A-Za-z]", "", line)
    after = next((x for x in lines[k + 1 : k + 3] if _RULE_RE.sub("", x.strip())), "")
    return (
        line.endswith((",", ";"))
        or bool(_ET_AL_RE.search(line) or ROLE_RE.search(line) or _LEGAL_FORM.search(line))
        or (len(letters) > 3 and letters.isupper())
        or (bool(ROLE_RE.search(after)) and _skipped(_RULE_RE.sub("", after.strip())))
    )


def _party(text: str) -> str | None:
    """A party's name as a caption's line or a "v." side gives it: up to its first comma, with its
    legal form ("Northwind Traders, Inc."), a person by the last word of it ("Mills")."""
    text = _ET_AL_RE.sub(",", _RULE_RE.sub("", text.strip()))
    name = re.split(r",|;|\s[:–—-]\s|\s{2,}", ROLE_RE.sub("", text).strip(" :,.;"), maxsplit=1)[0].strip(" :,.;")
    name = re.sub(r"^(in re|in the matter of|ex parte)\s+", "", name, flags=re.I)
    words = name.split()
    if not words or len(words) > PARTY_WORDS or not name[:1].isalpha():
        return None
    if COURT_RE.search(name) or CASE_RE.search(name) or DAY_RE.search(name) or _NOT_NAME_RE.search(name):
        return None  # the court's name, a number, a date, a stamp, the clerk, a website
    if re.search(r"\b(court|united states of america)\b", name, re.I) and len(words) > 4:
        return None
    legal = _LEGAL_FORM.search(text)  # "NORTHWIND TRADERS, INC., Plaintiff": the form follows a comma
    if legal and legal.start() <= len(name) + 3:
        name = text[: legal.end()].strip(" ,")
        words = name.split()
    set_as_party = text.rstrip().endswith((",", ";")) or bool(ROLE_RE.search(text))  # "MOTION PICTURE …, INC.,"
    if not set_as_party and (_HEADING_KIND_RE.match(name) or (_HEADING_KIND_RE.search(name) and not legal)):
        return None  # the paper's heading ("ORDER GRANTING …", "JOINT STIPULATION AND …")
    person = 2 <= len(words) <= 4 and all(w[:1].isupper() for w in words) and not names_institution(name)
    if person and not (legal or _ORGANISATION_RE.search(name)):
        return _surname(words)
    return _cased_name(words)


def _surname(words: list[str]) -> str:
    """ "Vanessa St. Pierre" → "St. Pierre", "JANET T. MILLS" → "Mills", "JOHN SMITH JR." → "Smith"."""
    while len(words) > 2 and words[-1].lower().strip(".,") in ("jr", "sr", "ii", "iii", "iv"):
        words = words[:-1]
    at = len(words) - 1
    while at > 1 and words[at - 1].lower() in _SURNAME_PARTICLES:
        at -= 1
    return " ".join(w.capitalize() if w.isupper() else w for w in words[at:])


def _in_re(lines: list[str]) -> str | None:
    """ "In re Bard IVC Filters Products Liability Litigation": a matter of one party, its name on the
    line "In re" opens or the next, a name that runs on to the next line joined to it."""
    for k, line in enumerate(lines):
        found = _IN_RE_RE.match(line.strip())
        if not found:
            continue
        rest, following = found.group(2).strip(), lines[k + 1 : k + 3]
        if not rest:  # "IN RE:" alone: the name is the next line set as a party's (the court's name may come between)
            at = next((j for j in range(k + 1, min(len(lines), k + 3)) if not COURT_RE.search(lines[j])), None)
            if at is None or not _set_as_party(lines, at):
                return None
            rest, following = lines[at].strip(), lines[at + 1 : at + 3]
        if following and not rest.endswith((",", ";")) and _runs_on(following[0]):
            rest = f"{rest} {following[0].strip()}"
        name = _party(rest)
        opening = " ".join(found.group(1).split()).capitalize()  # "In re", "In the matter of", "Ex parte"
        return f"{opening} {name}" if name else None
    return None


def _runs_on(line: str) -> bool:
    """The next line continues a name (" Liability Litigation,"), not a heading or a number."""
    text = _RULE_RE.sub("", line.strip())
    return bool(text) and not _skipped(text) and not _HEADING_KIND_RE.search(text) and len(text.split()) <= 4


def _paper_kind(lines: list[str]) -> str | None:
    """What the paper is: the heading that names it, a letter by its greeting, else the first kind
    its page's words name."""
    if heading := _heading_kind(lines):
        return heading
    if any(_SALUTATION_RE.match(line) for line in lines):
        return "Letter"
    text = " ".join(lines)
    return next((name.title() for name, pattern in _PAPER_KINDS if re.search(pattern, text, re.I)), None)


_AFTER_COURT_RE = re.compile(
    r"^\W*(?:(?:for|of)\s+the\s+(?:\w+\s+){0,3}?(?:circuit|district)\b(?:\s+of\s+\w+)?)?", re.I
)


# A heading in capitals with a field run on after it ("ORDER OF COURT" of "ORDER OF COURT Entered:
# January 3, 2013"); not a sentence that opens in capitals ("PLEASE TAKE NOTICE that …").
_CAPITALS_RUN_RE = re.compile(r"^(?:[A-Z][A-Z'’&.-]*\s+)+[A-Z][A-Z'’&.-]*(?=\s+[A-Z][a-z]+:)")


def _heading_kind(lines: list[str]) -> str | None:
    """The heading that says what the paper is ("DOCKETING NOTICE", "(Slip Opinion)", "ORDER
    GRANTING …" → "Order"), on a line of its own or after the court's name on its line ("… COURT OF
    APPEALS FOR THE FOURTH CIRCUIT APPEARANCE OF COUNSEL FORM")."""
    for line in lines:
        text = line.strip(" ()[]*:.")
        if line.rstrip().endswith((",", ";")) or (_LEGAL_FORM.search(text) and not _HEADING_KIND_RE.match(text)):
            continue  # a party's line ("NATIONAL RESPONSE CORPORATION,"), not "ORDER GRANTING ACME, INC.'S …"
        if court := COURT_RE.search(text):
            text = _AFTER_COURT_RE.sub("", text[court.end() :]).strip(" ()[]*:.")
        if lead := _CAPITALS_RUN_RE.match(text):
            text = lead.group(0)  # the heading, a field run on after it
        words = text.split()
        found = _HEADING_KIND_RE.search(text)
        letters = re.sub(r"[^A-Za-z]", "", text)
        capitals = bool(letters) and sum(c.isupper() for c in letters) >= CAPITALS_SHARE * len(letters)
        long = len(words) > HEADING_WORDS and not (found and found.start() == 0 and capitals)  # (its heading runs on)
        if not found or long or COURT_RE.search(text) or CASE_RE.search(text):
            continue
        if not (capitals or len(words) <= 3):
            continue  # a sentence that uses the word, not a heading
        if found.start() == 0:  # the heading opens with what the paper is: shown to a comma, in KIND_WORDS
            shown = re.split(r"[,;(\d]", text)[0].split()[:KIND_WORDS]
            while len(shown) > 1 and _CONTINUED_RE.search(shown[-1]):
                shown.pop()
            return _cased_name(shown)
        numbered = re.search(r"\d", text) and not capitals  # ("CHAPTER 13 STANDING TRUSTEE'S FINAL REPORT")
        if len(words) <= HEADING_KIND_WORDS and not text.endswith(",") and not numbered:
            return _cased_name(words)
        return found.group(0).title()
    return None


def _court_name(line: str) -> str:
    """The court's name its line gives ("Supreme Court of the State of New York"), without a
    margin's number before it or the heading of the paper after it ("… FOURTH CIRCUIT APPEARANCE OF
    COUNSEL FORM")."""
    found = COURT_RE.search(line)
    start = line.rfind("\n", 0, found.start()) + 1 if found else 0
    end = len(line)
    if found and (after := _AFTER_COURT_RE.match(line[found.end() :])):
        named = found.end() + after.end()  # past "for the Fourth Circuit"
        end = named if _HEADING_KIND_RE.search(line, named) else end
    name = re.sub(r"^[\W\d]*", "", line[start:end])  # a margin's number ("5 UNITED STATES …")
    name = re.sub(r"^(in\s+the|for\s+the)\s+", "", name, flags=re.I).strip(" .,:")
    return _cased_name(name.split())


def _cased_name(words: list[str]) -> str:
    return " ".join(_cased(w, k) for k, w in enumerate(words))


def _cased(word: str, at: int) -> str:
    """A word of a name set in capitals as a reader writes it ("SUPREME" → "Supreme", "OF" → "of")."""
    if not word.isupper():
        return word
    function = word.lower() in ("of", "the", "for", "and", "in", "on", "at", "to", "a", "an", "by", "with", "from")
    if at and function:
        return word.lower()
    return word.capitalize() if len(word) > 3 or function else word  # "RLI", "DVA": an acronym
