"""A title a document states in the fields it opens with, as kinds with such a convention do.

A memo or a letter names its subject in a "Subject:" or "Re:" line beside its "To:", "From:" and
"Date:"; a rule or a notice of a government register (the Federal Register's, by 1 CFR 18.12)
opens with its agency's lines, its docket, then its subject, then the fields "AGENCY:",
"ACTION:", "SUMMARY:". Those fields, not the type the page is set in, say where the subject is:
a register's page sets its section's banner ("Proposed Rules") larger than the rule's own title.
"""

from __future__ import annotations

import re

from indexer.titles.lines import clean, names_institution, reads_as_title

_FIELD_RE = re.compile(r"^\W*(to|from|date|cc|subject|re)\W*:\s*(.*)$", re.I)
_SUBJECT_FIELDS = frozenset({"subject", "re"})
MEMO_FIELDS = 2  # a subject line counts beside at least this many of a memo's other fields
MEMO_LINES = 15  # … among the first lines of the page
_AGENCY_RE = re.compile(r"^\W*agency\W*:", re.I)
_PREAMBLE_RE = re.compile(r"^\W*(action|summary)\W*:", re.I)
PREAMBLE_LINES = 40  # a register's preamble opens its first page
SUBJECT_BACK = 4  # the subject stands right above "AGENCY:", under the docket's lines
FIELDS_TOGETHER = 4  # "ACTION:" or "SUMMARY:" follows "AGENCY:" within these lines
_REPLY_RE = re.compile(r"^(?:(?:re|fw|fwd|aw|wg)\s*:\s*)+", re.I)  # "RE: FW: Q3 budget": a reply's marks
SUBJECT_WORDS = 25  # a subject longer than this is a paragraph
_DOCKET_RE = re.compile(r"\b(CFR|RIN|docket|FR Doc|billing code|parts?\s+\d)", re.I)


def preamble_title(lines: list[str]) -> str | None:
    """The subject the first page's fields name (`lines`, in reading order), else None."""
    return _register_subject(lines[:PREAMBLE_LINES]) or _memo_subject(lines[:MEMO_LINES])


def _memo_subject(lines: list[str]) -> str | None:
    fields = [m for line in lines if (m := _FIELD_RE.match(clean(line)))]
    names = {m.group(1).lower() for m in fields}
    if len(names - _SUBJECT_FIELDS) < MEMO_FIELDS:
        return None  # a lone "Re:" is a line of a letter's text, not a memo's heading
    subject = next((m.group(2).strip() for m in fields if m.group(1).lower() in _SUBJECT_FIELDS), "")
    subject = _REPLY_RE.sub("", subject)
    return subject if reads_as_title(subject) and len(subject.split()) <= SUBJECT_WORDS else None


def _register_subject(lines: list[str]) -> str | None:
    at = next((k for k, line in enumerate(lines) if _AGENCY_RE.match(line)), None)
    if at is None or not any(_PREAMBLE_RE.match(line) for line in lines[at + 1 : at + 1 + FIELDS_TOGETHER]):
        return None  # a preamble has its fields together: "AGENCY:", then "ACTION:" or "SUMMARY:"
    for line in reversed(lines[max(at - SUBJECT_BACK, 0) : at]):
        text = clean(line)
        if _DOCKET_RE.search(text) or names_institution(text) or _FIELD_RE.match(text) or not reads_as_title(text):
            continue
        if 2 <= len(text.split()) <= SUBJECT_WORDS:
            return text
    return None
