"""A title's words as the document prints them in its text: a line-break hyphen joined again
("AB-STRACTION" → "ABSTRACTION" where the text says "abstraction"), words run together or torn
apart spaced as the text spaces them ("HUAWEIMate20" → "HUAWEI Mate 20", "MGM | R | ESORTS"
→ "MGM Resorts"), and a title set in capitals cased as the text writes its words ("SKILL
COMPOSITION VIA ABSTRACTION" → "Skill Composition via Abstraction", "ACME CORP" → "Acme Corp",
acronyms kept). A cover sets its title in capitals or across lines for the eye; the text under
it writes the same words as a reader would, so that is the authority, not a dictionary.
"""

from __future__ import annotations

import re
from collections import Counter

from indexer.models import Block
from indexer.titles.lines import clean

TEXT_CHARS = 100_000  # the opening text read for how the document writes its words
_SMALL_WORDS = frozenset(
    "a an and as at but by for from in into nor of on or per the to via vs with within without".split()
)
_BROKEN_RE = re.compile(r"\b([^\W\d_]{2,})\s?-\s?([^\W\d_]{2,})\b")
# A bracketed code after a title: an issue and a language ("（01,en）"), a revision ("(rev. 3)").
_CODE_RE = re.compile(r"\s*[(（]\s*(?:\d+\s*[,，]\s*[a-z]{2}|[a-z]{2}\s*[,，]\s*\d+|rev\.?\s*\d+)\s*[)）]\s*$", re.I)
_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
ACRONYM_LETTERS = 4  # a word this short, in capitals and found nowhere else, is kept so ("NASA")
_SEGMENT_RE = re.compile(r"(\s+[—–]\s+|:\s+)")  # a title's parts: "ACME CORP — Form 10-K, …"


def opening_text(blocks: list[Block], pictures: bool = False) -> str:
    """The document's opening text as its paragraphs write it (headings aside: they are set for
    the eye, in capitals as often as not), or the words read from its pictures (a scan's), which
    say how words are broken and spaced but not how they are cased (a slide sets them in capitals)."""
    kinds = ("figure",) if pictures else ("text", "list", "table")
    parts: list[str] = []
    size = 0
    for block in blocks:
        if block.kind in kinds and size < TEXT_CHARS:
            parts.append(block.text)
            size += len(block.text)
    return "\n".join(parts)


# Where a space is lost between words, whatever the words: after a possessive or a comma, before a
# capitalised word ("Driver'sServices,Inc." is "Driver's Services, Inc."; no name is spelt so).
_LOST_SPACE_RE = re.compile(r"(?<=[a-z])(?:['’]s|,)(?=[A-Z][a-z])")


def mend(title: str, text: str, pictures: str = "") -> str:
    """`title` with its line-break hyphens joined and spaced as `text` (and the words read from
    its `pictures`) print it, cased as `text` writes its words."""
    printed = f"{text}\n{pictures}" if pictures else text
    title = _join_broken_words(_CODE_RE.sub("", clean(title)), printed)
    squeezed = _squeezed(printed)
    split = _NUMERAL_RUN_RE.sub(r" \1", RUN_RE.sub(lambda m: split_run(m.group(0), printed), title))
    if split != title:  # a text layer that lost its spaces lost them after a colon too
        title = re.sub(r"(?<=\w):(?=[^\W\d_])", ": ", split)
    title = re.sub(r"(?<=[a-z]):(?=[A-Z])", ": ", title)  # OCR's "LayoutParser:A Unified Toolkit"
    title = _LOST_SPACE_RE.sub(lambda m: m.group(0) + " ", title)  # OCR's "Driver'sServices,Inc."
    parts = _SEGMENT_RE.split(title)  # parts at even places, what separates them between
    return "".join(
        _cased(_spaced_as_printed(part, printed, *squeezed), text) if k % 2 == 0 else part
        for k, part in enumerate(parts)
    )


# A part's numeral run into the word before it ("Sport Data AnalyticsI", "StatisticsII").
_NUMERAL_RUN_RE = re.compile(r"(?<=[a-z]{3})(I{1,3})\b")
# A run of letters in one case, long enough to be words whose spaces the text layer lost
# ("THEECOMMERCEGOLDRUSHININDIA"); a word in mixed case ("OnlineHelp") is printed so, unless it
# runs longer than words do ("IntermediateStatisticsforBusinessandEconomics").
RUN_RE = re.compile(r"\b(?:[A-Z]{12,}|[a-z]{12,}|[A-Za-z]{24,})\b")
_SHORT_WORDS = frozenset("a i e an as at by in is it of on or to up we".split())


