"""Whether a reader accepts a title, against the title a reader wrote for the document from its
first page (`benchmarks/titles/labels/`), and what is wrong when not.

A title is accepted when it holds most of the words of the reader's title (or of a form the
reader also accepts: the title without its subtitle, a filing's shorter form), and little else:
the issuer and the date the reader noted may come with it, and a word or two that says what kind
of document it is. Words are compared in lower case, punctuation, dashes and function words
aside; a CJK title by its characters. What is wrong, when a title is not accepted:

* **file name**: the map shows the file's name though page 1 prints a title;
* **split**: a word of the reader's title torn apart ("Rider ship", "AB-Straction");
* **run together**: words of the reader's title joined into one ("HUAWEINOVa");
* **partial**: only part of the title (one line of several, the subtitle, a line cut short);
* **other text**: mostly words that are not the title (a person, a logo, a banner, a running header,
  a place, a committee, a table's cell, a sidebar).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field

RECALL = 0.8  # of the reader's title's words the shown title must hold
PRECISION = 0.6  # of the shown title's words that must be the reader's (or the issuer's, the date's, a kind's)
FUNCTION_WORDS = frozenset(
    "a an and as at by de du des der die das et for from in into la le les of on or per the to und via vs with".split()
)
KIND_WORDS = frozenset(
    "form annual quarterly report reports results fiscal year ended period quarter syllabus course "
    "manual guide user handbook brochure prospectus presentation slides paper transcript letter memo "
    "notice minutes agenda summary statement page file name".split()
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def words(text: str | None) -> list[str]:
    """A title's words as compared: lower case, accents kept, CJK characters one each."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    out: list[str] = []
    for token in re.findall(r"[^\W_]+", text):
        if _CJK.search(token):  # each CJK character a word; a number or a Latin word beside them one word
            out.extend(part for part in re.findall(r"[^\W_]", token) if _CJK.match(part))
            out.extend(re.findall(r"[^\W_]+", _CJK.sub(" ", token)))
        elif token not in FUNCTION_WORDS:
            out.append(token)
    return out


@dataclass
class Label:
    """What a reader wrote of one document."""

    title: str
    accept: list[str] = field(default_factory=list)
    kind: str = ""
    issuer: str | None = None
    date: str | None = None
    shapes: list[str] = field(default_factory=list)

    @property
    def printed(self) -> bool:
        """Page 1 (or the file's opening) prints a title."""
        return "no printed title" not in self.shapes


def judge(shown: str, named_by_file: bool, label: Label) -> tuple[bool, str | None]:
    """(accepted, what is wrong or None)."""
    have = words(shown)
    if not have:
        return False, "other text"
    allowed = set(words(label.issuer)) | set(words(label.date)) | KIND_WORDS
    best = (0.0, 0.0)
    for form in [label.title, *label.accept]:
        want = set(words(form))
        if not want:
            continue
        recall = len(want & set(have)) / len(want)
        precision = sum(w in want or w in allowed for w in have) / len(have)
        if recall >= RECALL and precision >= PRECISION:
            return True, None  # (a file's name may be what a reader calls it too: "Stanley Cups")
        best = max(best, (recall, precision))
    if named_by_file:  # the map says the name is the file's: right only where page 1 prints no title
        return (True, None) if not label.printed else (False, "file name")
    return False, _what_is_wrong(have, set(words(label.title)), best)


def _what_is_wrong(have: list[str], want: set[str], best: tuple[float, float]) -> str:
    joined = {a + b for a, b in itertools.pairwise(have)}
    if joined & want:
        return "split"
    if any(len(w) > 3 and w not in want and _run_of(w, want) for w in have):
        return "run together"
    recall, precision = best
    return "partial" if recall > 0 and precision >= PRECISION else "other text"


def _run_of(word: str, want: set[str]) -> bool:
    """`word` is two or more of the wanted words run together."""
    return any(word.startswith(w) and w != word and _made_of(word[len(w) :], want) for w in want if len(w) >= 2)


def _made_of(rest: str, want: set[str]) -> bool:
    return not rest or any(rest.startswith(w) and _made_of(rest[len(w) :], want) for w in want if len(w) >= 2)
