"""What to call a document: its cover page when it has a standard one, else its metadata title
when that is a real title, else (in `structure.build`) its first heading or its file name.

PDF metadata titles are often not titles at all: an accession number (`0000004962-23-000006`),
a template's leftover (`Document`, `Microsoft Word - F20_10K_VFinal`), or another document's
(a 10-K saved over last year's proxy statement). A filing's cover page says exactly what it
is, in a form every SEC filing shares: `FORM 10-K`, the registrant's name above "(Exact name
of registrant as specified in its charter)", and the period it covers. That convention is the
genre's, like `PART II` › `Item 7A.` numbering, not any one company's.
"""

from __future__ import annotations

import re

from indexer.models import Block

_FORM_RE = re.compile(r"\bFORM\s+(10-KT?|10-QT?|8-K|20-F|40-F|6-K|11-K|S-1|S-4|F-1|DEF\s*14A)\b", re.I)
_REGISTRANT_RE = re.compile(r"\(\s*exact\s+name\s+of\s+(the\s+)?registrant", re.I)
_PERIOD_RE = re.compile(
    r"for\s+the\s+(fiscal\s+year|quarterly\s+period|transition\s+period|year)\s+ended\s*:?\s*"
    r"([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})",
    re.I,
)
_REPORT_DATE_RE = re.compile(r"date\s+of\s+report[^:]*:\s*([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", re.I)
_RULE_RE = re.compile(r"^[\s_\-–—=*]*$")


def metadata_title_ok(title: str) -> bool:
    """A metadata title worth showing: a few words, not a tool's placeholder or a file id."""
    title = title.strip()
    lowered = title.lower()
    return (
        len(title.split()) >= 2
        and not lowered.startswith(("microsoft", "untitled"))
        and not re.fullmatch(r"[\d\W_]+", title)
    )


def cover_title(blocks: list[Block]) -> str | None:
    """`REGISTRANT — Form 10-K, fiscal year ended …` from a filing's cover page, or None."""
    lines = [
        " ".join(line.split())
        for b in blocks
        if b.page is not None and b.page <= 2
        for line in b.text.splitlines()
    ]
    text = "\n".join(lines)
    form = _FORM_RE.search(text)
    if form is None:
        return None
    registrant = None
    for i, line in enumerate(lines):
        match = _REGISTRANT_RE.search(line)
        if not match:
            continue
        before = line[: match.start()].strip(" ,;:")
        if before and not _RULE_RE.match(before):
            registrant = before
        else:
            previous = [p for p in lines[max(0, i - 3) : i] if p and not _RULE_RE.match(p)]
            registrant = previous[-1] if previous else None
        break
    if not registrant or len(registrant) > 120:
        return None
    title = f"{registrant} — Form {' '.join(form.group(1).upper().split())}"
    period = _PERIOD_RE.search(text)
    if period:
        kind = "quarter" if "quarter" in period.group(1).lower() else period.group(1).lower()
        title += f", {' '.join(kind.split())} ended {' '.join(period.group(2).split())}"
    elif report := _REPORT_DATE_RE.search(text):
        title += f", {' '.join(report.group(1).split())}"
    return title