def split_run(run: str, text: str) -> str:
    """ "THEECOMMERCEGOLDRUSHININDIA" → "THE E COMMERCE GOLDRUSH IN INDIA" (wordninja's English word
    frequencies); a long word (a known one, or one the text writes too), or a run that splits into
    fragments, as it is."""
    import wordninja

    if run.lower() in wordninja.DEFAULT_LANGUAGE_MODEL._wordcost or re.search(rf"\b{run}\b", text, re.I):
        return run  # "INTERNATIONALIZATION", "ELECTROPHYSIOLOGICAL" where the text writes it
    words = wordninja.split(run.lower())
    if len(words) < 2 or any(len(w) < 3 and w not in _SHORT_WORDS for w in words):
        return run
    out, at = [], 0
    for word in words:
        out.append(run[at : at + len(word)])
        at += len(word)
    return " ".join(out)


def _join_broken_words(title: str, text: str) -> str:
    """ "AB-STRACTION" → "ABSTRACTION" when the text writes "abstraction" and never "ab-straction";
    "EARTH - SHAKES" → "EARTH-SHAKES" when it writes "earth-shakes"."""

    def joined(found: re.Match[str]) -> str:
        first, second = found.group(1), found.group(2)
        hyphenated = rf"\b{re.escape(first)}-\s?{re.escape(second)}\b"
        if re.search(rf"\b{re.escape(first + second)}\b", text, re.I) and not re.search(hyphenated, text, re.I):
            return first + second
        if " " in found.group(0) and re.search(rf"\b{re.escape(first)}-{re.escape(second)}\b", text, re.I):
            return f"{first}-{second}"
        return found.group(0)

    return _BROKEN_RE.sub(joined, title)


def _squeezed(text: str) -> tuple[str, list[int]]:
    """`text`'s letters and digits in lower case, with where each came from."""
    kept = [(ch.lower(), at) for at, ch in enumerate(text) if ch.isalnum()]
    return "".join(ch for ch, _ in kept), [at for _, at in kept]


def _spaced_as_printed(title: str, text: str, squeezed: str, origin: list[int]) -> str:
    """The title's words as the text spaces them ("HUAWEI Mate 20 Pro" for "HUAWEIMate20Pro",
    "MGM Resorts International" for "MGM | R | ESORTS I NTERNATIONAL"): each longest run of its
    words whose letters the text prints in the same order, with other breaks between them."""
    tokens = title.split()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for j in range(min(len(tokens), i + RUN_WORDS), i, -1):
            form = _printed_form(tokens[i:j], text, squeezed, origin)
            if form:
                out.append(_cased_as(tokens[i:j], form) if form.islower() else form)
                i = j
                break
        else:
            out.append(tokens[i])
            i += 1
    return " ".join(out)


def _cased_as(run: list[str], form: str) -> str:
    """The text's spacing of a run with the title's own letters ("SportData" spaced as the text's
    "sport data": "Sport Data"): a title sets its words' capitals, running text does not."""
    letters = iter(ch for ch in "".join(run) if ch.isalnum())
    return "".join(next(letters, ch) if ch.isalnum() else ch for ch in form)


RUN_WORDS = 8  # the longest run of a title's words looked up whole
MIN_RUN_CHARS = 6  # shorter runs of letters are found by chance


def _printed_form(run: list[str], text: str, squeezed: str, origin: list[int]) -> str | None:
    """How the text spaces the letters of `run` when it spaces them otherwise, its most usual
    form first (one not in capitals before one in capitals); None when it prints them so or not
    at all, or as the title does as often. Fewer words only where the run is torn ("R ESORTS": a
    letter alone that is no word)."""
    key, _ = _squeezed(" ".join(run))
    if len(key) < MIN_RUN_CHARS:
        return None
    words = [w.lower() for w in _words(" ".join(run))]
    torn = any(len(w) == 1 and w.lower() not in ("a", "&") for w in run)
    forms: Counter[str] = Counter()
    same = 0
    start = squeezed.find(key)
    while start >= 0 and sum(forms.values()) + same < 50:
        begin, end = origin[start], origin[start + len(key) - 1] + 1
        bounded = (begin == 0 or not text[begin - 1].isalnum()) and (end == len(text) or not text[end].isalnum())
        form = clean(text[begin:end])  # words set in spaced letters are no other spacing
        if bounded and "\n" not in text[begin:end] and len(form) <= 2 * len(key):
            printed = [w.lower() for w in _words(form)]
            if printed == words:
                same += 1
            elif (len(printed) > len(words) or torn) and not RUN_RE.fullmatch(form):
                forms[form] += 1  # (a run of letters is a text layer that lost its spaces: no authority)
        start = squeezed.find(key, start + 1)
    if sum(forms.values()) <= same:  # the text prints it as the title does, as often or more
        return None
    return max(forms, key=lambda f: (not in_capitals(f), forms[f]))


def _words(text: str) -> list[str]:
    """A text's words, an apostrophe inside one kept ("trustee's" is one word, not "trustee s")."""
    return re.findall(r"[^\W_]+(?:['’][^\W_]+)*", text)


CAPITALS_SHARE = 0.6  # of a title's letters in capitals, for it to be set in capitals


def in_capitals(text: str) -> bool:
    """Set in capitals: two words or more of three letters or more in capitals, and few letters
    in lower case ("University of Massachusetts ISENBERG SCHOOL OF MANAGEMENT FEDERAL TAX …")."""
    words = _WORD_RE.findall(text)
    letters = [ch for ch in text if ch.isalpha()]
    upper = sum(ch.isupper() for ch in letters)
    return sum(len(w) >= 3 and w.isupper() for w in words) >= 2 and upper >= CAPITALS_SHARE * len(letters)


def _cased(part: str, text: str) -> str:
    """A part of a title set in capitals, cased as the text writes its words: a word the text
    writes with capitals inside ("iPhone", "LLMs", "NASA") so, a small word ("via", "of") in
    lower case, any other word capitalised."""
    if not in_capitals(part):
        return part
    phrase = re.search(re.escape(part).replace(r"\ ", r"\s+"), text, re.I)
    if phrase and not in_capitals(phrase.group(0)) and phrase.group(0)[0].isupper():
        return " ".join(phrase.group(0).split())  # the whole name as the text writes it: "Acme plc"
    out, first = [], True
    for token in re.split(r"([^\W\d_]+)", part):
        if not token or not token[0].isalpha():
            out.append(token)
            continue
        out.append(_cased_word(token, text, first) if token.isupper() else token)  # "University" stays
        first = False
    return "".join(out)


# A company's legal form, as it is written after a name in running text.
_LEGAL_FORMS = {"inc": "Inc", "corp": "Corp", "co": "Co", "ltd": "Ltd", "plc": "plc", "llc": "LLC", "llp": "LLP"}


def _cased_word(word: str, text: str, first: bool) -> str:
    if word.lower() in _LEGAL_FORMS and not first:
        return _LEGAL_FORMS[word.lower()]
    if word.lower() in _SMALL_WORDS:  # "FOR", though the text writes it only in the title's capitals;
        return word.capitalize() if first else word.lower()  # a function word is no acronym ("THE")
    # how the text writes the word, not inside an address ("nus.edu.sg")
    forms = Counter(re.findall(rf"(?<![\w./@]){re.escape(word)}(?![\w@/]|\.\w)", text, re.I))
    written = [f for f in forms if not f.isupper()]
    if (
        forms
        and not written
        and len(word) <= ACRONYM_LETTERS + 1
        and (len(word) <= SHORT_ACRONYM or _alone_in_capitals(word, text))
    ):
        return word  # the text writes it in capitals too, beside other words: an acronym ("MGM", "NASA")
    if not forms and len(word) <= ACRONYM_LETTERS and not re.search(r"[aeiouy]", word, re.I):
        return word  # no vowel, found nowhere: an acronym ("NLP")
    inner = [f for f in written if any(ch.isupper() for ch in f[1:])]
    if inner:
        return max(inner, key=lambda f: forms[f])  # "iPhone", "LLMs"
    return word[:1].upper() + word[1:].lower()


SHORT_ACRONYM = 3  # a word this short the text writes only in capitals is an acronym wherever it stands ("ISU")


CAPITALS_RUN = 3  # words in capitals in a row: an acronym's company ("NIST SP 800-53", "USDA NRCS"), not a heading


def _alone_in_capitals(word: str, text: str) -> bool:
    """Whether the text writes `word` in capitals among few words in capitals, on a line of text
    (an acronym's "MGM Resorts", "filed by NASA.", "NIST SP 800-53"), not only inside a run of
    them or on lines set wholly in capitals ("COUNTY CLERK PRECINCT BULLETINS", a heading's or a
    printout's, which say nothing of how a word is cased)."""
    found = re.compile(rf"\b{re.escape(word)}\b")
    for line in text.splitlines():
        tokens = line.split() if found.search(line) and any(ch.islower() for ch in line) else []  # not a heading
        for at in (k for k, token in enumerate(tokens) if found.search(token)):
            run = 1
            for step in (-1, 1):
                k = at + step
                while 0 <= k < len(tokens) and _IN_CAPITALS_RE.fullmatch(tokens[k]):
                    run, k = run + 1, k + step
            if run <= CAPITALS_RUN:
                return True
    return False


_IN_CAPITALS_RE = re.compile(r"\W*[A-Z][A-Z&'/-]+\W*")  # a word in capitals, its punctuation aside


SAME_SHARE = 0.6  # a heading holding this share of a title's letters, in order, prints that title


def same_title(heading: str, title: str | None) -> bool:
    """Whether a heading prints the title: the same letters and digits, whatever the case,
    spacing and line breaks, or most of them (the title's first line, or the title without the
    subtitle the heading adds)."""
    a, b = _squeezed(heading)[0], _squeezed(title or "")[0]
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return short in long and len(short) >= SAME_SHARE * len(long)
